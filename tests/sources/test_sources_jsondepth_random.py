"""DepthGuard against a byte-by-byte reference on random quote, backslash and bracket soup, cut anywhere."""

from __future__ import annotations

import io
import random

import ijson
import pytest

from tapestryd.sources.parsers.jsondepth import DepthGuard


def _reference(data: bytes, limit: int) -> tuple[int, int, bool]:
    """Bytes passed before the first bracket opening level ``limit + 1``, final depth, and whether inside a string."""
    depth, in_string, escaped = 0, False, False
    for offset, byte in enumerate(data):
        char = bytes([byte])
        if in_string:
            if escaped:
                escaped = False
            elif char == b"\\":
                escaped = True
            elif char == b'"':
                in_string = False
        elif char == b'"':
            in_string = True
        elif char in b"[{":
            depth += 1
            if depth > limit:
                return offset, depth, in_string
        elif char in b"]}":
            depth -= 1
    return len(data), depth, in_string


_INSIDE = (b'\\"', b"\\\\", b"\\n", b"[", b"]", b"{", b"}", b"a")


def _soup(rng: random.Random) -> bytes:
    """Brackets and strings whose bodies hold escaped quotes, backslash runs and brackets (escapes only in strings)."""
    tokens = []
    for _ in range(rng.randint(0, 40)):
        if rng.random() < 0.3:
            tokens.append(b'"' + b"".join(rng.choice(_INSIDE) for _ in range(rng.randint(0, 6))) + b'"')
        else:
            tokens.append(rng.choice((b"[", b"]", b"{", b"}", b"a")))
    return b"".join(tokens)


class _Chunks(io.BytesIO):
    """A stream returning at most ``step`` bytes per read."""

    def __init__(self, data: bytes, step: int) -> None:
        super().__init__(data)
        self.step = step

    def read(self, size: int | None = -1) -> bytes:
        return super().read(self.step)


@pytest.mark.parametrize("seed", range(4))
def test_guard_matches_the_byte_by_byte_reference(seed: int) -> None:
    """Escaped quotes, backslash runs, empty strings and brackets in strings at every chunk edge."""
    rng = random.Random(seed)
    for _ in range(400):
        data = _soup(rng)
        limit, step = rng.randint(1, 6), rng.randint(1, 17)
        passed_len, depth, in_string = _reference(data, limit)
        guard = DepthGuard(_Chunks(data, step), limit)
        passed = b""
        with pytest.raises(ijson.JSONError) if passed_len < len(data) else _nothing():
            while chunk := guard.read(step):
                passed += chunk
        assert passed == data[:passed_len]
        if passed_len == len(data):
            assert (guard.depth, guard.in_string) == (depth, in_string)


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False
