"""Helpers of the daemon tests: a test home's config, session lines, polling, and a handle on
``tapestryd`` running as a real subprocess. (A module name of its own: every test folder has a
``conftest``, so ``from conftest import`` would pick whichever was imported first.)"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from waiting import PATIENCE, ReadySignal, wait_for

from tapestryd.config import load_settings
from tapestryd.errors import DaemonError
from tapestryd.paths import paths_for
from tapestryd.wire.client import request


def write_config(home: Path, *, roots: list[Path], sweep: float = 1, extra: str = "") -> None:
    """tapestry.toml for a test home: UTC, these watched roots, a sweep every ``sweep`` s.

    The calendar is off unless ``extra`` configures ``[web]``, so daemons never race for a port.
    """
    listed = ", ".join(json.dumps(str(r)) for r in roots)
    if "[web]" not in extra:
        extra += "\n[web]\nenabled = false\n"
    (home / "tapestry.toml").write_text(
        f'[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = [{listed}]\nsweep_interval = {sweep}\n{extra}')


def session_line(session: str, uuid: str, text: str, *, role: str = "user", ts: str = "2026-03-04T10:00:00Z") -> bytes:
    """One Claude Code session record (a user or assistant message), newline included."""
    record = {"type": role, "uuid": uuid, "sessionId": session, "timestamp": ts, "cwd": "/home/me/proj",
              "message": {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}}
    return json.dumps(record).encode() + b"\n"


class Daemon:
    """``tapestryd`` of one home, as a subprocess; its stderr goes to ``log``."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.settings = load_settings(home)
        self.socket = paths_for(self.settings).socket
        self.log = home / "daemon.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.notify: ReadySignal | None = None

    def start(self, *, env: dict[str, str] | None = None, wait: bool = True) -> Daemon:
        """Start it; with ``wait``, return once it said ``READY=1`` (or, when ``env`` names a
        ``NOTIFY_SOCKET`` of the test's own, once it answers ping)."""
        self._close_notify()
        if wait and "NOTIFY_SOCKET" not in (env or {}):
            self.notify = ReadySignal()
        full = {**os.environ, "TAPESTRY_HOME": str(self.home), **(self.notify.env if self.notify else {}),
                **(env or {})}
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"],
                                         env=full, stdout=subprocess.DEVNULL, stderr=log)
        if self.notify is not None:
            self.notify.wait(self.proc, lambda: self.log.read_text()[-3000:])
        elif wait:
            wait_for(self.ready)
        return self

    def _close_notify(self) -> None:
        if self.notify is not None:
            self.notify.close()
            self.notify = None

    def ready(self) -> bool:
        """Whether it answers ping."""
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"tapestryd exited with {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
        try:
            return bool(request(self.socket, "ping", timeout=2))
        except DaemonError:
            return False

    def call(self, op: str, args: dict[str, Any] | None = None, timeout: float = PATIENCE) -> Any:
        """One request through the socket."""
        return request(self.socket, op, args or {}, timeout=timeout)

    def send(self, signum: int) -> None:
        """Send ``signum`` to the process."""
        assert self.proc is not None
        self.proc.send_signal(signum)

    def stop(self, signum: int = signal.SIGTERM, timeout: float = PATIENCE) -> tuple[int, float]:
        """Send ``signum`` and wait: ``(exit code, seconds it took)``."""
        assert self.proc is not None
        started = time.monotonic()
        self.proc.send_signal(signum)
        code = self.proc.wait(timeout)
        seconds = time.monotonic() - started
        self._close_notify()
        return code, seconds

    def messages(self) -> list[tuple[str, str, str]]:
        """``(conversation, message key, text)`` of every projected message (read-only)."""
        conn = sqlite3.connect(f"file:{paths_for(self.settings).projections_db}?mode=ro", uri=True)
        try:
            return conn.execute("SELECT conversation, message_key, text FROM messages ORDER BY id").fetchall()
        finally:
            conn.close()

    def event_count(self, type_name: str = "MessageRecorded") -> int:
        """How many events of this type the log holds (read-only)."""
        conn = sqlite3.connect(f"file:{paths_for(self.settings).events_db}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM events WHERE type = ?", (type_name,)).fetchone()[0])
        finally:
            conn.close()

    def cleanup(self) -> None:
        """Kill a process still running and remove a socket a SIGKILL left behind."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(PATIENCE)
        self._close_notify()
        self.socket.unlink(missing_ok=True)
