"""Exports saved as UTF-16 (a byte order mark first, as Windows editors and PowerShell's ``>`` write them),
read as the UTF-8 the parsers take.

JSON exchanged between systems is UTF-8 (RFC 8259, section 8.1); an export opened and saved again on
Windows is often UTF-16 with a byte order mark, which no parser could tell from binary. Such a file is
recognised by its mark, or without one by the zero byte beside each ASCII character of its first
characters (the way RFC 4627, section 3, told JSON's encodings apart), and decoded a chunk at a time
(:class:`Utf8FromUtf16`), so a large export is never held whole. Its fingerprint stays that of its own
bytes: imported again, it is known.
"""

from __future__ import annotations

import codecs
import io
from typing import IO, Any

__all__ = ["Utf8FromUtf16", "utf16_of", "utf8_of"]

_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_CHUNK = 1 << 16
_SEEN = 32
"""Characters of a head without a mark looked at: each an ASCII one beside a zero byte, or it is not UTF-16."""


def utf16_of(head: bytes) -> str:
    """The codec of a file whose first bytes are ``head`` when it is UTF-16: ``"utf-16"`` (it starts with a byte
    order mark), ``"utf-16-le"`` or ``"utf-16-be"`` (no mark; its first :data:`_SEEN` characters are ASCII, each
    beside a zero byte), else ``""``."""
    if head.startswith(_MARKS) and not head.startswith(codecs.BOM_UTF32_LE):
        return "utf-16"
    first = head[: 2 * _SEEN]
    if len(first) < 4 or len(first) % 2:
        return ""
    even, odd = first[0::2], first[1::2]
    if not any(odd) and all(0 < b < 0x80 for b in even):
        return "utf-16-le"
    if not any(even) and all(0 < b < 0x80 for b in odd):
        return "utf-16-be"
    return ""


def utf8_of(data: bytes, codec: str, *, whole: bool = False) -> bytes:
    """``data`` (UTF-16 in ``codec``, :func:`utf16_of`) as UTF-8, without a byte order mark. Unless ``whole``,
    ``data`` is a file's head, which may end mid-character: that character is left out. Undecodable code units
    become U+FFFD."""
    decoder = codecs.getincrementaldecoder(codec)(errors="replace")
    return decoder.decode(data, final=whole).encode("utf-8")


class Utf8FromUtf16(io.RawIOBase):
    """A raw stream of UTF-8 bytes decoded from ``raw``, a UTF-16 stream in ``codec`` (:func:`utf16_of`).

    Undecodable code units (a lone surrogate) become U+FFFD, which the parsers then read as text.
    """

    def __init__(self, raw: IO[bytes], codec: str) -> None:
        super().__init__()
        self.raw = raw
        self._decoder = codecs.getincrementaldecoder(codec)(errors="replace")
        self._pending = b""
        self._done = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        """Fill ``buffer`` with up to ``len(buffer)`` bytes of UTF-8 (0 at the end of ``raw``)."""
        while not self._pending and not self._done:
            chunk = self.raw.read(_CHUNK)
            self._done = not chunk
            self._pending = self._decoder.decode(chunk, final=self._done).encode("utf-8")
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def close(self) -> None:
        """Close this stream and ``raw``."""
        self.raw.close()
        super().close()
