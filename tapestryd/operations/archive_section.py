"""The ``archive`` section of ``status``, and the raw archive opened read-only: apart from the archive
operations so that ``status`` imports neither them nor their request and result types."""

from __future__ import annotations

import os
from typing import Any

from tapestryd.config import Settings
from tapestryd.errors import StoreError
from tapestryd.paths import Paths
from tapestryd.sources.archive import ArchiveStore

__all__ = ["archive_status", "open_archive"]


def open_archive(paths: Paths) -> ArchiveStore | None:
    """The archive read-only, or None when there is none yet (no file, or not set up yet)."""
    if not paths.archive_db.exists():
        return None
    store = ArchiveStore(paths.archive_db, readonly=True)
    if store.ready():
        return store
    store.close()
    return None


def archive_status(settings: Settings, paths: Paths) -> dict[str, Any]:
    """Sources kept, files and versions, original and stored bytes, bytes on disk, last capture.

    An archive that cannot be read gives ``{"error": ...}`` (the rest of ``status`` still answers).
    """
    try:
        return _status(settings, paths)
    except StoreError as exc:
        return {"error": exc.message}


def _status(settings: Settings, paths: Paths) -> dict[str, Any]:
    head: dict[str, Any] = {"sources": list(settings.archive.sources), "path": str(paths.archive_db)}
    store = open_archive(paths)
    if store is None:
        return {**head, "files": 0, "versions": 0, "original_bytes": 0, "stored_bytes": 0, "disk_bytes": 0,
                "last_capture": ""}
    with store:
        totals = store.totals()
    disk = sum(os.path.getsize(f"{paths.archive_db}{suffix}") for suffix in ("", "-wal")
               if os.path.exists(f"{paths.archive_db}{suffix}"))
    return {**head, **totals, "disk_bytes": disk}
