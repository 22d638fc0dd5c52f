"""Storage health: when the data folder is full or read-only, stop feeding the log, then resume.

A failed append (:class:`~tapestryd.errors.StoreError`: disk full, read-only file or
folder, I/O error) rolls back as a whole and leaves the source offsets where they were,
so nothing is lost or skipped. :class:`StorageGuard` is tripped by the feeds on such a
failure: the tailer and the inbox stop submitting work (no error storm), ``status``
shows ``{"ok": false, "reason": ..., "since": ...}``, and :meth:`StorageGuard.probe`
(a scheduled job every :data:`PROBE_INTERVAL` seconds) writes and removes a
:data:`PROBE_BYTES` file in the data folder; once that works the guard clears and the
feeds catch up from the stored offsets.
"""

from __future__ import annotations

import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import structlog

__all__ = ["PROBE_BYTES", "PROBE_INTERVAL", "StorageGuard"]

log = structlog.get_logger(__name__)

PROBE_INTERVAL = 10.0  # seconds between write probes while tripped
PROBE_BYTES = 256 * 1024  # headroom a probe must be able to write


class StorageGuard:
    """Whether the data folder takes writes (thread-safe; see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason = ""
        self._since = ""
        self._trips = 0

    @property
    def tripped(self) -> bool:
        """Whether feeding the log is suspended."""
        with self._lock:
            return bool(self._reason)

    def trip(self, where: str, message: str) -> None:
        """Suspend feeding after a failed write at ``where`` (``tail``, ``inbox``) saying ``message``."""
        with self._lock:
            first = not self._reason
            self._reason = f"{where}: {message}"
            self._since = self._since or datetime.now(timezone.utc).isoformat(timespec="seconds")
            self._trips += 1
        if first:
            log.error("storage.suspended", where=where, reason=message)

    def probe(self, data_dir: Path) -> bool:
        """Try a write in ``data_dir``; clear the guard and return True when it works (or was never tripped)."""
        if not self.tripped:
            return True
        target = data_dir / ".tapestry-write-probe"
        try:
            with open(target, "wb") as fh:
                fh.write(b"\0" * PROBE_BYTES)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            log.debug("storage.probe_failed", error=exc.strerror or str(exc))
            return False
        finally:
            target.unlink(missing_ok=True)
        with self._lock:
            reason, self._reason, self._since = self._reason, "", ""
        log.info("storage.resumed", after=reason)
        return True

    def describe(self) -> dict[str, Any]:
        """JSON-ready state for ``status``: ok, reason, since (ISO UTC), trips so far."""
        with self._lock:
            return {"ok": not self._reason, "reason": self._reason, "since": self._since, "trips": self._trips}
