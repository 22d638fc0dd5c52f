"""systemd's notify protocol (``Type=notify``) with the standard library only.

A datagram such as ``READY=1`` or ``WATCHDOG=1`` is sent to the Unix socket named by
``$NOTIFY_SOCKET`` (a leading ``@`` means the abstract namespace), as sd_notify(3)
describes. Without ``$NOTIFY_SOCKET`` (no systemd, or launchd) every call does nothing.
``$WATCHDOG_USEC`` gives the watchdog period; pings go at half of it, and only when it is set.
Datagrams are sent without blocking: a listener that stopped reading (a full queue) costs a
dropped message and a warning, never a daemon stuck in ``sendto`` that no longer sees SIGTERM.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Mapping

import structlog

__all__ = ["Notifier"]

log = structlog.get_logger(__name__)


class Notifier:
    """Sends sd_notify messages to systemd when it asked for them (else a no-op)."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        raw = env.get("NOTIFY_SOCKET", "")
        self.address = "\0" + raw[1:] if raw.startswith("@") else raw
        usec = env.get("WATCHDOG_USEC", "")
        watchdog_pid = env.get("WATCHDOG_PID", "")
        mine = not watchdog_pid or watchdog_pid == str(os.getpid())
        self.watchdog_interval = int(usec) / 2_000_000 if usec.isdigit() and int(usec) > 0 and mine else None

    @property
    def enabled(self) -> bool:
        """Whether systemd listens for notifications."""
        return bool(self.address)

    def send(self, *fields: str) -> bool:
        """Send ``fields`` (``"READY=1"``, ``"STATUS=..."``) as one datagram; False when not sent.

        Never blocks: when the listener's queue is full the datagram is dropped (False).
        """
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.setblocking(False)
                sock.sendto("\n".join(fields).encode(), self.address)
            return True
        except OSError as exc:
            log.warning("notify.send_failed", fields=fields, error=str(exc))
            return False

    def ready(self, status: str = "") -> bool:
        """Tell systemd start-up finished."""
        return self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def stopping(self) -> bool:
        """Tell systemd we are shutting down."""
        return self.send("STOPPING=1")

    def reloading(self) -> bool:
        """Tell systemd a reload began (``READY=1`` follows when it is done)."""
        return self.send("RELOADING=1", f"MONOTONIC_USEC={time.monotonic_ns() // 1000}")

    def ping(self) -> bool:
        """Keep systemd's watchdog from restarting us; a no-op (False) unless ``$WATCHDOG_USEC`` asked."""
        if self.watchdog_interval is None:
            return False
        return self.send("WATCHDOG=1")
