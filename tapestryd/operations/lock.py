"""The single-writer lock: an advisory ``flock`` on ``<data>/tapestryd.lock`` holding the pid.

Only one process writes the databases at a time: the daemon while it runs, or the CLI
itself when no daemon runs. The lock is released by the kernel when its holder dies, so a
SIGKILLed daemon never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tapestryd.errors import StoreError, StoreLockedError

__all__ = ["WriterLock", "lock_holder"]


class WriterLock:
    """Holds the writer lock of one data dir until :meth:`release` (or process exit).

    ``role`` (``daemon`` or ``cli``) is written beside the pid so a refusal can say who
    holds it. Raises StoreLockedError naming the holder's pid when the lock is taken, and
    StoreError when the lock file cannot be created (a read-only or foreign data dir).
    """

    def __init__(self, path: Path, role: str) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:  # a read-only or foreign data dir: say so, never a traceback
            raise StoreError(f"{path}: cannot open the writer lock: {exc.strerror} "
                             "(the data dir must be writable by this user)") from exc
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self.fd)
            pid, who = lock_holder(path)
            raise StoreLockedError(f"{path.parent} is in use by {who or 'another process'} (pid {pid})", pid) from exc
        os.ftruncate(self.fd, 0)
        os.write(self.fd, f"{os.getpid()} {role}\n".encode())

    def release(self) -> None:
        """Release the lock (idempotent)."""
        if self.fd >= 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_holder(path: Path) -> tuple[int | None, str]:
    """The pid and role written in the lock file (``(None, "")`` when unreadable)."""
    try:
        pid, _, role = path.read_text().strip().partition(" ")
        return int(pid), role
    except (OSError, ValueError):
        return None, ""
