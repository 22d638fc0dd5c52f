"""The seam of line formats whose meaning depends on earlier lines (Codex CLI, Gemini CLI).

A Claude Code line names its session itself; a Codex or Gemini CLI line does not (the
session is on the file's first line, and Codex numbers messages within the session whose
history they belong to). Such a parser keeps what earlier lines taught it in a *state*:
:meth:`LineParser.begin` makes the state of a file read from byte 0 and
:meth:`LineParser.feed` reads the next complete lines into it. Reading a file whole, or
feeding it in pieces (the tailer, which replays the lines before its stored offset when it
holds no state for them), gives the same items.
"""

from __future__ import annotations

import io
import re
from typing import Any, IO, Iterable, Iterator, Protocol

from tapestryd.sources.parsers.base import Item, Origin

__all__ = ["Line", "LineParser", "block_lines", "iter_lines", "json_error", "last_line_end", "parse_whole",
           "split_lines"]

_LONE_CR = re.compile(rb"(?<=\r)(?!\n)")

Line = tuple[int, bytes]
"""``(byte offset of the line start, the line's bytes with its newline)``."""


class LineParser(Protocol):
    """A JSON-lines parser with a per-file state (see the module docstring)."""

    name: str

    def sniff(self, head: bytes) -> bool:
        """Whether ``head`` (the first few KB) looks like this parser's format."""

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Every item of the whole stream, in file order."""

    def begin(self, origin: Origin) -> Any:
        """The state of a file about to be read from its first byte."""

    def feed(self, lines: Iterable[Line], origin: Origin, state: Any) -> Iterator[Item]:
        """The items of the next complete ``lines`` (in file order), updating ``state``."""


def parse_whole(parser: LineParser, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
    """:meth:`LineParser.feed` over every line of ``stream`` from a fresh state; blank lines are passed over."""
    state = parser.begin(origin)
    yield from parser.feed(iter_lines(stream), origin, state)


def split_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The stream's lines with their ends, cut at ``\n``, ``\r\n`` and a lone ``\r`` (old Mac style).

    Iterating the stream cuts at ``\n`` in C; only a line holding another ``\r`` (never in
    a file with ``\n`` or ``\r\n`` ends: JSON escapes it inside strings) is cut again.
    U+2028 and U+2029 are not line ends.
    """
    for raw in stream:
        cr = raw.find(b"\r")
        if cr < 0 or cr == len(raw) - 2 and raw.endswith(b"\r\n"):
            yield raw
        else:
            yield from (piece for piece in _LONE_CR.split(raw) if piece)


def last_line_end(data: bytes | bytearray, start: int = 0) -> int:
    """The index of the last line end (``\n`` or ``\r``) in ``data[start:]``, -1 when there is none.

    A ``\r`` at the very end counts: were it the first half of a ``\r\n`` still being
    written, the ``\n`` that follows reads as a blank line, which every reader passes over.
    """
    return max(data.rfind(b"\n", start), data.rfind(b"\r", start))


def block_lines(block: bytes, base: int) -> Iterator[Line]:
    """The non-blank lines of ``block`` (which ends at a line end) with their offsets, ``base`` being the block's."""
    return iter_lines(io.BytesIO(block), base)


def iter_lines(stream: IO[bytes], offset: int = 0) -> Iterator[Line]:
    """The non-blank lines of ``stream`` (ends as :func:`split_lines` cuts them) with their byte
    offsets, ``offset`` being the stream's position."""
    for raw in split_lines(stream):
        if raw.strip():
            yield offset, raw
        offset += len(raw)


def json_error(exc: ValueError | RecursionError) -> str:
    """What was wrong with a line that is not JSON, in words."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    if isinstance(exc, UnicodeDecodeError):
        return f"bytes that are not UTF-8 at column {exc.start + 1}"
    return f"not valid JSON ({getattr(exc, 'msg', exc)})"
