"""The ingest pipeline: files, folders (recursive) and ZIPs in; events appended; a receipt out.

For each file (or ZIP member) the pipeline hashes the bytes (sha256), detects the format
from the content (or uses ``--parser``), streams the parser's items, and appends events
in batches of about :data:`BATCH` per transaction, shared by the files of one ingest
(:mod:`tapestryd.sources.appender`), after the privacy screen
(:mod:`tapestryd.sources.screen`). Around the messages it records an
``ImportReceived`` and an ``ImportFinished`` (the receipt) whose event ids derive from the
file's sha256, so importing an identical file again adds no event at all.

Counting, per file: a message is *new* when any of its events (streamed parts) was new,
else *known*; a conversation is *new* when every message of it was new, *updated* when
some were, *known* when none were. ``skipped`` counts Skip reasons and the content
kinds (``tool_use``, ``thinking``...) the messages left out. Files met inside folders or
ZIPs that are not exports (images, ``chat.html``) or are export side files
(``users.json``...) are counted in the totals' ``skipped`` (``not-an-export``,
``export-metadata``), not listed. A file that cannot be read or parsed becomes error
lines in its receipt, never an exception: what was stored before is untouched.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Sequence

from tapestryd.config import Settings
from tapestryd.errors import ArchiveError, ParseError, UnknownFormatError
from tapestryd.events.store import EventStore
from tapestryd.events.types import ImportReceived, NewEvent, event_id
from tapestryd.sources.appender import BATCH, BatchAppender, FileRun
from tapestryd.sources.parsers.archives import Archive
from tapestryd.sources.parsers.base import Origin, Skip
from tapestryd.sources.parsers.detect import HEAD_SIZE, ZIP_MAGIC, detect_format, get_parser
from tapestryd.sources.receipts import FileReceipt, Receipt
from tapestryd.sources.screen import Screen, holds_marker

__all__ = ["BATCH", "FileReceipt", "Progress", "Receipt", "ingest_file", "ingest_paths"]

Progress = Callable[[int, int, str], None]

KEEP_BYTES = 8 << 20
"""A source up to this size (bytes) is read from disk once and kept in memory for its later passes."""


@dataclass(frozen=True)
class _Source:
    """One file to import: a file on disk or a ZIP member, with its size in bytes."""

    display: str
    size: int
    open: Callable[[], BinaryIO]
    explicit: bool


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
        sources = list(_expand([Path(p) for p in paths], stack, receipt))
        ctx = _Context(settings, agent, parser, _Meter(progress, sum(s.size for s in sources)), BatchAppender(store))
        for source in sources:
            outcome = _ingest_source(store, source, ctx)
            if isinstance(outcome, FileReceipt):
                receipt.files.append(outcome)
            else:
                receipt.ignored[outcome] = receipt.ignored.get(outcome, 0) + 1
        ctx.appender.close()
        ctx.meter.finish()
    return receipt


def ingest_file(store: EventStore, path: Path, *, settings: Settings, agent: str | None = None,
                parser: str = "auto", progress: Progress | None = None) -> FileReceipt:
    """Import one file (a ZIP's members merged into one receipt named after the ZIP)."""
    receipt = ingest_paths(store, [path], settings=settings, agent=agent, parser=parser, progress=progress)
    if len(receipt.files) == 1 and not receipt.ignored:
        return receipt.files[0]
    return FileReceipt.merged(str(path), _sha256_of(path), receipt)


def _expand(paths: list[Path], stack: ExitStack, receipt: Receipt) -> Iterator[_Source]:
    for path in paths:
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                yield from _file_sources(child, stack, receipt, explicit=False)
        elif path.is_file():
            yield from _file_sources(path, stack, receipt, explicit=True)
        else:
            receipt.files.append(_failed(str(path), f"{path}: no such file or folder"))


def _file_sources(path: Path, stack: ExitStack, receipt: Receipt, *, explicit: bool) -> Iterator[_Source]:
    try:
        with path.open("rb") as fh:
            magic = fh.read(4)
        size = path.stat().st_size
    except OSError as exc:
        receipt.files.append(_failed(str(path), f"{path}: cannot read: {exc.strerror}"))
        return
    if magic.startswith(ZIP_MAGIC):
        yield from _archive_sources(path, stack, receipt)
        return
    yield _Source(str(path), size, lambda: path.open("rb"), explicit)


def _archive_sources(path: Path, stack: ExitStack, receipt: Receipt) -> Iterator[_Source]:
    try:
        archive = stack.enter_context(Archive(path))
    except ArchiveError as exc:
        receipt.files.append(_failed(str(path), exc.message))
        return
    for member in archive.members:
        yield _Source(archive.display(member), member.file_size, lambda m=member: archive.open(m), False)  # type: ignore[misc]


def _ingest_source(store: EventStore, src: _Source, ctx: _Context) -> FileReceipt | str:
    """The receipt of one source, or the reason it was passed over (not an export...)."""
    try:
        sha, head, data = _fingerprint(src)
    except (ArchiveError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
        return _failed(src.display, _read_error(src, exc))
    try:
        name = _format_of(head, src, ctx.parser)
    except UnknownFormatError as exc:
        return _failed(src.display, exc.message, sha) if src.explicit else "not-an-export"
    if name in ("metadata", "zip"):
        reason = "export-metadata" if name == "metadata" else "nested-archive"
        return FileReceipt(src.display, sha, skipped={reason: 1}) if src.explicit else reason
    if data is not None:  # read once: the marker scan and the parser take the bytes from memory
        src = _Source(src.display, src.size, lambda: io.BytesIO(data), src.explicit)
    return _import(store, src, sha, name, ctx)


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
    run = FileRun(receipt, _screen(store, src, name, origin, ctx))
    received = ImportReceived(sha, src.display, src.size, name)
    ctx.appender.add(run, NewEvent(event_id("import", sha, "received"), received, _now(), agent, src.display))
    try:
        with src.open() as raw:
            for item in get_parser(name).parse(ctx.meter.wrap(raw, src.display), origin):
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

    def wrap(self, raw: BinaryIO, name: str) -> BinaryIO:
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

    def __init__(self, raw: BinaryIO, meter: _Meter) -> None:
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
    """sha256 (hex) of the whole source, its first HEAD_SIZE bytes, and all its bytes when they
    are at most :data:`KEEP_BYTES` (else None: the source is read again from disk)."""
    digest, head, kept, size = hashlib.sha256(), b"", [], 0
    with src.open() as fh:
        while chunk := fh.read(1 << 20):
            if len(head) < HEAD_SIZE:
                head += chunk[: HEAD_SIZE - len(head)]
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
