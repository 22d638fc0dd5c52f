"""Message windows: each message indexed with the turns just before and after it in its conversation.

A fact is often split over turns: the question names the hike, the reply says when ("we
did it yesterday"). Ranked alone, neither turn holds the question's words; ranked with
its neighbours, the reply does. Search ranks these windows with BM25 and blends the score
into the message's own (:mod:`tapestryd.queries.rerank`).

Tables it owns (in ``projections.db``, kept by
:class:`~tapestryd.projections.messages.MessagesProjection`):

* ``windows_fts_<n>(text)``: the shards, contentless FTS5 tables (``content=''``, the tokenizer
  of ``messages_fts``), shard ``n`` the windows of message ids ``[n, n + 1) *``
  :data:`SHARD_IDS` (fixed by the id, so a rebuild gives the same shards): only the index of
  each window is kept, rowid the message's id, the document the last :data:`NEIGHBOUR_CHARS`
  characters of the previous turn's text, the message's whole text, and the first
  :data:`NEIGHBOUR_CHARS` of the next turn's, joined by newlines (turns ordered by ``(ts, id)``
  within the conversation, as :func:`~tapestryd.projections.messages_search.turns_around`
  reads them). Keeping the text too stored every message three times (the 20 MB bench
  export: 39 of the file's 92 MB). One table for every window made a query's cost grow with
  the index (:data:`SHARD_IDS`).
* ``windows_shards(shard)``: the shards made.
* ``windows_indexed(id, prev, next)``: which turns each indexed window was made of (the
  message, the turns before and after it then; NULL at a conversation's end).
* ``windows_stale(id)``: messages whose window was taken out and must be written again.
* ``windows_format(neighbour_chars, shard_ids, turn_break)``: one row, the :data:`NEIGHBOUR_CHARS`,
  :data:`SHARD_IDS` and :data:`~tapestryd.projections.fts_shards.TURN_BREAK_VERSION` the windows were made
  with; a file without it, or made with others, has its windows
  dropped when the projector opens it (the one ``windows_fts`` of a file made before shards renamed
  ``windows_retired``, emptied a part per backfill chunk and dropped) and written again in the background
  (:mod:`tapestryd.projections.backfill`; a window is taken out with the document it was made of).

A contentless table forgets a document only when given its text back (SQLite 3.40 has no
``contentless_delete``), so a window is taken out while the texts it was made of are still
stored: by :func:`unindex` before a message's text changes, and by a delete trigger on
``messages`` for each window holding a deleted message (whose text the trigger still has; one
statement per shard, made again when a shard is added).
Both mark the windows' other messages stale. So every window in ``windows_indexed`` is its
turns' stored texts, which gives the text to take it out again.

Texts are the messages projection's stored texts (private spans removed, secrets
redacted). :func:`refresh`, run at the projection's flush before the runner commits,
writes the window of each stored or changed message, of its neighbours and of each stale
message, taking the old ones out first, so a forgotten message's text is not found through
a neighbour's window. A window depends only on the messages stored, so a rebuild gives the
same index.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from itertools import groupby

from tapestryd.db import in_chunks
from tapestryd.projections import fts_options
from tapestryd.projections.fts_shards import TURN_BREAK, TURN_BREAK_VERSION, FtsShards, exists

__all__ = ["NEIGHBOUR_CHARS", "SHARD_IDS", "WINDOW_BOUND", "backfill", "clear", "create_tables", "refresh",
           "shard_tables", "unindex", "window_scores"]

NEIGHBOUR_CHARS = 500
"""Characters of each neighbouring turn a window holds: the end of the turn before, the start of the turn after
(the message itself is whole). A conversational turn is shorter (the LoCoMo dev split's longest is 434, so its
windows are whole); a long reply or pasted file next to a short question no longer puts all its words into the
question's window, where they were tokenized a second and third time: window text of the 20 MB bench export
28.8 -> 18.6 MB, of the 200 Claude Code sessions 13.6 -> 7.4 MB."""

WINDOW_BOUND = 1_000
"""Windows ranked for one query at most: when more match, only those of the most recently stored
messages compete (the bound :mod:`tapestryd.projections.messages_search` puts on messages)."""

SHARD_IDS = 1 << 16
"""Message ids per shard of the windows' index: the window of message ``id`` is a document of table
``windows_fts_<id // SHARD_IDS>``. FTS5's ``bm25()`` walks every match of each of the query's phrases in its table
once per statement to count their documents (the idf), so on one table the cost of ranking even the
:data:`WINDOW_BOUND` newest windows grew with the whole index; ranked shard by shard, newest first, until the bound
is filled, it grows with a shard (see :func:`window_scores`). ``window_scores`` of the bench's 60 queries
(``bench/search_bench.py``, CPU, best of 3): 1M messages, one table median 7.3–10.6 ms, p95 14.6–19.2; 16 shards
2.1–3.3, p95 3.7–4.7; 100k (one table, or a shard of 65,536 and one of 34,464) 3.0–3.2 either way. Recall on the
dev split unchanged (one shard)."""

_CHUNK = 4096
_WRITE_CHUNK = 512
"""Windows written per statement: each holds three turns' text, so 4096 at once held ~22 MB of rows and documents
(20 MB ChatGPT export: projector peak RSS 149 -> 135 MB with this and blocks' chunk, same CPU)."""


def _text_of(member: str) -> str:
    """SQL for the stored text of message ``member`` (a column), or of the row a trigger deletes: '' for none."""
    return (f"COALESCE(CASE {member} WHEN old.id THEN old.text"
            f" ELSE (SELECT t.text FROM messages t WHERE t.id = {member}) END, '')")


def _joined(before: str, text: str, after: str) -> str:
    """SQL joining three texts as :func:`_document` does: the end of ``before`` and the start of ``after``
    (:data:`NEIGHBOUR_CHARS` characters each; SQLite's ``substr`` counts characters as Python's slices do),
    the non-empty ones, :data:`~tapestryd.projections.fts_shards.TURN_BREAK` between."""
    before, after = f"substr({before}, -{NEIGHBOUR_CHARS})", f"substr({after}, 1, {NEIGHBOUR_CHARS})"
    brk = f"char({', '.join(str(ord(c)) for c in TURN_BREAK)})"
    return (f"{before} || CASE WHEN {before} != '' AND ({text} != '' OR {after} != '') THEN {brk} ELSE '' END"
            f" || {text} || CASE WHEN {text} != '' AND {after} != '' THEN {brk} ELSE '' END || {after}")


_RETIRED = "windows_retired"
"""The ``windows_fts`` of a file whose windows were made with another cut, until the backfill drops it."""

_RETIRE_ROWS = 5000
"""Rows of each large shadow table of :data:`_RETIRED` deleted per backfill chunk (:func:`fts_options.retire`)."""

_HOLDS_OLD = "w.id = old.id OR w.prev = old.id OR w.next = old.id"
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS windows_indexed (id INTEGER PRIMARY KEY, prev INTEGER, next INTEGER)",
    "CREATE INDEX IF NOT EXISTS windows_indexed_prev ON windows_indexed(prev)",
    "CREATE INDEX IF NOT EXISTS windows_indexed_next ON windows_indexed(next)",
    "CREATE TABLE IF NOT EXISTS windows_stale (id INTEGER PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS windows_format (neighbour_chars INTEGER NOT NULL, shard_ids INTEGER NOT NULL,"
    " turn_break INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS windows_shards (shard INTEGER PRIMARY KEY)",
]


_SHARDS = FtsShards("windows_fts", "windows_shards", "text, content=''")
"""Shard ``n`` holds the windows of message ids ``[n, n + 1) * SHARD_IDS``."""


def shard_tables(conn: sqlite3.Connection) -> list[str]:
    """The FTS5 tables holding windows, newest shard first (:meth:`FtsShards.tables`)."""
    return _SHARDS.tables(conn)


def _make_trigger(conn: sqlite3.Connection) -> None:
    """(Re)make the delete trigger on ``messages``: each window holding a deleted message is taken out of its
    shard with the text it was made of (the deleted row's own text from the trigger), its other messages are
    marked stale. One trigger with a statement per shard, so the windows are taken out before their rows go."""
    conn.execute("DROP TRIGGER IF EXISTS windows_message_deleted")
    joined = _joined(_text_of("w.prev"), _text_of("w.id"), _text_of("w.next"))
    # ``+w.id``: the shard's range must not steer SQLite from the three indexed lookups to a scan of the range.
    outs = "".join(f"""
        INSERT INTO {t} ({t}, rowid, text) SELECT 'delete', w.id, {joined} FROM windows_indexed w
            WHERE ({_HOLDS_OLD}) AND +w.id BETWEEN {k * SHARD_IDS} AND {(k + 1) * SHARD_IDS - 1};"""
                   for k, t in ((k, _SHARDS.table(k)) for k in _SHARDS.shards(conn)))
    conn.execute(f"""CREATE TRIGGER windows_message_deleted AFTER DELETE ON messages
        WHEN EXISTS (SELECT 1 FROM windows_indexed w WHERE {_HOLDS_OLD}) BEGIN{outs}
        INSERT OR IGNORE INTO windows_stale (id)
            SELECT w.id FROM windows_indexed w WHERE ({_HOLDS_OLD}) AND w.id != old.id;
        DELETE FROM windows_indexed WHERE id = old.id OR prev = old.id OR next = old.id; END""")


def _ensure_shards(conn: sqlite3.Connection, shards: set[int]) -> None:
    """Make the FTS5 tables of ``shards`` that are missing, and the delete trigger again when one was."""
    if _SHARDS.ensure(conn, shards):
        _make_trigger(conn)


def _around(column: str) -> str:
    """Two SQL columns: ``column`` of the turn before and of the turn after message ``g``, in its conversation."""
    return (f"(SELECT p.{column} FROM messages p WHERE p.conversation = g.conversation"
            f" AND (p.ts, p.id) < (g.ts, g.id) ORDER BY p.ts DESC, p.id DESC LIMIT 1),"
            f" (SELECT n.{column} FROM messages n WHERE n.conversation = g.conversation"
            f" AND (n.ts, n.id) > (g.ts, g.id) ORDER BY n.ts, n.id LIMIT 1)")


def _document(before: str | None, text: str, after: str | None) -> str:
    """A window's document: the last :data:`NEIGHBOUR_CHARS` characters of the turn before, the message's text
    and the first :data:`NEIGHBOUR_CHARS` of the turn after, the non-empty ones joined by
    :data:`~tapestryd.projections.fts_shards.TURN_BREAK` (no phrase matches across two turns)."""
    return TURN_BREAK.join(t for t in (before and before[-NEIGHBOUR_CHARS:], text, after and after[:NEIGHBOUR_CHARS])
                           if t)


def create_tables(conn: sqlite3.Connection) -> bool:
    """Create the tables and the delete trigger if missing; True when the windows must be written (none are
    indexed: a new file, one made before windows, one whose ``windows_fts`` kept their text, or one whose windows
    were made with other than :data:`NEIGHBOUR_CHARS` or :data:`SHARD_IDS`: their tables are dropped here)."""
    made = conn.execute("SELECT * FROM windows_format").fetchall() if exists(conn, "windows_format") else []
    if made != [(NEIGHBOUR_CHARS, SHARD_IDS, TURN_BREAK_VERSION)] or not exists(conn, "windows_indexed"):
        conn.execute("DROP TRIGGER IF EXISTS windows_ad")
        conn.execute("DROP TRIGGER IF EXISTS windows_message_deleted")
        if exists(conn, "windows_fts") and not exists(conn, _RETIRED):  # renamed now, dropped by the backfill:
            conn.execute(f"ALTER TABLE windows_fts RENAME TO {_RETIRED}")  # a DROP frees every page (1 s at 100k)
        _SHARDS.drop(conn)  # shards of another size (none was ever shipped): dropped at once
        for table in ("windows_fts", "windows_indexed", "windows_stale", "windows_gone", "windows_format",
                      "windows_shards"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    new = not exists(conn, "windows_indexed")
    for statement in _SCHEMA:
        conn.execute(statement)
    if new:
        conn.execute("INSERT INTO windows_format (neighbour_chars, shard_ids, turn_break) VALUES (?, ?, ?)",
                     (NEIGHBOUR_CHARS, SHARD_IDS, TURN_BREAK_VERSION))
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'windows_message_deleted'"
                        ).fetchone():
        _make_trigger(conn)
    return new


def clear(conn: sqlite3.Connection) -> None:
    """Drop every window (call it before deleting the messages: the delete trigger then has nothing to take out).

    The shards' tables are dropped: taking each window out would need its text.
    """
    _SHARDS.drop(conn)
    conn.execute(f"DROP TABLE IF EXISTS {_RETIRED}")
    conn.execute("DELETE FROM windows_indexed")
    conn.execute("DELETE FROM windows_stale")
    _make_trigger(conn)


def backfill(conn: sqlite3.Connection, after: int, last: int) -> int:
    """Write the window of each stored message of id ``(after, last]`` not indexed yet (a file made before
    windows or with another cut, :mod:`tapestryd.projections.backfill`; a flush meanwhile wrote those of new
    messages and their neighbours); returns how many were written. Each chunk also takes a part of the windows
    of the older cut away (:func:`create_tables` set them aside), the last one what is left."""
    fts_options.retire(conn, _RETIRED, _RETIRE_ROWS,
                       whole=last >= int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0]))
    ids = [int(i) for (i,) in conn.execute("SELECT id FROM messages m WHERE id > ? AND id <= ? AND NOT EXISTS"
                                           " (SELECT 1 FROM windows_indexed w WHERE w.id = m.id) ORDER BY id",
                                           (after, last))]
    return _write(conn, ids)


def unindex(conn: sqlite3.Connection, message_ids: Iterable[int]) -> None:
    """Take out the windows holding any of ``message_ids`` (messages whose text is about to change), while their
    texts are still the stored ones; the next :func:`refresh` writes them again."""
    ids = sorted(set(message_ids))
    for start in range(0, len(ids), _CHUNK // 3):
        chunk = ids[start:start + _CHUNK // 3]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT id, prev, next FROM windows_indexed WHERE id IN ({marks}) OR prev IN ({marks})"
                            f" OR next IN ({marks})", chunk * 3).fetchall()
        _take_out(conn, rows)
        conn.executemany("INSERT OR IGNORE INTO windows_stale (id) VALUES (?)", [(row[0],) for row in rows])


def refresh(conn: sqlite3.Connection, changed: Iterable[int]) -> int:
    """Write again the windows that ``changed`` (ids of messages stored or whose text changed) touch, and the
    stale ones; returns how many windows were written.

    A changed message's window and its neighbours' are written, and the window of each
    message marked stale (by :func:`unindex` or the delete trigger); their old documents are
    taken out first.
    """
    ids = sorted(set(changed))
    touched: set[int] = set(ids)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start:start + _CHUNK]
        sql = f"SELECT {_around('id')} FROM messages g WHERE g.id IN ({','.join('?' * len(chunk))})"
        touched.update(int(n) for row in conn.execute(sql, chunk) for n in row if n is not None)
    touched.update(int(i) for (i,) in conn.execute("SELECT id FROM windows_stale"))
    conn.execute("DELETE FROM windows_stale")
    order = sorted(touched)
    for start in range(0, len(order), _CHUNK):
        chunk = order[start:start + _CHUNK]
        _take_out(conn, conn.execute(f"SELECT id, prev, next FROM windows_indexed"
                                     f" WHERE id IN ({','.join('?' * len(chunk))})", chunk).fetchall())
    return _write(conn, order)


def _take_out(conn: sqlite3.Connection, rows: list[tuple[int, int | None, int | None]]) -> None:
    """Take windows ``(id, prev, next)`` of ``windows_indexed`` out of the index, their documents rebuilt from the
    stored texts (a text missing raises KeyError: a window would stay findable)."""
    if not rows:
        return
    members = sorted({int(m) for row in rows for m in row if m is not None})
    texts: dict[int, str] = {}
    for start in range(0, len(members), _CHUNK):
        chunk = members[start:start + _CHUNK]
        texts.update(conn.execute(f"SELECT id, text FROM messages WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    for shard, part in groupby(sorted(rows), lambda row: row[0] // SHARD_IDS):
        table = _SHARDS.table(shard)
        conn.executemany(f"INSERT INTO {table} ({table}, rowid, text) VALUES ('delete', ?, ?)",
                         [(i, _document(None if p is None else texts[p], texts[i], None if n is None else texts[n]))
                          for i, p, n in part])
    conn.executemany("DELETE FROM windows_indexed WHERE id = ?", [(row[0],) for row in rows])


def _write(conn: sqlite3.Connection, ids: list[int]) -> int:
    """Write the windows of messages ``ids`` (stored ones; others are left out), none of them indexed now;
    returns how many were written."""
    written = 0
    for start in range(0, len(ids), _WRITE_CHUNK):
        chunk = ids[start:start + _WRITE_CHUNK]
        rows = conn.execute(f"SELECT g.id, g.text, {_around('id')} FROM messages g"
                            f" WHERE g.id IN ({','.join('?' * len(chunk))}) ORDER BY g.id", chunk).fetchall()
        # A neighbour is mostly in the chunk too (a batch's turns are written together): its text is read
        # once, by id, only when it is not (two lookups in the (conversation, ts) index per window, not four).
        texts: dict[int | None, str] = {i: text for i, text, _, _ in rows}
        outside = sorted({n for _, _, *around in rows for n in around if n is not None and n not in texts})
        for part, marks in in_chunks(outside, _CHUNK):
            texts.update(conn.execute(f"SELECT id, text FROM messages WHERE id IN ({marks})", part))
        _ensure_shards(conn, {int(row[0]) // SHARD_IDS for row in rows})
        for shard, members in groupby(rows, lambda row: int(row[0]) // SHARD_IDS):  # rows in id order
            conn.executemany(f"INSERT INTO {_SHARDS.table(shard)} (rowid, text) VALUES (?, ?)",
                             [(i, _document(texts.get(prev), text, texts.get(following)))
                              for i, text, prev, following in members])
        conn.executemany("INSERT INTO windows_indexed (id, prev, next) VALUES (?, ?, ?)",
                         [(i, prev, following) for i, _, prev, following in rows])
        written += len(rows)
    return written


def window_scores(conn: sqlite3.Connection, expr: str, limit: int) -> dict[int, float]:
    """``{message id: -bm25}`` of the ``limit`` best windows matching FTS5 expression ``expr`` (higher is
    better), among the :data:`WINDOW_BOUND` newest matching ones.

    The shards are ranked newest first until the bound is filled, each with its own idf (a
    word's documents counted in its shard: a shard is :data:`SHARD_IDS` messages, so its
    words' shares are the index's but for chance). Empty when the file has no windows table
    yet (a read-only connection to an older file).
    """
    return _SHARDS.newest_scores(conn, expr, WINDOW_BOUND, limit) if expr else {}
