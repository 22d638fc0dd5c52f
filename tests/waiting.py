"""Waiting in tests: for a condition to hold, and for a started ``tapestryd`` to say it is ready.

A test waits on a signal, never for a fixed time: a busy machine (a fresh install beside other
work on 2 cores ran the suite 7× slower) only makes the wait longer. ``PATIENCE`` is how long a
wait may take before the test calls it failed; it bounds a hang, it does not time a correct run,
so it is far above what any wait takes on a loaded machine. ``TAPESTRY_TEST_PATIENCE`` (seconds)
overrides it.

Readiness is tapestryd's own ``READY=1``, sent as systemd's notify protocol describes (see
``tapestryd/daemon/notify.py``) to a datagram socket the test listens on, once the daemon serves.
"""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import uuid
from typing import Any, Callable

__all__ = ["PATIENCE", "ReadySignal", "wait_for"]

PATIENCE = float(os.environ.get("TAPESTRY_TEST_PATIENCE", "300"))


def wait_for(predicate: Callable[[], Any], timeout: float = PATIENCE, interval: float = 0.05) -> Any:
    """Poll ``predicate`` every ``interval`` s until it returns something truthy, and return that;
    raise AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(interval)


class ReadySignal:
    """A datagram socket in the abstract namespace that a daemon's notifications arrive on.

    ``env`` goes into the daemon's environment (``NOTIFY_SOCKET``); :meth:`wait` blocks until
    ``READY=1`` came. A thread reads every datagram until :meth:`close`, as systemd does: the
    daemon also sends ``WATCHDOG=1`` every tick, and a socket nobody reads fills up and blocks
    the sender. Close it (or use it as a context manager) once the daemon has exited.
    """

    def __init__(self) -> None:
        self.name = f"@tapestry-test-{uuid.uuid4().hex}"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + self.name[1:])
        self.sock.settimeout(0.2)
        self.ready = threading.Event()
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read, name="notify-reader", daemon=True)
        self._reader.start()

    @property
    def env(self) -> dict[str, str]:
        """The environment entry that makes tapestryd notify this socket."""
        return {"NOTIFY_SOCKET": self.name}

    def _read(self) -> None:
        while not self._closed.is_set():
            try:
                datagram = self.sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:  # closed
                return
            if b"READY=1" in datagram.split(b"\n"):
                self.ready.set()

    def wait(self, proc: subprocess.Popen[Any], describe: Callable[[], str] = lambda: "",
             timeout: float = PATIENCE) -> None:
        """Block until ``READY=1`` came; AssertionError (with ``describe()``, e.g. the log's tail)
        when ``proc`` exits first or after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not self.ready.wait(0.1):
            if proc.poll() is not None:
                raise AssertionError(f"tapestryd exited with {proc.returncode} before it was ready\n{describe()}")
            if time.monotonic() >= deadline:
                raise AssertionError(f"tapestryd did not say READY=1 within {timeout} s\n{describe()}")

    def close(self) -> None:
        """Stop reading and listening."""
        self._closed.set()
        self._reader.join()
        self.sock.close()

    def __enter__(self) -> ReadySignal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
