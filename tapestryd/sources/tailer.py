"""The tailer: new complete lines of session files (Claude Code, Codex, Gemini CLI) become events, exactly once.

For every session file the log keeps a :class:`~tapestryd.events.store.SourceOffset`:
the byte offset just past the last complete line read, and the file's inode and size at
that read. :meth:`Tailer.tail` resumes at that offset, reads up to the last newline (a
half-written line waits for the rest), parses the lines with the parser the file's content
calls for (:mod:`tapestryd.sources.tailformats`) and appends the events **together with the
new offset in one transaction**, so a crash can neither lose nor repeat a line. A file
with a new inode, or shorter than the offset, was replaced or truncated: it is read again
from the start and the stable event ids absorb what was already stored.

:func:`scan_sessions` lists the ``*.jsonl`` files under the watched roots with their size
and inode; :meth:`Tailer.changed` compares such a scan with the stored offsets (the
periodic sweep, and the catch-up at start).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, IO, Iterable, Mapping

import structlog

from tapestryd.events.store import EventStore, SourceOffset
from tapestryd.events.types import NewEvent
from tapestryd.sources.parsers.base import Problem, Skip
from tapestryd.sources.parsers.lines import block_lines, last_line_end
from tapestryd.sources.screen import Screen
from tapestryd.sources.tailformats import TailFormats

if TYPE_CHECKING:
    from tapestryd.sources.archive import ArchiveHook

__all__ = ["CHUNK", "SESSION_SUFFIX", "TailReport", "Tailer", "read_complete_lines", "scan_sessions"]

log = structlog.get_logger(__name__)

SESSION_SUFFIX = ".jsonl"
CHUNK = 4 << 20  # bytes read (and appended in one transaction) at most per step

Line = tuple[int, bytes]


@dataclass
class TailReport:
    """What one pass over one file did.

    ``lines`` complete lines read, ``new``/``known`` events stored now / already in the
    log, ``skipped`` counts by reason, ``problems`` lines that could not be read (with
    their location), ``restarted`` whether the file was read again from byte 0.
    """

    path: str
    lines: int = 0
    new: int = 0
    known: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    restarted: bool = False
    offset: int = 0


def read_complete_lines(fh: IO[bytes], start: int, limit: int = CHUNK) -> tuple[list[Line], int]:
    """Complete lines from byte ``start``: ``([(offset, line with its newline), ...], end)``.

    Reads about ``limit`` bytes (more when one line is longer); ``end`` is the offset
    just past the last line end read (``\n``, ``\r\n`` or a lone ``\r``), ``start`` when no
    complete line is there yet. Blank lines are passed over.
    """
    fh.seek(start)
    data = bytearray(fh.read(limit))
    cut = last_line_end(data)
    while cut < 0:
        more = fh.read(limit)
        if not more:
            return [], start
        searched = len(data)
        data.extend(more)
        cut = last_line_end(data, searched)
    return list(block_lines(bytes(data[:cut + 1]), start)), start + cut + 1


def scan_sessions(roots: Iterable[Path]) -> dict[str, tuple[int, int]]:
    """Every ``*.jsonl`` file under ``roots`` (recursively, symlinks not followed): path → (size, inode)."""
    found: dict[str, tuple[int, int]] = {}
    for root in roots:
        _scan(os.path.abspath(root), found)
    return found


def _scan(folder: str, found: dict[str, tuple[int, int]]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                _scan(entry.path, found)
            elif entry.name.endswith(SESSION_SUFFIX) and entry.is_file(follow_symlinks=False):
                info = entry.stat(follow_symlinks=False)
                found[entry.path] = (info.st_size, info.st_ino)
        except OSError:
            continue


@dataclass
class _Batch:
    """Events and offsets of one or more files, appended together in one transaction.

    ``spans`` remembers which slice of ``events`` each report contributed, so the new and
    known counts of the append go back to the right file.
    """

    events: list[NewEvent] = field(default_factory=list)
    offsets: list[SourceOffset] = field(default_factory=list)
    spans: list[tuple[TailReport, int, int]] = field(default_factory=list)
    size: int = 0

    def add(self, report: TailReport, events: list[NewEvent], offset: SourceOffset, size: int) -> None:
        self.spans.append((report, len(self.events), len(self.events) + len(events)))
        self.events.extend(events)
        self.offsets.append(offset)
        self.size += size


def _line_ends_at(fh: IO[bytes], offset: int) -> bool:
    """Whether the byte before ``offset`` ends a line, ``\n`` or ``\r`` (always true at offset 0)."""
    if offset == 0:
        return True
    return os.pread(fh.fileno(), 1, offset - 1) in (b"\n", b"\r")


class Tailer:
    """Reads session files from their stored offsets into the event log.

    ``agent`` labels the events of Claude Code sessions (``claude-code`` by default
    configuration), ``agents`` those of the other parsers (parser name → label); ``screen``
    applies the privacy settings (:mod:`tapestryd.sources.screen`). Events of several
    files share a transaction of up to ``batch_events`` events or ``chunk`` bytes (the
    catch-up over thousands of files then costs a few commits, not one per file), each
    file's offset always in the transaction of its events. ``archive`` (the raw archive's
    hook) captures each file's new bytes as it is opened, before its lines are parsed, when
    the archive keeps the file's format (:mod:`tapestryd.sources.archive`). Only the daemon's
    writer thread calls it. Raises StoreError when the log cannot be written (the offsets then
    stay where they were, so the bytes are read again later).
    """

    def __init__(self, store: EventStore, *, agent: str, chunk: int = CHUNK, batch_events: int = 2000,
                 screen: Screen | None = None, archive: ArchiveHook | None = None,
                 agents: Mapping[str, str] | None = None) -> None:
        self.store = store
        self.agent = agent
        self.chunk = chunk
        self.batch_events = batch_events
        self.screen = screen
        self.archive = archive
        self.formats = TailFormats({**(agents or {}), "claude-code": agent})
        self.parser = self.formats.claude  # the Claude Code parser (a test seam)

    def changed(self, scan: Mapping[str, tuple[int, int]]) -> list[str]:
        """Paths of ``scan`` whose size or inode differ from what the log last saw, or that the archive is behind on."""
        stored = self.store.offsets()
        changed = {path for path, (size, inode) in scan.items()
                   if (off := stored.get(path)) is None or off.size != size or off.inode != inode}
        return sorted(changed | set(self.archive.behind(scan) if self.archive is not None else ()))

    def tail(self, path: str, *, should_stop: Callable[[], bool] = lambda: False) -> TailReport:
        """Read what ``path`` gained since its stored offset and append it (see the module docstring)."""
        return self.tail_many([path], should_stop=should_stop)[0]

    def tail_many(self, paths: Iterable[str], *,
                  should_stop: Callable[[], bool] = lambda: False) -> list[TailReport]:
        """:meth:`tail` each path, batching their appends; one report per path read."""
        batch, reports = _Batch(), []
        for path in paths:
            if should_stop():
                break
            reports.append(self._read_file(path, batch, should_stop))
        self._flush(batch)
        if self.archive is not None:
            self.archive.follow(self.store)
        for report in reports:
            if report.lines or report.problems:
                log.info("source.tailed", path=report.path, lines=report.lines, new=report.new, known=report.known,
                         problems=len(report.problems), restarted=report.restarted)
        return reports

    def _read_file(self, path: str, batch: _Batch, should_stop: Callable[[], bool]) -> TailReport:
        report = TailReport(path)
        try:
            with open(path, "rb") as fh:
                info = os.fstat(fh.fileno())
                if self.archive is not None:
                    self.archive.capture(path, fh, self.formats.parser_of(fh, path))
                report.offset = self._start(path, fh, info, report)
                while not should_stop() and self._step(fh, info, report, batch):
                    if len(batch.events) >= self.batch_events or batch.size >= self.chunk:
                        self._flush(batch)
        except FileNotFoundError:
            pass
        except (OSError, ValueError, ArithmeticError, LookupError, TypeError) as exc:
            # A defect met on one file's bytes: report it and go on with the other files (their
            # capture must not stop); this file's offset stays put, so it is read again next pass.
            log.exception("source.tail_failed", path=path, offset=report.offset)
            report.problems.append(f"{path}:byte {report.offset}: could not be read ({type(exc).__name__}: {exc}); "
                                   "it is retried on the next pass")
        return report

    def _start(self, path: str, fh: IO[bytes], info: os.stat_result, report: TailReport) -> int:
        """Where to read from: the stored offset, or 0 when the file is not the one read before.

        Not the same file: another inode, fewer bytes than were read, or (truncated, then
        written past the old offset) no newline just before the offset, where the last
        complete line read always ended.
        """
        stored = self.store.offset(path)
        if stored is None:
            return 0
        if stored.inode != info.st_ino or info.st_size < stored.offset or not _line_ends_at(fh, stored.offset):
            report.restarted = stored.offset > 0
            return 0
        return stored.offset

    def _step(self, fh: IO[bytes], info: os.stat_result, report: TailReport, batch: _Batch) -> bool:
        """Read and parse one chunk into ``batch``; False when nothing more is complete."""
        lines, end = read_complete_lines(fh, report.offset, self.chunk)
        size = max(os.fstat(fh.fileno()).st_size, end)
        offset = SourceOffset(report.path, end, info.st_ino, size)
        if not lines:
            if self.store.offset(report.path) != offset:
                batch.add(report, [], offset, 0)
            return False
        events = self._parse(fh, info, lines, report)
        if self.screen is not None:
            screened = self.screen.screen(events)
            report.skipped.update(screened.skipped)
            events = screened.events
        batch.add(report, events, offset, end - report.offset)
        report.lines += len(lines)
        report.offset = end
        return True

    def _flush(self, batch: _Batch) -> None:
        """Append the batch in one transaction and hand each report its new/known counts."""
        if not batch.offsets:
            return
        result = self.store.append(batch.events, batch.offsets)
        for report, first, stop in batch.spans:
            seqs = result.seqs[first:stop]
            report.new += sum(1 for s in seqs if s is not None)
            report.known += sum(1 for s in seqs if s is None)
        batch.events, batch.offsets, batch.spans, batch.size = [], [], [], 0

    def _parse(self, fh: IO[bytes], info: os.stat_result, lines: list[Line], report: TailReport) -> list[NewEvent]:
        events: list[NewEvent] = []
        for item in self.formats.items(fh, report.path, info.st_ino, report.offset, lines):
            if isinstance(item, NewEvent):
                events.append(item)
            elif isinstance(item, Skip):
                report.skipped[item.reason] += 1
            elif isinstance(item, Problem):
                report.problems.append(str(item))
        return events
