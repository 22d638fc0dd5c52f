"""The ingest pipeline: files, folders (recursive) and ZIPs in; events appended; a receipt out.

For each file (or ZIP member) the pipeline hashes the bytes (sha256), detects the format
from the content (or uses ``--parser``), streams the parser's items, and appends events
in batches of about :data:`BATCH` per transaction, shared by the files of one ingest
(:mod:`tapestryd.sources.appender`), after the privacy screen
(:mod:`tapestryd.sources.screen`). Around the messages it records an
``ImportReceived`` and an ``ImportFinished`` (the receipt) whose event ids derive from the
file's sha256 and how it is read, so importing an identical file again adds no event at all:
such a file, once its receipt is in the log (same importer version, parser, agent label and
privacy settings), is answered from that receipt without being parsed
(:meth:`FileReceipt.from_finished`).

Counting, per file: a message is *new* when any of its events (streamed parts) was new,
else *known*; a conversation is *new* when every message of it was new, *updated* when
some were, *known* when none were. ``skipped`` counts Skip reasons and the content
kinds (``tool_use``, ``thinking``...) the messages left out. Files met inside folders or
ZIPs that are not exports (images, ``chat.html``) or are export side files
(``users.json``...) are counted in the totals' ``skipped`` (``not-an-export``,
``export-metadata``), not listed, unless their name is that of an export file
(:func:`export_named`: ``conversations.json``, ``conversations-NNN.json``, a ``.jsonl``
under a ``projects`` folder): such a file that is no export is an error, like a file named
on the command line. A folder or ZIP named on the command line in which no file was an
export gets an error saying so; so does a path that is missing or not a regular file or
folder, while the other paths are still imported. An export-named file that is empty or an
empty JSON array is an export of no conversations (skipped ``empty-export``), not an error.
A ZIP in a folder is read like one named on the command line (``folder/x.zip!/member`` in errors);
a ``*.zip`` that is no ZIP is an error (``not a ZIP archive``); one that holds no export (only
images, say) is passed over as one file (``zip-without-export``), like other side files.
A file that cannot be read or parsed becomes error lines in its receipt, never an exception:
what was stored before is untouched.
"""

from __future__ import annotations

import hashlib
import io
import re
import stat
import zipfile
import zlib
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any, Callable, IO, Iterator, Sequence

from tapestryd.config import Settings
from tapestryd.errors import ArchiveError, ParseError, UnknownFormatError
from tapestryd.events.store import EventStore
from tapestryd.events.types import ImportFinished, ImportReceived, NewEvent
from tapestryd.sources.appender import BATCH, BatchAppender, FileRun
from tapestryd.sources.parsers.archives import Archive, ZipLimits
from tapestryd.sources.parsers.base import Origin, Skip
from tapestryd.sources.parsers.detect import HEAD_SIZE, ZIP_MAGIC, detect_format, get_parser, preview
from tapestryd.sources.parsers.subagents import mark_subagents
from tapestryd.sources.receipts import FileReceipt, Receipt, receipt_ids
from tapestryd.sources.screen import Screen, holds_marker
from tapestryd.sources.transcode import Utf8FromUtf16, utf16_of, utf8_of
from tapestryd.plural import counted

__all__ = ["BATCH", "FileReceipt", "Progress", "Receipt", "export_named", "ingest_file", "ingest_paths"]

Progress = Callable[[int, int, str], None]

KEEP_BYTES = 8 << 20
"""A source up to this size (bytes) is read from disk once and kept in memory for its later passes."""

_EXPORT_NAME = re.compile(r"conversations(-\d+)?\.json", re.IGNORECASE)
_BLANK = b" \t\r\n"
_EMPTY_EXPORT = re.compile(rb"\s*(\[\s*\])?\s*")
"""What a file named like an export holds when it has no conversations: nothing, or an empty JSON array."""


@dataclass(frozen=True)
class _Source:
    """One file to import: a file on disk or a ZIP member, with its size in bytes.

    ``explicit``: named on the command line, or named like an export (not passed over silently).
    """

    display: str
    size: int
    open: Callable[[], IO[bytes]]
    explicit: bool


@dataclass(frozen=True)
class _Nested:
    """A ZIP met inside a folder (``display`` is its path) and its members."""

    display: str
    members: list[_Source]


_Unit = _Source | _Nested


@dataclass
class _Context:
    settings: Settings
    agent: str | None
    parser: str
    meter: _Meter
    appender: BatchAppender


def ingest_paths(store: EventStore, paths: Sequence[Path], *, settings: Settings, agent: str | None = None,
                 parser: str = "auto", progress: Progress | None = None) -> Receipt:
    """Import files, folders (recursively) and ZIPs into ``store``; returns the receipt.

    ``agent`` overrides the label (default: the configured agent of the detected parser);
    ``parser`` is ``auto`` or a parser name. ``progress(bytes_done, bytes_total, name)``
    is called as bytes are read. Raises ParseError for an unknown parser name and
    StoreError when the log cannot be written; bad input only adds receipt errors.
    """
    if parser != "auto":
        get_parser(parser)
    receipt = Receipt()
    with ExitStack() as stack:
        limits = _zip_limits(settings)
        groups = [_expand(Path(p), stack, limits) for p in paths]
        total = sum(s.size for group in groups for unit in group.sources for s in _members(unit))
        ctx = _Context(settings, agent, parser, _Meter(progress, total), BatchAppender(store))
        for group in groups:
            _ingest_group(store, group, ctx, receipt)
        ctx.appender.close()
        ctx.meter.finish()
    return receipt


def _zip_limits(settings: Settings) -> ZipLimits:
    """The ZIP limits ``[sources]`` sets (``zip_max_expanded_mb``, ``zip_max_entries``, ``zip_max_ratio``)."""
    src = settings.sources
    return ZipLimits(int(src.zip_max_expanded_mb * 1024**2), src.zip_max_entries, src.zip_max_ratio)


def export_named(display: str) -> bool:
    """Whether a file's name says it is an export: ``conversations.json``, ``conversations-NNN.json``
    (ChatGPT, Claude.ai), or a ``.jsonl`` under a ``projects`` folder (Claude Code's
    ``~/.claude/projects/<project>/<session>.jsonl``). ``display`` is a path or ``x.zip!/member``."""
    parts = PurePosixPath(display.replace("!/", "/")).parts
    if not parts:
        return False
    name = parts[-1]
    return bool(_EXPORT_NAME.fullmatch(name)) or (name.lower().endswith(".jsonl") and "projects" in parts[:-1])


@dataclass
class _Group:
    """The sources of one path given to the ingest, and the receipts of what could not be read while
    listing it; ``container`` is ``folder`` or ``ZIP archive`` when the path was one that could be listed."""

    path: Path
    sources: list[_Unit] = field(default_factory=list)
    container: str = ""
    unreadable: list[FileReceipt] = field(default_factory=list)


def _ingest_group(store: EventStore, group: _Group, ctx: _Context, receipt: Receipt) -> None:
    """Import one path's sources; a folder or ZIP in which none was an export gets an error saying so."""
    receipt.files.extend(group.unreadable)
    found, passed = 0, dict[str, int]()
    for outcome in (o for unit in group.sources for o in _ingest_unit(store, unit, ctx)):
        if isinstance(outcome, FileReceipt):
            receipt.files.append(outcome)
            found += 1
        else:
            receipt.ignored[outcome] = receipt.ignored.get(outcome, 0) + 1
            passed[outcome] = passed.get(outcome, 0) + 1
    if group.container and not found:
        detail = ", ".join(f"{k} {v}" for k, v in sorted(passed.items()))
        why = f" (passed over {counted(sum(passed.values()), 'file')}: {detail})" if passed else ""
        receipt.files.append(_failed(str(group.path), f"{group.path}: the {group.container} holds no export "
                                                      f"files{why}; nothing to import"))


def _members(unit: _Unit) -> list[_Source]:
    return unit.members if isinstance(unit, _Nested) else [unit]


def _ingest_unit(store: EventStore, unit: _Unit, ctx: _Context) -> list[FileReceipt | str]:
    """The outcomes of a file, or of a ZIP in a folder (``zip-without-export`` when no member was an export)."""
    outcomes = [_ingest_source(store, source, ctx) for source in _members(unit)]
    if isinstance(unit, _Nested) and not any(isinstance(o, FileReceipt) for o in outcomes):
        return ["zip-without-export"]
    return outcomes


def ingest_file(store: EventStore, path: Path, *, settings: Settings, agent: str | None = None,
                parser: str = "auto", progress: Progress | None = None) -> FileReceipt:
    """Import one file (a ZIP's members merged into one receipt named after the ZIP)."""
    receipt = ingest_paths(store, [path], settings=settings, agent=agent, parser=parser, progress=progress)
    if len(receipt.files) == 1 and not receipt.ignored:
        return receipt.files[0]
    return FileReceipt.merged(str(path), _sha256_of(path), receipt)


def _expand(path: Path, stack: ExitStack, limits: ZipLimits) -> _Group:
    """The sources of one given path; a missing or unreadable path becomes an error receipt of the group."""
    group = _Group(path)
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        missing = isinstance(exc, (FileNotFoundError, NotADirectoryError))
        group.unreadable.append(_failed(str(path), f"{path}: {'no such file or folder' if missing else _cannot(exc)}"))
        return group
    if stat.S_ISDIR(mode):
        group.container = "folder"
        for child in sorted(p for p in path.rglob("*") if p.is_file()):
            group.sources.extend(_file_sources(child, stack, group, limits, explicit=False))
    elif not stat.S_ISREG(mode):
        group.unreadable.append(_failed(str(path), f"{path}: not a regular file or folder (a device, pipe or "
                                                   f"socket); tapestry imports files, folders and ZIP exports"))
    elif _is_zip(path):
        members = _archive_sources(path, stack, group, limits)
        group.sources.extend(members or [])
        group.container = "ZIP archive" if members is not None else ""
    else:
        group.sources.extend(_file_sources(path, stack, group, limits, explicit=True))
    return group


def _is_zip(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4).startswith(ZIP_MAGIC)
    except OSError:
        return False


def _cannot(exc: OSError) -> str:
    return f"cannot read: {exc.strerror or exc}"


def _file_sources(path: Path, stack: ExitStack, group: _Group, limits: ZipLimits, *, explicit: bool) -> Iterator[_Unit]:
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
        size = path.stat().st_size
    except OSError as exc:
        group.unreadable.append(_failed(str(path), f"{path}: {_cannot(exc)}"))
        return
    if magic.startswith(ZIP_MAGIC):
        members = _archive_sources(path, stack, group, limits)
        if members is not None:
            yield _Nested(str(path), members)
        return
    yield _Source(str(path), size, lambda: path.open("rb"), explicit or export_named(str(path)))


def _archive_sources(path: Path, stack: ExitStack, group: _Group, limits: ZipLimits) -> list[_Source] | None:
    """The members of the ZIP at ``path``; None (and an error receipt in ``group``) when it is refused."""
    try:
        archive = stack.enter_context(Archive(path, limits))
    except ArchiveError as exc:
        group.unreadable.append(_failed(str(path), exc.message))
        return None
    return [_Source(archive.display(m), m.file_size, partial(archive.open, m),
                    export_named(archive.display(m))) for m in archive.members]


def _ingest_source(store: EventStore, src: _Source, ctx: _Context) -> FileReceipt | str:
    """The receipt of one source, or the reason it was passed over (not an export...)."""
    try:
        sha, head, data = _fingerprint(src)
    except (ArchiveError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        return _failed(src.display, _read_error(src, exc))
    codec = utf16_of(head)
    if codec:  # saved again on Windows: read as the UTF-8 it was (the fingerprint stays the file's)
        head, data = utf8_of(head, codec), None if data is None else utf8_of(data, codec, whole=True)
        src = _as_utf8(src, codec)
    try:
        name = _format_of(head, src, ctx.parser)
    except UnknownFormatError as exc:
        if export_named(src.display) and _EMPTY_EXPORT.fullmatch(head.removeprefix(b"\xef\xbb\xbf")):
            return FileReceipt(src.display, sha, skipped={"empty-export": 1})  # an export of no conversations
        if src.display.lower().endswith(".zip"):
            what = f"it starts with {preview(head)}" if head else "it is empty"
            return _failed(src.display, f"{src.display}: not a ZIP archive ({what}); nothing to import", sha)
        return _failed(src.display, exc.message, sha) if src.explicit else "not-an-export"
    if name in ("metadata", "zip"):
        reason = "export-metadata" if name == "metadata" else "nested-archive"
        return FileReceipt(src.display, sha, skipped={reason: 1}) if src.explicit else reason
    known = _known_receipt(store, src, sha, name, ctx)
    if known is not None:
        return known
    if data is not None:  # read once: the marker scan and the parser take the bytes from memory
        src = _Source(src.display, src.size, lambda: io.BytesIO(data), src.explicit)
    return _import(store, src, sha, name, ctx)


def _as_utf8(src: _Source, codec: str) -> _Source:
    """``src``, a UTF-16 file in ``codec``, opened as UTF-8 (:mod:`tapestryd.sources.transcode`)."""
    opener = src.open
    return _Source(src.display, src.size, lambda: io.BufferedReader(Utf8FromUtf16(opener(), codec), 1 << 16),
                   src.explicit)


def _known_receipt(store: EventStore, src: _Source, sha: str, name: str, ctx: _Context) -> FileReceipt | None:
    """The receipt of a file this importer version already read whole the same way, else None."""
    agent = ctx.agent or ctx.settings.agent_for_parser(name)
    finished = store.find(receipt_ids(sha, _reading(name, agent, ctx))[1])
    if finished is None or not isinstance(finished.event, ImportFinished):
        return None
    return FileReceipt.from_finished(src.display, finished.event, name, agent)


def _reading(name: str, agent: str, ctx: _Context) -> str:
    """What besides the bytes decides a file's events: parser, agent label, privacy settings."""
    return f"{name}\x1f{agent}\x1f{ctx.settings.privacy!r}"


def _format_of(head: bytes, src: _Source, forced: str) -> str:
    """The detected format; a forced parser wins over a detected or unknown one (not over zip/metadata)."""
    try:
        detected = detect_format(head, location=src.display)
    except UnknownFormatError:
        if forced == "auto" or not (src.explicit or head.lstrip()[:1] in (b"{", b"[")):
            raise
        return forced
    return detected if forced == "auto" or detected in ("metadata", "zip") else forced


def _import(store: EventStore, src: _Source, sha: str, name: str, ctx: _Context) -> FileReceipt:
    """Parse one source into the appender; its receipt is complete once the appender is closed."""
    agent = ctx.agent or ctx.settings.agent_for_parser(name)
    origin = Origin(src.display, sha, agent)
    receipt = FileReceipt(src.display, sha, name, agent)
    received_id, finished_id = receipt_ids(sha, _reading(name, agent, ctx))
    run = FileRun(receipt, _screen(store, src, name, origin, ctx), finished_id)
    received = ImportReceived(sha, src.display, src.size, name)
    ctx.appender.add(run, NewEvent(received_id, received, _now(), agent, src.display))
    try:
        with src.open() as raw:
            for item in mark_subagents(get_parser(name).parse(ctx.meter.wrap(raw, src.display), origin), src.display):
                if isinstance(item, NewEvent):
                    ctx.appender.add(run, item)
                elif isinstance(item, Skip):
                    receipt.skip(item.reason)
                else:
                    receipt.error(str(item))
    except ParseError as exc:
        receipt.error(exc.message)
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        receipt.error(_read_error(src, exc))
    ctx.appender.finish(run)
    return receipt


def _screen(store: EventStore, src: _Source, name: str, origin: Origin, ctx: _Context) -> Screen:
    """The privacy screen of one source; a file holding a marker is read once more first."""
    screen = Screen(store, ctx.settings.privacy)
    try:
        if holds_marker(src.open):
            with src.open() as raw:
                screen.learn(get_parser(name).parse(raw, origin))
    except (ParseError, OSError, EOFError, zipfile.BadZipFile, zlib.error):
        pass  # the main pass reports what is wrong with the file
    return screen


class _Meter:
    """Bytes read across every source, reported to ``progress`` at most every 1 MiB."""

    STEP = 1 << 20

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress = progress
        self.total = total
        self.done = 0
        self.reported = -self.STEP
        self.name = ""

    def wrap(self, raw: IO[bytes], name: str) -> IO[bytes]:
        """A buffered stream over ``raw`` that counts what is read."""
        self.name = name
        self._report()
        return io.BufferedReader(_CountingRaw(raw, self), 1 << 16)

    def advance(self, n: int) -> None:
        self.done += n
        if self.done - self.reported >= self.STEP:
            self._report()

    def finish(self) -> None:
        if self.progress is not None and self.total:
            self.progress(self.total, self.total, self.name)

    def _report(self) -> None:
        self.reported = self.done
        if self.progress is not None:
            self.progress(min(self.done, self.total), self.total, self.name)


class _CountingRaw(io.RawIOBase):
    """A raw stream that reads from another and tells a meter how many bytes passed."""

    def __init__(self, raw: IO[bytes], meter: _Meter) -> None:
        super().__init__()
        self.raw = raw
        self.meter = meter

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        buffer[: len(data)] = data
        self.meter.advance(len(data))
        return len(data)


def _fingerprint(src: _Source) -> tuple[str, bytes, bytes | None]:
    """sha256 (hex) of the whole source, its first HEAD_SIZE bytes from the first one that is not
    blank (a session file may start with 64 KB of blank lines; the format is told from what
    follows), and all its bytes when they are at most :data:`KEEP_BYTES` (else None: the
    source is read again from disk)."""
    digest, head, kept, size = hashlib.sha256(), b"", [], 0
    with src.open() as fh:
        while chunk := fh.read(1 << 20):
            if len(head) < HEAD_SIZE:
                head += (chunk if head else chunk.lstrip(_BLANK))[: HEAD_SIZE - len(head)]
            digest.update(chunk)
            size += len(chunk)
            if size <= KEEP_BYTES:
                kept.append(chunk)
    return digest.hexdigest(), head, b"".join(kept) if size <= KEEP_BYTES else None


def _sha256_of(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return ""


def _failed(display: str, message: str, sha: str = "") -> FileReceipt:
    receipt = FileReceipt(display, sha)
    receipt.error(message)
    return receipt


def _read_error(src: _Source, exc: BaseException) -> str:
    if isinstance(exc, ArchiveError):
        return exc.message
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
    return f"{src.display}: cannot read: {reason}"


def _now() -> datetime:
    return datetime.now(timezone.utc)
