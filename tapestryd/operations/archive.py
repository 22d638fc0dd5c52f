"""The raw archive from the outside: ``archive list``, ``archive extract``, its status, and forget.

:func:`list_archive` is the local operation ``archive_list`` of the table (run in the caller's
process, reading ``archive.db`` read-only, beside a running daemon too as WAL allows);
:func:`extract_offline` streams a version's bytes to ``tapestryctl archive extract`` (bytes,
not JSON, so no operation). :func:`archive_status` is the ``archive`` section of ``status``
(:mod:`~tapestryd.operations.archive_section`, which ``status`` imports alone);
:func:`forget_in_archive` is what the ``forget`` operation runs after appending its Forgotten
event (:mod:`tapestryd.sources.archive.forget`), :func:`preview_in_archive` its dry run, and
:func:`archive_check` the ``archive`` check of ``verify``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

from tapestryd.config import Settings
from tapestryd.errors import TapestryError
from tapestryd.events.store import EventStore
from tapestryd.events.types import Forgotten
from tapestryd.operations.archive_section import archive_status, open_archive
from tapestryd.operations.base import LocalDeps
from tapestryd.operations.requests import ArchiveListRequest
from tapestryd.operations.results import ArchiveListResult
from tapestryd.paths import Paths, paths_for
from tapestryd.sources.archive import ArchivedFile, ArchiveStore

__all__ = ["archive_check", "archive_status", "extract_offline", "forget_in_archive", "list_archive",
           "preview_in_archive"]

_HELD = ("current", "replaced")  # states of versions that hold bytes


def list_archive(request: ArchiveListRequest, deps: LocalDeps) -> ArchiveListResult:
    """Every archived file version (tombstones and files of sources that are off left out), by path and version."""
    store = open_archive(paths_for(deps.settings))
    if store is None:
        return ArchiveListResult()
    with store:
        return ArchiveListResult.from_json([f.to_dict() for f in store.listing()])

def extract_offline(settings: Settings, ref: str, *,
                    version: int | None = None) -> tuple[ArchivedFile, Iterator[bytes]]:
    """The archived version ``ref`` names and its bytes, block by block.

    ``ref`` is a version id (from ``archive list``), a file path, or the unique end of one
    (a session file's name); a path gives its newest version, or ``version``. Raises
    TapestryError naming ``ref`` when nothing (or more than one file) matches.
    """
    store = open_archive(paths_for(settings))
    if store is None:
        raise TapestryError(f"no archive yet at {paths_for(settings).archive_db} (see `[archive]` in tapestry.toml)")
    try:
        file = _find(store, ref.strip(), version)
    except BaseException:
        store.close()
        raise
    return file, _blocks(store, file)


def _blocks(store: ArchiveStore, file: ArchivedFile) -> Iterator[bytes]:
    with store:
        yield from store.read(file.id)


def _find(store: ArchiveStore, ref: str, version: int | None) -> ArchivedFile:
    if ref.isdigit() and version is None and (found := store.get(int(ref))) and found.state in _HELD:
        return found
    paths = sorted({f.path for f in store.listing()})
    exact = os.path.abspath(os.path.expanduser(ref))
    matches = [exact] if exact in paths else [p for p in paths if p.endswith(os.sep + ref) or
                                               Path(p).name.startswith(ref)]
    if len(matches) != 1:
        several = f"; it matches {len(matches)} files: " + ", ".join(matches[:3]) if matches else ""
        raise TapestryError(f"no single archived file matches {ref!r}{several} (see `tapestryctl archive list`)")
    versions = [f for f in store.versions(matches[0]) if f.state in _HELD]
    chosen = versions[-1] if version is None else next((f for f in versions if f.version == version), None)
    if chosen is None:
        raise TapestryError(f"{matches[0]} has no archived version {version} (it has "
                            f"{', '.join(str(f.version) for f in versions)})")
    return chosen


def archive_check(paths: Paths) -> dict[str, Any]:
    """The ``archive`` check of ``verify``: every archived version decompresses whole to its recorded size.

    Shape of the other verify checks: ``{"name", "ok", "detail", "problems"}``.
    """
    store = open_archive(paths)
    if store is None:
        return {"name": "archive", "ok": True, "detail": "no raw archive", "problems": []}
    with store:
        problems, totals = store.problems(), store.totals()
    detail = f"{totals['versions']} file versions, {totals['original_bytes']} bytes, each block read back"
    return {"name": "archive", "ok": not problems, "detail": detail, "problems": problems[:20]}


def preview_in_archive(paths: Paths, store: EventStore, rule: Forgotten) -> dict[str, int]:
    """What ``rule`` would remove from the archive (``forget --dry-run``); nothing when there is no archive."""
    from tapestryd.sources.archive.forget import preview_forgotten

    archive = open_archive(paths)
    if archive is None:
        return {}
    with archive:
        return preview_forgotten(archive, store, rule).to_dict()


def forget_in_archive(paths: Paths, store: EventStore) -> dict[str, int]:
    """Apply the log's new Forgotten events to the archive (nothing when there is no archive); counts."""
    from tapestryd.sources.archive.forget import follow_forgotten

    if not paths.archive_db.exists():
        return {}
    with ArchiveStore(paths.archive_db) as archive:
        return follow_forgotten(archive, store).to_dict()
