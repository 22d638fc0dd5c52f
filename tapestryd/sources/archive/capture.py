"""Capturing a watched file's new bytes into the archive, as the tailer reads it.

:meth:`Archive.capture` is handed the file a tailer has just opened. It compares the file
with the newest archived version of its path:

* same file (its first and last read bytes are still where they were, whatever its inode:
  a rewrite by rename that kept the content continues the version) → the bytes from the
  archived position up to the last newline are added;
* shorter than what was read, or those bytes differ (truncated, or replaced by another
  file) → the old version is kept as it is (``replaced``) and a new version starts at
  byte 0;
* a tombstone (its conversation was forgotten) → nothing is read.

A path seen for the first time whose file is one archived under another path that no longer
exists (same inode, same first and last read bytes: Codex moving a rollout to
``archived_sessions/``) takes that file's versions over instead of starting a second copy.

A file whose source is not kept gets an ``off`` row (:meth:`Archive.skip`), so sweeps stop
handing it over; when its source is turned on, its first capture starts a version.

Everything up to the end of the file is taken, a last line without its newline included
(an unfinished last line of a transcript its tool deleted would otherwise be lost; the rest of
the line is appended when it comes), except: a version's first step waits for its first
complete line (an unfinished first record names no format yet), and while forget's line
rules are in force (:class:`~tapestryd.sources.archive.lines.LineRules`, applied to new bytes
too) only complete lines are taken, so each can be judged whole. A new line a rule covers that is a
part of a message written over several lines (:mod:`~tapestryd.sources.archive.parts`) takes the
message's lines already archived under the path with it, and its later lines are not taken
either (the archive keeps the message's key). Each step of up to
:data:`STEP` bytes is one transaction.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Collection, IO, Mapping

from tapestryd.events.types import format_utc
from tapestryd.lazylog import get_logger
from tapestryd.sources.archive.lines import LineRules
from tapestryd.sources.archive.rewrite import rewrite_without
from tapestryd.sources.archive.store import SAMPLE, ArchivedFile, ArchiveStore

__all__ = ["STEP", "Archive"]

log = get_logger(__name__)

STEP = 4 << 20  # source bytes read (and committed) at most per step


def _now() -> str:
    return format_utc(datetime.now(timezone.utc))


def _complete(fd: int, start: int, limit: int) -> bytes:
    """Bytes from ``start`` up to the last newline within about ``limit`` bytes (more for a longer line)."""
    data = os.pread(fd, limit, start)
    cut = data.rfind(b"\n")
    while cut < 0:
        more = os.pread(fd, limit, start + len(data))
        if not more:
            return b""
        searched = len(data)
        data += more
        cut = data.find(b"\n", searched)
    return data[:cut + 1]


class Archive:
    """The raw archive of one home, opened on first use (see the package docstring).

    ``path`` is the archive database (``Paths.archive_db``). Used by one thread at a time
    (the daemon's writer). :meth:`close` may be called more than once; a later call opens
    the database again.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store: ArchiveStore | None = None

    @property
    def store(self) -> ArchiveStore:
        """The open archive database (created, private, when missing)."""
        if self._store is None:
            self._store = ArchiveStore(self.path)
        return self._store

    def close(self) -> None:
        """Close the database (it opens again when used)."""
        if self._store is not None:
            self._store.close()
            self._store = None

    def behind(self, scan: Mapping[str, tuple[int, int]], sources: Collection[str]) -> list[str]:
        """Paths of ``scan`` (path → (size, inode)) that may hold bytes of a kept source not read yet.

        A path never seen is included (its source is told when it is opened); a path seen with
        a source not in ``sources``, or forgotten, is not.
        """
        known = self.store.current()
        return sorted(path for path, (size, inode) in scan.items()
                      if (file := known.get(path)) is None
                      or (file.state != "forgotten" and file.source in sources
                          and (file.state == "off" or file.consumed != size or file.inode != inode)))

    def skip(self, source: str, path: str) -> None:
        """Note that ``path`` belongs to ``source``, which is not kept (once; nothing is read)."""
        if self.store.latest(path) is None:
            self.store.start_version(path, source, 0, _now(), state="off")

    def capture(self, source: str, path: str, fh: IO[bytes]) -> int:
        """Archive what the open file ``fh`` (at ``path``, of tailed source ``source``) gained; bytes read.

        Raises StoreError when the archive cannot be written (nothing of the failed step is
        kept; the source still holds the bytes) and OSError when ``fh`` cannot be read.
        """
        fd = fh.fileno()
        file = self.store.latest(path)
        if file is not None and file.state == "forgotten":
            return 0
        info = os.fstat(fd)
        if file is None:
            file = self._moved_here(path, fd, info.st_ino, info.st_size)
        if file is not None and file.state == "off":
            self.store.drop(file)
            file = None
        if file is not None and not _continues(file, fd, info.st_size):
            log.info("archive.replaced", path=path, version=file.version, read=file.consumed, size=info.st_size)
            file = None
        rules = LineRules.of(self.store.rules())
        forgotten = self.store.forgotten_messages(source) if rules else frozenset()
        start = file.consumed if file is not None else 0
        while data := _next(fd, file, rules):
            if file is None:
                file = self.store.start_version(path, source, info.st_ino, _now())
            kept, reached = rules.screen(data, source, forgotten)
            if reached:
                file = self._forget_messages(file, reached)
                forgotten |= reached
            end = file.consumed + len(data)
            head = file.head if len(file.head) == SAMPLE else os.pread(fd, min(SAMPLE, end), 0)
            file = self.store.append(file, kept, consumed=end, inode=info.st_ino, head=head,
                                     tail=os.pread(fd, min(SAMPLE, end), end - min(SAMPLE, end)),
                                     edited=len(kept) != len(data), now=_now())
        return file.consumed - start if file is not None else 0

    def _forget_messages(self, file: ArchivedFile, keys: set[str]) -> ArchivedFile:
        """Remove the lines of the messages ``keys`` (of ``file``'s source: new bytes of ``file`` a rule covers a
        line of) already archived in any version of ``file``'s path, then record the keys; ``file`` as it is now.

        In this order, so that a crash in between meets the keys again as new on the next pass.
        """
        for version in self.store.versions(file.path):
            if version.state in ("current", "replaced"):
                rewrite_without(self.store, version, LineRules(), keys)
        self.store.forget_messages(file.source, keys)
        found = self.store.get(file.id)
        assert found is not None
        return found

    def _moved_here(self, path: str, fd: int, inode: int, size: int) -> ArchivedFile | None:
        """The current version of a file moved to ``path`` from a path that is gone, now under ``path``; else None."""
        for file in self.store.at_inode(inode):
            if not os.path.exists(file.path) and _continues(file, fd, size):
                log.info("archive.moved", path=path, moved_from=file.path, version=file.version)
                self.store.move(file.path, path)
                return self.store.latest(path)
        return None


def _next(fd: int, file: ArchivedFile | None, rules: LineRules) -> bytes:
    """The bytes of the next step (see the module docstring for when only complete lines are taken)."""
    if file is None:
        return _complete(fd, 0, STEP)
    if rules:
        return _complete(fd, file.consumed, STEP)
    return os.pread(fd, STEP, file.consumed)


def _continues(file: ArchivedFile, fd: int, size: int) -> bool:
    """Whether the open file still starts with the bytes read before (its head and its last read bytes)."""
    if size < file.consumed:
        return False
    if file.consumed == 0:
        return True
    return (os.pread(fd, len(file.head), 0) == file.head
            and os.pread(fd, len(file.tail), file.consumed - len(file.tail)) == file.tail)
