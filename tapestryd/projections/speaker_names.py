"""Speaker names: whose turn a question names, from what the two sides of a conversation call each other.

Questions name people ("When did Caroline go to …"); messages rarely do, but the two sides
of a conversation address each other ("Hey Mel!", "Thanks, Caroline!",
:func:`tapestryd.vocatives.vocatives`), and a name one side calls the other is the other
side's. Table it owns (in ``projections.db``, kept by
:class:`~tapestryd.projections.messages.MessagesProjection`):

* ``message_vocatives(id, nth, conversation, role, name)``: the ``nth`` distinct name (0,
  1, …, in the order first said) message ``id`` (of ``conversation``, said by ``role``,
  ``user`` or ``assistant``) calls the other side, as written; written at the projection's flush from the stored text
  (private spans removed, secrets redacted), again when the text changes (a later part
  joined), and deleted with the message by a trigger, so forgetting a message forgets
  the names it said.

Who a name belongs to is read at query time (:func:`named_turns`), over every message of
the conversation stored by then: a name learned from a later turn applies to the earlier
turns too, and nothing stored depends on the order messages arrive in, so a rebuild gives
the same rows.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping

from tapestryd.db import in_chunks, translate_errors
from tapestryd.vocatives import vocatives

__all__ = ["OTHER_SIDE", "backfill", "clear", "create_table", "named_turns", "record"]

OTHER_SIDE = {"user": "assistant", "assistant": "user"}
"""The two sides of a conversation: a name one calls is the other's."""

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS message_vocatives (
        id INTEGER NOT NULL, nth INTEGER NOT NULL, conversation TEXT NOT NULL, role TEXT NOT NULL,
        name TEXT NOT NULL, PRIMARY KEY (id, nth)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS message_vocatives_name ON message_vocatives(name COLLATE NOCASE, conversation)",
    """CREATE INDEX IF NOT EXISTS message_vocatives_conversation
        ON message_vocatives(conversation, role, name COLLATE NOCASE)""",
    """CREATE TRIGGER IF NOT EXISTS message_vocatives_ad AFTER DELETE ON messages BEGIN
        DELETE FROM message_vocatives WHERE id = old.id; END""",
]


def create_table(conn: sqlite3.Connection) -> bool:
    """Create ``message_vocatives``, its index and its delete trigger if missing; True when the table was new."""
    new = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'message_vocatives'").fetchone()
    for statement in _SCHEMA:
        conn.execute(statement)
    return new is None


def clear(conn: sqlite3.Connection) -> None:
    """Delete every recorded name."""
    conn.execute("DELETE FROM message_vocatives")


def backfill(conn: sqlite3.Connection, after: int, last: int) -> int:
    """Record the names the stored messages of id ``(after, last]`` call the other side, replacing any recorded
    (a file made before them, :mod:`tapestryd.projections.backfill`); returns how many."""
    return record(conn, conn.execute("SELECT id, text FROM messages WHERE id > ? AND id <= ? ORDER BY id",
                                     (after, last)).fetchall())


def record(conn: sqlite3.Connection, texts: Mapping[int, str] | Iterable[tuple[int, str]]) -> int:
    """Record the names in each ``(message id, stored text)`` of ``texts``, replacing those recorded
    for its earlier text; returns how many names were recorded.

    Only the two sides' messages count (:data:`OTHER_SIDE`); a message not stored is skipped.
    """
    pairs = list(texts.items() if isinstance(texts, Mapping) else texts)
    if not pairs:
        return 0
    _forget_earlier(conn, [i for i, _ in pairs])
    # Each name once a message: "Thanks, John!" is both an opening and a closing to vocatives().
    found = {i: list(dict.fromkeys(names)) for i, text in pairs if (names := vocatives(text))}
    rows = []
    for i, conversation, role in _sides(conn, sorted(found)):
        rows += [(i, nth, conversation, role, name) for nth, name in enumerate(found[i])]
    conn.executemany("INSERT INTO message_vocatives (id, nth, conversation, role, name) VALUES (?, ?, ?, ?, ?)",
                     rows)
    return len(rows)


def _forget_earlier(conn: sqlite3.Connection, ids: list[int]) -> None:
    """Delete the names recorded for those of ``ids`` that have some (a text changed since)."""
    wanted = set(ids)
    held = [(i,) for (i,) in conn.execute("SELECT DISTINCT id FROM message_vocatives WHERE id >= ?", (min(ids),))
            if i in wanted]
    conn.executemany("DELETE FROM message_vocatives WHERE id = ?", held)


def _sides(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, str, str]]:
    """``(id, conversation, role)`` of the messages ``ids`` said by one of the two sides, in id order."""
    out: list[tuple[int, str, str]] = []
    for chunk, marks in in_chunks(ids):
        out += conn.execute(f"SELECT id, conversation, role FROM messages WHERE id IN ({marks})"
                            " AND role IN ('user', 'assistant') ORDER BY id", chunk).fetchall()
    return out


def named_turns(conn: sqlite3.Connection, names: list[str], ids: list[int]) -> dict[int, list[str]]:
    """Which of the messages ``ids`` were said by someone ``names`` name: ``{id: [the names naming its speaker]}``.

    A name (compared without case) names a side of a conversation when both sides call each
    other by some name there (as the summaries' attribution asks, :func:`tapestryd.vocatives.names_by_role`:
    an assistant the user thanks as "Claude" that never names the user is no person in a
    conversation between two) and more messages call that side by it than call the other side by it
    (``Mel`` and ``Melanie`` may both name one side); only the calls made in the conversations
    of ``ids`` are read. Messages
    naming no one's side are left out. Empty when the file has no ``message_vocatives`` yet
    (a read-only connection to an older file). Raises StoreError on a database error.
    """
    if not names or not ids or conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'"
                                            " AND name = 'message_vocatives'").fetchone() is None:
        return {}
    with translate_errors(conn):
        if not _any_called(conn, names):
            return {}
        return _named(conn, names, ids)


def _any_called(conn: sqlite3.Connection, names: list[str]) -> bool:
    """Whether any message calls someone one of ``names`` (one index probe per name)."""
    sql = f"SELECT 1 FROM message_vocatives WHERE name COLLATE NOCASE IN ({','.join('?' * len(names))}) LIMIT 1"
    return conn.execute(sql, names).fetchone() is not None


def _named(conn: sqlite3.Connection, names: list[str], ids: list[int]) -> dict[int, list[str]]:
    """:func:`named_turns` once the table is known to hold one of ``names``: the conversations of ``ids`` only."""
    turns = _sides(conn, ids)
    sides = _named_sides(conn, names, sorted({conv for _, conv, _ in turns}))
    return {i: sides[(conv, role)] for i, conv, role in turns if (conv, role) in sides}


def _named_sides(conn: sqlite3.Connection, names: list[str],
                 conversations: list[str]) -> dict[tuple[str, str], list[str]]:
    """``{(conversation, role): [names]}``: the sides of ``conversations`` that ``names`` name (see
    :func:`named_turns`)."""
    wanted = {name.lower() for name in names}
    calls: Counter[tuple[str, str, str]] = Counter()
    callers: dict[str, set[str]] = {}
    for chunk, marks in in_chunks(conversations):
        sql = (f"SELECT conversation, role, lower(name), count(*) FROM message_vocatives"
               f" WHERE conversation IN ({marks}) GROUP BY conversation, role, name COLLATE NOCASE")
        for conversation, caller, name, n in conn.execute(sql, chunk):
            callers.setdefault(conversation, set()).add(caller)
            if name in wanted:
                calls[(conversation, OTHER_SIDE[caller], name)] += n
    sides: dict[tuple[str, str], list[str]] = {}
    for (conversation, side, name), n in sorted(calls.items()):
        if len(callers[conversation]) == 2 and n > calls[(conversation, OTHER_SIDE[side], name)]:
            sides.setdefault((conversation, side), []).append(name)
    return sides
