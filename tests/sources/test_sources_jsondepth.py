"""DepthGuard: the nesting cap on raw JSON bytes counts brackets outside strings, across chunk edges."""

from __future__ import annotations

import io
import json

import ijson
import pytest

from tapestryd.sources.parsers.base import Problem
from tapestryd.sources.parsers.jsondepth import DepthGuard
from tapestryd.sources.parsers.jsonstream import MAX_DEPTH, Conversation, iter_conversations


class _Trickle(io.BytesIO):
    """A stream that returns at most ``step`` bytes per read, so every byte can sit at a chunk edge."""

    def __init__(self, data: bytes, step: int) -> None:
        super().__init__(data)
        self.step = step

    def read(self, size: int | None = -1) -> bytes:
        return b"" if size == 0 else super().read(self.step)


def _nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _read_all(guard: DepthGuard) -> bytes:
    out = b""
    while data := guard.read(65536):
        out += data
    return out


@pytest.mark.parametrize("step", [1, 2, 3, 7, 65536])
def test_brackets_inside_strings_and_escapes_do_not_count(step: int) -> None:
    """Brackets in strings, escaped quotes and backslash runs cut at any edge leave the depth exact."""
    tricky = json.dumps(["[[[{{{", 'a "quoted" [', "back\\slash\\\\", "\\" * 7 + '"[', "]]]}}}"]).encode()
    data = b"[" + tricky + b"," + _nested(MAX_DEPTH - 2) + b"]"
    guard = DepthGuard(_Trickle(data, step), MAX_DEPTH)
    assert _read_all(guard) == data
    assert guard.depth == 0 and not guard.in_string and not guard.too_deep


@pytest.mark.parametrize("step", [1, 5, 65536])
def test_bytes_stop_before_the_bracket_that_goes_too_deep(step: int) -> None:
    """The bytes before level limit+1 pass; the next read raises."""
    data = b'["[[[", ' + _nested(MAX_DEPTH + 5) + b"]"
    guard = DepthGuard(_Trickle(data, step), MAX_DEPTH)
    with pytest.raises(ijson.JSONError, match="nesting deeper than 512"):
        _read_all(guard)
    assert guard.too_deep


def test_conversations_before_a_too_deep_one_are_kept() -> None:
    """A value one level too deep ends the file after the conversations before it; exactly the limit passes."""
    fits = b"[" + json.dumps({"id": "a"}).encode() + b"," + _nested(MAX_DEPTH - 1) + b"]"
    assert [type(i) for i in iter_conversations(io.BytesIO(fits), "fits.json")] == [Conversation, Conversation]
    deep = b"[" + json.dumps({"id": "a"}).encode() + b"," + _nested(MAX_DEPTH) + b"]"
    items = list(iter_conversations(io.BytesIO(deep), "deep.json"))
    assert isinstance(items[0], Conversation) and items[0].value == {"id": "a"}
    assert isinstance(items[1], Problem) and "after conversation 1: nesting deeper than 512 levels" in items[1].message
