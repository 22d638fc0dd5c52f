"""What the running daemon knows about itself, for ``status``: a thread-safe record.

Components report into one :class:`DaemonState` (tail passes, inbox outcomes, job runs,
errors); :meth:`DaemonState.snapshot` copies it into JSON-ready values under a lock.
Times are ISO 8601 UTC; durations are seconds.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from datetime import datetime, timezone
from typing import Any

from tapestryd.daemon.storage import StorageGuard

__all__ = ["DaemonState"]

MAX_ERRORS = 20


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class DaemonState:
    """Counters and last events of one daemon run (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.pid = os.getpid()
        self.started_at = _now()
        self._started = time.monotonic()
        self.paused = False
        self.files = 0
        self.last_sweep = ""
        self.tail: dict[str, Any] = {"passes": 0, "lines": 0, "new": 0, "known": 0, "problems": 0, "restarts": 0,
                                     "last_at": ""}
        self.inbox: dict[str, Any] = {"imported": 0, "failed": 0, "last": None}
        self.jobs: dict[str, dict[str, Any]] = {}
        self.errors: deque[dict[str, str]] = deque(maxlen=MAX_ERRORS)
        self.storage = StorageGuard()

    def uptime(self) -> float:
        """Seconds since start."""
        return round(time.monotonic() - self._started, 1)

    def record_error(self, source: str, message: str) -> None:
        """Keep an error (the last MAX_ERRORS are shown)."""
        with self._lock:
            self.errors.append({"at": _now(), "source": source, "message": message})

    def record_sweep(self, files: int) -> None:
        """A sweep saw ``files`` session files."""
        with self._lock:
            self.files, self.last_sweep = files, _now()

    def record_files(self, files: int) -> None:
        """``files`` session files are known now (a new one appeared between sweeps)."""
        with self._lock:
            self.files = files

    def record_tail(self, *, lines: int, new: int, known: int, problems: int, restarted: bool) -> None:
        """One tail pass over one file."""
        with self._lock:
            t = self.tail
            t["passes"] += 1
            t["lines"] += lines
            t["new"] += new
            t["known"] += known
            t["problems"] += problems
            t["restarts"] += int(restarted)
            if lines:
                t["last_at"] = _now()

    def record_import(self, outcome: dict[str, Any]) -> None:
        """An inbox file was imported (``ok``) or filed as failed."""
        with self._lock:
            self.inbox["imported" if outcome.get("ok") else "failed"] += 1
            self.inbox["last"] = {**outcome, "at": _now()}

    def record_job(self, name: str, summary: Any) -> None:
        """A scheduled job ran; ``summary`` is JSON-ready."""
        with self._lock:
            self.jobs[name] = {"at": _now(), "result": summary}

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready copy of everything above."""
        with self._lock:
            return {
                "pid": self.pid, "started_at": self.started_at, "uptime_s": self.uptime(), "paused": self.paused,
                "files": self.files, "last_sweep": self.last_sweep, "tail": dict(self.tail),
                "inbox": {**self.inbox}, "jobs": {k: dict(v) for k, v in self.jobs.items()},
                "errors": list(self.errors), "storage": self.storage.describe(),
            }
