"""Unsplit text: characters the FTS5 tokenizer of ``messages_fts`` cannot find words in.

``messages_fts`` uses ``unicode61`` (https://sqlite.org/fts5.html#unicode61_tokenizer):
letters and digits are token characters, everything else separates tokens. So a run of
Chinese, Japanese or Thai, written without spaces between words, is one token (a word
inside it is never matched), and emoji and pictographic symbols are dropped (never
matched at all). :data:`UNSPLIT_RANGES` is the set of such code points, in one place:

* scripts written without spaces (or whose runs unicode61 keeps whole): CJK ideographs
  (with extensions A–H and compatibility ideographs), radicals, bopomofo, hiragana,
  katakana (with half-width forms and the kana supplements), hangul (syllables and
  jamo), Thai, Lao, Myanmar, Khmer, and the CJK symbols and punctuation block;
* symbols unicode61 drops that people search for: arrows, miscellaneous technical,
  geometric shapes, miscellaneous symbols, dingbats, miscellaneous symbols and arrows,
  and the emoji planes U+1F000–U+1FAFF (pictographs, emoticons, transport, flags'
  regional indicators, skin tones).

ASCII is never in the set, so a query of Latin words never leaves the FTS5 path.

Table it owns (in ``projections.db``, kept by :class:`~tapestryd.projections.messages.MessagesProjection`):
``messages_unsplit(id)``, the ids of messages whose text holds at least one such
character; search matches those messages' text by substring.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

__all__ = ["UNSPLIT", "UNSPLIT_RANGES", "backfill", "create_table", "has_unsplit", "record"]

UNSPLIT_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x2190, 0x21FF),  # Arrows
    (0x2300, 0x23FF),  # Miscellaneous Technical (⌚ ⏰)
    (0x25A0, 0x27BF),  # Geometric Shapes, Miscellaneous Symbols (☀ ⚡), Dingbats (✅ ✨ ❤)
    (0x2B00, 0x2BFF),  # Miscellaneous Symbols and Arrows (⭐ ⬆)
    (0x2E80, 0x2FDF),  # CJK Radicals Supplement, Kangxi Radicals
    (0x3001, 0x303F),  # CJK Symbols and Punctuation (without the ideographic space)
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x31FF),  # Bopomofo, Hangul Compatibility Jamo, Kanbun, CJK Strokes, Katakana Extension
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xA960, 0xA97F),  # Hangul Jamo Extended-A
    (0xAC00, 0xD7FF),  # Hangul Syllables, Hangul Jamo Extended-B
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0xFF66, 0xFFDC),  # Half-width Katakana and Hangul
    (0x1B000, 0x1B16F),  # Kana Supplement, Kana Extended-A, Small Kana Extension
    (0x1F000, 0x1FAFF),  # Mahjong … Symbols and Pictographs Extended-A (emoji)
    (0x20000, 0x323AF),  # CJK Unified Ideographs Extensions B–H, Compatibility Supplement
)
"""Inclusive code point ranges of unsplit characters (see the module docstring)."""

UNSPLIT = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in UNSPLIT_RANGES) + "]")
"""Matches one unsplit character."""

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS messages_unsplit (id INTEGER PRIMARY KEY)",
    """CREATE TRIGGER IF NOT EXISTS messages_unsplit_ad AFTER DELETE ON messages BEGIN
        DELETE FROM messages_unsplit WHERE id = old.id; END""",
]


def has_unsplit(text: str) -> bool:
    """True when ``text`` holds a character of :data:`UNSPLIT_RANGES`."""
    # Every range is past ASCII, and isascii() reads a flag Python keeps on the string: no scan.
    return not text.isascii() and UNSPLIT.search(text) is not None


def create_table(conn: sqlite3.Connection) -> bool:
    """Create ``messages_unsplit`` and its delete trigger if missing; True when the table was new."""
    new = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages_unsplit'").fetchone()
    for statement in _SCHEMA:
        conn.execute(statement)
    return new is None


def backfill(conn: sqlite3.Connection) -> int:
    """Record every stored message with unsplit text (one scan of ``messages``); returns how many."""
    return record(conn, conn.execute("SELECT id, text FROM messages"))


def record(conn: sqlite3.Connection, rows: Iterable[tuple[int, str]]) -> int:
    """Record the ``(id, text)`` pairs of ``rows`` whose text is unsplit; returns how many."""
    ids = [(i,) for i, text in rows if has_unsplit(text)]
    conn.executemany("INSERT OR IGNORE INTO messages_unsplit (id) VALUES (?)", ids)
    return len(ids)
