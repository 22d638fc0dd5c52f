"""A nesting cap on raw JSON bytes, checked at C speed before the parser sees them.

ijson's ``items`` builds values in C (``yajl2_c`` backend) but keeps a prefix string per
open level, so its memory grows with the square of the depth (a 400 KB file of ``[[[[…``
exhausts gigabytes). :class:`DepthGuard` wraps a byte reader and passes on only bytes whose
nesting stays within ``limit``: at the first byte that would open level ``limit + 1`` it
returns the bytes before it and raises ``ijson.JSONError`` on the next read, so every value
before the deep one is still parsed.

Per chunk, without a Python loop per byte: escaped backslashes and quotes are removed
in one regex pass, ``bytes.translate`` keeps only quotes and brackets, adjacent
quote pairs (strings holding no bracket, the bulk) are dropped, which keeps every
bracket's side of the quotes, a split at the remaining quotes drops the brackets inside
strings, and peeling matched pairs bounds the depth
of the rest; only a chunk whose bound passes the limit gets its exact running depth
(``itertools.accumulate`` over +1/-1). State carried between chunks: the depth, whether
the chunk ended inside a string, and whether it ended on an unpaired backslash. Only a
chunk that goes too deep is scanned byte by byte, to find where. Brackets count as RFC
8259 defines them: outside strings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate
from typing import IO

import ijson

__all__ = ["DepthGuard"]

_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_STEP = tuple(1 if b in b"[{" else -1 if b in b"]}" else 0 for b in range(256))
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_ESCAPE = re.compile(rb'\\[\\"]')
"""An escaped backslash or quote; one left-to-right regex pass (the regex engine skips to each
backslash faster than ``bytes.replace`` searches for the two-byte pairs)."""


@dataclass
class DepthGuard:
    """A reader over ``raw`` (a ``read(size) -> bytes`` stream) that stops at nesting deeper than ``limit``.

    ``depth`` is the nesting at the end of the bytes passed on so far (a top-level list is
    level 1).
    """

    raw: IO[bytes]
    limit: int
    depth: int = 0
    in_string: bool = False
    backslash: bool = False
    too_deep: bool = False

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes of ``raw``; raises ijson.JSONError once the nesting went past ``limit``."""
        if self.too_deep:
            raise ijson.JSONError(f"nesting deeper than {self.limit} levels")
        data = self.raw.read(size)
        state = (self.depth, self.in_string, self.backslash)
        if not data or self._deepest(data) <= self.limit:
            return data
        self.too_deep = True
        return data[:_first_too_deep(data, *state, self.limit)] or self.read(size)

    def _deepest(self, data: bytes) -> int:
        """Advance the state over ``data``; a bound of the deepest level in it, exact when above ``limit``."""
        text = (b'"' if self.in_string else b"") + (b"\\" if self.backslash else b"") + data
        text = _ESCAPE.sub(b"", text)  # a run of backslashes pairs up from its left
        self.backslash = text.endswith(b"\\")
        structure = text.translate(None, _NOT_STRUCTURE).replace(b'""', b"")  # strings without brackets: gone
        parts = structure.split(b'"')  # odd-numbered parts are inside strings
        self.in_string = len(parts) % 2 == 0
        brackets, start = b"".join(parts[::2]), self.depth
        self.depth += 2 * (brackets.count(b"[") + brackets.count(b"{")) - len(brackets)
        bound = start + _nesting_bound(brackets, self.limit)
        if bound <= self.limit:
            return bound
        return max(accumulate(map(_STEP.__getitem__, brackets), initial=start))


def _nesting_bound(brackets: bytes, limit: int) -> int:
    """At least the deepest level ``brackets`` reach above their start, cheaply.

    Adjacent ``[]`` and ``{}`` pairs are peeled, innermost first, one round per level (at
    most ``limit + 1`` rounds); the opening brackets left were never closed in the chunk.
    """
    rounds = 0
    while rounds <= limit:
        peeled = brackets.replace(b"[]", b"").replace(b"{}", b"")
        if len(peeled) == len(brackets):
            break
        brackets, rounds = peeled, rounds + 1
    return rounds + brackets.count(b"[") + brackets.count(b"{")


def _first_too_deep(data: bytes, depth: int, in_string: bool, escaped: bool, limit: int) -> int:
    """Offset in ``data`` of the first bracket that opens level ``limit + 1`` (``len(data)`` if none)."""
    for offset, byte in enumerate(data):
        if in_string:
            if escaped:
                escaped = False
            elif byte == _BACKSLASH:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif _STEP[byte]:
            depth += _STEP[byte]
            if depth > limit:
                return offset
    return len(data)
