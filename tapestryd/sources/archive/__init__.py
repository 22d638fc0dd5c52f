"""The raw archive: a byte-exact, compressed copy of every watched transcript, kept as it grows.

Only text becomes messages; the archive keeps the rest of a transcript (tool calls and
results, thinking, attachments) in ``<data>/archive/archive.db`` (folder 0700, files
0600), after the tool that wrote it deletes it (Claude Code and Codex remove sessions
after 30 days). ``[archive] <parser> = true|false`` in ``tapestry.toml`` says which tailed
formats are kept (:data:`tapestryd.config.ARCHIVE_DEFAULTS`: Claude Code and Codex on,
Gemini CLI off).

**The hook for a tailed file source.** The :class:`~tapestryd.sources.tailer.Tailer`
already calls it for every format it tails (Claude Code, Codex, Gemini CLI), naming each
file's parser; another reader of growing files builds one :class:`ArchiveHook` with
:func:`archive_for` (None when every source is off), then

* calls ``hook.capture(path, fh, source)`` with each file it opens to read, before parsing
  (``source`` is the parser name; the archive reads the new bytes itself, from its own
  position, on the same open file, so it is never behind the event log, and a
  crash between the two only makes the next pass read again);
* adds ``hook.behind(scan)`` to the files it reads on a sweep (files the archive has not
  caught up with: turned on late, or a failed write);
* calls ``hook.follow(store)`` after appending events (a conversation forgotten for an
  exclusion marker leaves the archive too).

Storage (:mod:`~tapestryd.sources.archive.store`), capture and rotation
(:mod:`~tapestryd.sources.archive.capture`), forget (:mod:`~tapestryd.sources.archive.forget`).
Capture and forget (and the JSON line rules they share) are imported on first use, so reading
the archive (``status``, ``archive list``) does not import them.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any, Iterable, Mapping

from tapestryd.config import Settings
from tapestryd.errors import StoreError
from tapestryd.lazylog import get_logger
from tapestryd.paths import paths_for
from tapestryd.sources.archive.store import ArchivedFile, ArchiveStore

if TYPE_CHECKING:
    from tapestryd.events.store import EventStore
    from tapestryd.sources.archive.capture import Archive
    from tapestryd.sources.archive.forget import ArchiveForgotten, follow_forgotten, preview_forgotten

__all__ = ["Archive", "ArchiveHook", "ArchiveForgotten", "ArchiveStore", "ArchivedFile", "archive_for",
           "follow_forgotten", "preview_forgotten"]

log = get_logger(__name__)


def __getattr__(name: str) -> Any:
    """``Archive`` (capture), ``ArchiveForgotten``, ``follow_forgotten`` and ``preview_forgotten`` (forget),
    each imported on first use."""
    if name == "Archive":
        from tapestryd.sources.archive.capture import Archive

        return Archive
    if name in ("ArchiveForgotten", "follow_forgotten", "preview_forgotten"):
        from tapestryd.sources.archive import forget

        return getattr(forget, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ArchiveHook:
    """A tailer's door into the archive: which sources it keeps, and the calls of the package docstring.

    Archive trouble never stops the capture of messages: a failed write or read is logged
    (``archive.capture_failed``) and retried on a later pass, from the bytes still in the source.
    """

    def __init__(self, archive: Archive, sources: Iterable[str]) -> None:
        self.archive, self.sources = archive, frozenset(sources)

    def capture(self, path: str, fh: IO[bytes], source: str) -> int:
        """Archive the new bytes of the open file ``fh`` at ``path`` when ``source`` (its parser) is kept;
        bytes read (0 when not kept, or on failure)."""
        try:
            if source not in self.sources:
                self.archive.skip(source, path)
                return 0
            return self.archive.capture(source, path, fh)
        except (StoreError, OSError) as exc:
            log.warning("archive.capture_failed", path=path, error=str(exc))
            return 0

    def behind(self, scan: Mapping[str, tuple[int, int]]) -> list[str]:
        """Paths of ``scan`` (path → (size, inode)) a kept source has not archived to their end ([] on failure)."""
        try:
            return self.archive.behind(scan, self.sources)
        except StoreError as exc:
            log.warning("archive.scan_failed", error=exc.message)
            return []

    def follow(self, store: EventStore) -> ArchiveForgotten:
        """Apply the Forgotten events the archive has not seen (:func:`follow_forgotten`)."""
        from tapestryd.sources.archive.forget import ArchiveForgotten, follow_forgotten

        try:
            return follow_forgotten(self.archive.store, store)
        except StoreError as exc:
            log.warning("archive.forget_failed", error=exc.message)
            return ArchiveForgotten()

    def close(self) -> None:
        """Close the archive database."""
        self.archive.close()


def archive_for(settings: Settings) -> ArchiveHook | None:
    """The archive hook of the home (keeping ``[archive]``'s sources), or None when every source is off.
    Opens nothing until first used."""
    from tapestryd.sources.archive.capture import Archive

    if not settings.archive.sources:
        return None
    return ArchiveHook(Archive(paths_for(settings).archive_db), settings.archive.sources)
