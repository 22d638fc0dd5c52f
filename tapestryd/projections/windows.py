"""Message windows: each message indexed with the turns just before and after it in its conversation.

A fact is often split over turns: the question names the hike, the reply says when ("we
did it yesterday"). Ranked alone, neither turn holds the question's words; ranked with
its neighbours, the reply does. Search ranks these windows with BM25 and blends the score
into the message's own (:mod:`tapestryd.queries.rerank`).

Tables it owns (in ``projections.db``, kept by
:class:`~tapestryd.projections.messages.MessagesProjection`):

* ``windows_fts(text)``: an FTS5 table (the tokenizer of ``messages_fts``), rowid the
  message's id, text the previous turn's text, the message's, and the next turn's, joined
  by newlines (turns ordered by ``(ts, id)`` within the conversation, as
  :func:`~tapestryd.projections.messages_search.turns_around` reads them).
* ``windows_gone(id, conversation, ts)``: messages deleted since the last flush, filled by
  a delete trigger on ``messages``.

Texts are the messages projection's stored texts (private spans removed, secrets
redacted). :func:`refresh`, run at the projection's flush before the runner commits,
writes the window of each stored or changed message and of its neighbours, drops the
window of each deleted message and writes its former neighbours' windows again, so a
forgotten message's text is not found through a neighbour's window. A window depends only
on the messages stored, so a rebuild gives the same rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from tapestryd.projections import fts_options

__all__ = ["WINDOW_BOUND", "backfill", "clear", "create_tables", "refresh", "window_scores"]

WINDOW_BOUND = 1_000
"""Windows ranked for one query at most: when more match, only those of the most recently stored
messages compete (the bound :mod:`tapestryd.projections.messages_search` puts on messages)."""

_CHUNK = 4096

_SCHEMA = [
    """CREATE VIRTUAL TABLE IF NOT EXISTS windows_fts USING fts5(
        text, tokenize='porter unicode61 remove_diacritics 2')""",
    "CREATE TABLE IF NOT EXISTS windows_gone (id INTEGER PRIMARY KEY, conversation TEXT NOT NULL, ts TEXT NOT NULL)",
    """CREATE TRIGGER IF NOT EXISTS windows_ad AFTER DELETE ON messages BEGIN
        INSERT OR REPLACE INTO windows_gone (id, conversation, ts) VALUES (old.id, old.conversation, old.ts); END""",
]



def _around(column: str, conversation: str = "g.conversation", ts: str = "g.ts", message: str = "g.id") -> str:
    """Two SQL columns: ``column`` of the turn before and of the turn after a message, in its conversation."""
    return (f"(SELECT p.{column} FROM messages p WHERE p.conversation = {conversation}"
            f" AND (p.ts, p.id) < ({ts}, {message}) ORDER BY p.ts DESC, p.id DESC LIMIT 1),"
            f" (SELECT n.{column} FROM messages n WHERE n.conversation = {conversation}"
            f" AND (n.ts, n.id) > ({ts}, {message}) ORDER BY n.ts, n.id LIMIT 1)")


def create_tables(conn: sqlite3.Connection) -> bool:
    """Create the tables and the delete trigger if missing; True when ``windows_fts`` was new."""
    return fts_options.create(conn, _SCHEMA, "windows_fts", "windows_fts")


def clear(conn: sqlite3.Connection) -> None:
    """Delete every window and every pending deletion.

    ``windows_fts`` is dropped and made again: a DELETE of its rows reads every window back to take
    its terms out of the index (1.1 s CPU for 10,638 windows of the 20 MB bench export).
    """
    conn.execute("DROP TABLE windows_fts")
    create_tables(conn)
    conn.execute("DELETE FROM windows_gone")


def backfill(conn: sqlite3.Connection) -> int:
    """Write the window of every stored message (a file made before windows); returns how many."""
    ids = [int(i) for (i,) in conn.execute("SELECT id FROM messages ORDER BY id")]
    _write(conn, ids, fresh=True)
    return len(ids)


def refresh(conn: sqlite3.Connection, changed: Iterable[int]) -> int:
    """Write again the windows that ``changed`` (ids of messages stored or whose text changed) and the
    deletions since the last call touch; returns how many windows were written.

    A changed message's window and its neighbours' are written; a deleted message's window is
    dropped and its former neighbours' (the turns now around where it was) are written.
    """
    ids = sorted(set(changed))
    touched: set[int] = set(ids)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        sql = (f"SELECT {_around('id')} FROM messages g"
               f" WHERE g.id IN ({','.join('?' * len(chunk))})")
        touched.update(int(n) for row in conn.execute(sql, chunk) for n in row if n is not None)
    gone = conn.execute("SELECT id, conversation, ts FROM windows_gone ORDER BY id").fetchall()
    for message_id, conversation, ts in gone:
        row = conn.execute(f"SELECT {_around('id', '?', '?', '?')}",
                           (conversation, ts, message_id, conversation, ts, message_id)).fetchone()
        touched.update(int(n) for n in row if n is not None)
    conn.executemany("DELETE FROM windows_fts WHERE rowid = ?", [(i,) for i, _, _ in gone])
    conn.execute("DELETE FROM windows_gone")
    touched.difference_update(i for i, _, _ in gone)
    _write(conn, sorted(touched), fresh=False)
    return len(touched)


def _write(conn: sqlite3.Connection, ids: list[int], *, fresh: bool) -> None:
    """Write the windows of messages ``ids`` (stored ones; others are left out), old rows deleted first
    unless ``fresh`` (none can exist)."""
    if not fresh:
        conn.executemany("DELETE FROM windows_fts WHERE rowid = ?", [(i,) for i in ids])
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        sql = (f"SELECT g.id, g.text, {_around('text')} FROM messages g WHERE g.id IN ({','.join('?' * len(chunk))})"
               " ORDER BY g.id")
        rows = conn.execute(sql, chunk).fetchall()
        conn.executemany("INSERT INTO windows_fts (rowid, text) VALUES (?, ?)",
                         [(i, "\n".join(t for t in (before, text, after) if t)) for i, text, before, after in rows])


def window_scores(conn: sqlite3.Connection, expr: str, limit: int) -> dict[int, float]:
    """``{message id: -bm25}`` of the ``limit`` best windows matching FTS5 expression ``expr`` (higher is
    better), among the :data:`WINDOW_BOUND` newest matching ones.

    Empty when the file has no windows table yet (a read-only connection to an older file).
    """
    if not expr or conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'windows_fts'"
                                ).fetchone() is None:
        return {}
    # One walk of the newest matches, scoring each (a first walk to find the bound's start, then a
    # second to score the matches past it, read the same posting lists twice).
    rows = conn.execute("SELECT rowid, score FROM (SELECT rowid, bm25(windows_fts) AS score FROM windows_fts"
                        " WHERE windows_fts MATCH ? ORDER BY rowid DESC LIMIT ?) ORDER BY score, rowid LIMIT ?",
                        (expr, WINDOW_BOUND, limit))
    return {int(i): -float(score) for i, score in rows}
