"""The raw archive: a byte-exact, compressed copy of every watched transcript, kept as it grows.

Only text becomes messages; the archive keeps the rest of a transcript (tool calls and
results, thinking, attachments) in ``<data>/archive/archive.db`` (folder 0700, files
0600), after the tool that wrote it deletes it (Claude Code and Codex remove sessions
after 30 days). ``[archive] <source> = true|false`` in ``tapestry.toml`` says which tailed
sources are kept (:data:`tapestryd.config.ARCHIVE_DEFAULTS`: Claude Code and Codex on).

**The hook for a tailed file source** (the Claude Code tailer uses it; any source that
reads a growing file can): build one :class:`SourceArchive` with :func:`archive_for`
(None when the source is off), then

* call ``archive.capture(path, fh)`` with each file it opens to read, before parsing
  (the archive reads the new complete lines itself, from its own position, on the same
  open file; so it is never behind the event log, and a crash between the two only
  makes the next pass read again);
* add ``archive.behind(scan)`` to the files it reads on a sweep (files the archive has
  not caught up with: turned on late, or a failed write);
* call ``archive.follow(store)`` after appending events (a conversation forgotten for
  an exclusion marker leaves the archive too).

Storage (:mod:`~tapestryd.sources.archive.store`), capture and rotation
(:mod:`~tapestryd.sources.archive.capture`), forget (:mod:`~tapestryd.sources.archive.forget`).
"""

from __future__ import annotations

from typing import BinaryIO, Mapping

import structlog

from tapestryd.config import Settings
from tapestryd.errors import StoreError
from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.sources.archive.capture import Archive
from tapestryd.sources.archive.forget import ArchiveForgotten, follow_forgotten
from tapestryd.sources.archive.store import ArchivedFile, ArchiveStore

__all__ = ["Archive", "ArchiveForgotten", "ArchiveStore", "ArchivedFile", "SourceArchive", "archive_for",
           "follow_forgotten"]

log = structlog.get_logger(__name__)


class SourceArchive:
    """One tailed source's door into the archive (see the package docstring).

    Archive trouble never stops the capture of messages: a failed write or read is logged
    (``archive.capture_failed``) and retried on a later pass, from the bytes still in the source.
    """

    def __init__(self, archive: Archive, source: str) -> None:
        self.archive, self.source = archive, source

    def capture(self, path: str, fh: BinaryIO) -> int:
        """Archive the new complete lines of the open file ``fh`` at ``path``; bytes read (0 on failure)."""
        try:
            return self.archive.capture(self.source, path, fh)
        except (StoreError, OSError) as exc:
            log.warning("archive.capture_failed", path=path, error=str(exc))
            return 0

    def behind(self, scan: Mapping[str, tuple[int, int]]) -> list[str]:
        """Paths of ``scan`` (path → (size, inode)) the archive has not read to their end ([] on failure)."""
        try:
            return self.archive.behind(scan)
        except StoreError as exc:
            log.warning("archive.scan_failed", error=exc.message)
            return []

    def follow(self, store: EventStore) -> ArchiveForgotten:
        """Apply the Forgotten events the archive has not seen (:func:`follow_forgotten`)."""
        try:
            return follow_forgotten(self.archive.store, store)
        except StoreError as exc:
            log.warning("archive.forget_failed", error=exc.message)
            return ArchiveForgotten()

    def close(self) -> None:
        """Close the archive database."""
        self.archive.close()


def archive_for(settings: Settings, source: str) -> SourceArchive | None:
    """The archive hook of tailed source ``source`` (``claude-code``, ``codex`` ...), or None when
    ``[archive] <source>`` is off. Opens nothing until first used."""
    if not settings.archive.keeps(source):
        return None
    return SourceArchive(Archive(paths_for(settings).archive_db), source)
