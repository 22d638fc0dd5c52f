"""Streaming of JSON exports (ChatGPT, Claude.ai): one conversation object at a time.

An export is a top-level list of conversations (``conversations.json``), an object whose
first key ``conversations`` holds that list (``{"conversations": [...]}``, as some export
tools write it; MemPalace #2160), or a single conversation object (the web API shape). All
are read with ijson, so a 300 MB file is parsed in bounded memory: only the conversation
being converted is held.

Bytes that are not UTF-8 would stop the JSON parser for the rest of the file, so the
stream is guarded: invalid sequences are replaced with U+FFFD and reported as a
:class:`~tapestryd.sources.parsers.base.Problem` naming the byte offset; the rest imports.

Nesting is capped at :data:`MAX_DEPTH` levels: ijson's prefix-tracking ``items`` costs
memory quadratic in depth (a 400 KB file of ``[[[[…`` exhausts gigabytes), so the raw bytes
pass a :class:`~tapestryd.sources.parsers.jsondepth.DepthGuard` first, and a deeper value
ends the file with a Problem.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, IO, Iterator, Union

import ijson

from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip, json_kind
from tapestryd.sources.parsers.jsondepth import DepthGuard

__all__ = ["MAX_DEPTH", "Conversation", "each_conversation", "iter_conversations", "parse_iso", "skips_for"]

MAX_DEPTH = 512  # real exports nest a few dozen levels

_BOM = codecs.BOM_UTF8
_WHITESPACE = b" \t\r\n"
_WRAPPED = re.compile(rb'\{\s*"conversations"\s*:\s*\[')


@dataclass(frozen=True)
class Conversation:
    """One top-level item of an export: its 0-based ``index`` and the decoded ``value``."""

    index: int
    value: Any


@dataclass
class _Utf8Guard:
    """A reader that passes valid UTF-8 through and replaces invalid bytes with U+FFFD.

    A multi-byte sequence cut by a chunk boundary is carried to the next read, so only
    truly invalid bytes are replaced. ``problems`` collects one message per chunk that
    needed replacing, naming its byte offset.
    """

    raw: IO[bytes]
    head: bytes = b""
    offset: int = 0
    problems: list[str] = field(default_factory=list)
    _carry: bytes = b""

    def read(self, size: int = -1) -> bytes:
        """Up to about ``size`` bytes, always valid UTF-8; b"" only at the end (or for size 0)."""
        if size == 0:
            return b""
        while True:
            chunk, self.head = (self.head, b"") if self.head else (self.raw.read(size), b"")
            data = self._carry + chunk
            cut = _complete(data) if chunk else len(data)
            out, self._carry = data[:cut], data[cut:]
            if out or not chunk:
                return self._checked(out)

    def _checked(self, out: bytes) -> bytes:
        start, self.offset = self.offset, self.offset + len(out)
        try:
            out.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.problems.append(f"byte {start + exc.start}: bytes that are not UTF-8 were replaced with U+FFFD")
            return out.decode("utf-8", "replace").encode("utf-8")
        return out


def _complete(data: bytes) -> int:
    """Length of the longest prefix of ``data`` that does not end inside a UTF-8 sequence."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue
        need = 1 if byte < 0xC0 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
        return len(data) - back if back < need else len(data)
    return len(data)


def iter_conversations(stream: IO[bytes], path: str) -> Iterator[Union[Conversation, Problem]]:
    """Each conversation of a JSON export in file order, or Problems for what breaks.

    A broken or truncated file yields the conversations before the break, then one
    Problem (``path: JSON breaks after conversation N: ...``); nothing is raised.
    """
    guard = _Utf8Guard(stream)
    first = _first_byte(guard)
    if first is None:
        yield Problem(path, "empty file: no JSON in it")
        return
    count = 0
    try:
        for count, value in enumerate(_items(guard, _prefix(guard.head)), start=1):
            yield from _drain(guard, path)
            yield Conversation(count - 1, value)
    except ijson.JSONError as exc:
        yield from _drain(guard, path)
        yield Problem(path, f"JSON breaks after conversation {count}: {_first_line(exc)}")
        return
    yield from _drain(guard, path)


def each_conversation(stream: IO[bytes], origin: Origin,
                      convert: Callable[[dict[str, Any], str, Origin], Iterator[Item]]) -> Iterator[Item]:
    """Items of every conversation object in file order: ``convert(conversation, where, origin)``.

    ``where`` is ``path#conversation N`` (1-based); a conversation that is not a JSON object
    and every stream Problem are yielded as Problems, so the rest of the file still imports.
    """
    for item in iter_conversations(stream, origin.path):
        if not isinstance(item, Conversation):
            yield item
            continue
        where = f"{origin.path}#conversation {item.index + 1}"
        if isinstance(item.value, dict):
            yield from convert(item.value, where, origin)
        else:
            yield Problem(where, f"not a JSON object ({json_kind(item.value)})")


def _prefix(head: bytes) -> str:
    """The ijson prefix of the conversations in a file starting with ``head`` (see the module docstring)."""
    head = head.lstrip(_WHITESPACE)
    if head.startswith(b"["):
        return "item"
    return "conversations.item" if _WRAPPED.match(head) else ""


def _items(stream: Any, prefix: str) -> Iterator[Any]:
    """The values at ``prefix``: a top-level list's items (``item``), a wrapper's, or the single top-level value.

    Built by ijson's ``items`` (in C with the yajl2_c backend) behind a :class:`DepthGuard`.
    Raises ijson.JSONError for broken JSON and for nesting deeper than MAX_DEPTH.
    """
    values: Iterator[Any] = ijson.items(DepthGuard(stream, MAX_DEPTH), prefix, use_float=True)
    return values


def _first_byte(guard: _Utf8Guard) -> bytes | None:
    """The first non-blank byte; the bytes read are kept in ``guard.head`` (BOM dropped)."""
    head = guard.raw.read(65536)
    if head.startswith(_BOM):
        head = head[len(_BOM):]
    while head and not head.lstrip(_WHITESPACE):
        head = guard.raw.read(65536)
    guard.head = head
    stripped = head.lstrip(_WHITESPACE)
    return stripped[:1] or None


def _drain(guard: _Utf8Guard, path: str) -> Iterator[Problem]:
    while guard.problems:
        yield Problem(path, guard.problems.pop(0))


def _first_line(exc: Exception) -> str:
    text = exc.args[0] if exc.args else exc
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return str(text).strip().splitlines()[0] if str(text).strip() else type(exc).__name__


def parse_iso(value: Any) -> datetime | None:
    """An ISO 8601 timestamp (``Z``, an offset, or naive meaning UTC) as aware UTC; None if not one.

    An instant whose offset carries it past year 1 or 9999 comes back as ``datetime.min`` or
    ``datetime.max`` (UTC), which the parsers then report as outside the supported dates.
    """
    if not isinstance(value, str) or not value:
        return None
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if ts.tzinfo is None:
        return ts.replace(tzinfo=timezone.utc)
    try:
        return ts.astimezone(timezone.utc)
    except OverflowError:  # year 1 or 9999 pushed past datetime's range by its offset
        return (datetime.min if ts.year == 1 else datetime.max).replace(tzinfo=timezone.utc)


def skips_for(kinds: dict[str, int], location: str) -> Iterator[Skip]:
    """One Skip per skipped content block (``tool_use`` ×2 gives two), or ``empty`` if none."""
    if not kinds:
        yield Skip("empty", location)
        return
    for kind, n in kinds.items():
        for _ in range(n):
            yield Skip(kind, location)
