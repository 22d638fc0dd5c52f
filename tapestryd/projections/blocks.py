"""Conversation blocks: runs of a conversation's messages indexed together as one FTS5 document.

A question's words are often spread over a conversation's turns, none holding them all
(one turn names the person, the reply names the place). Search scores each block with
BM25, the block as the document, and blends that score into its messages' scores
(:mod:`tapestryd.queries.rerank`), so a turn of the block that holds the question's words
between its turns ranks higher.

A block is up to :data:`BLOCK_SIZE` messages of one conversation, filled in the order
messages are stored (log order): a conversation's newest block takes each new message
until it is full, then a new block starts. A short chat is then one document; a Claude
Code session of thousands of turns is many, so a new turn re-indexes one block of at most
:data:`BLOCK_SIZE` messages, never the whole session.

A block that only grew (messages appended, or a message's text lengthened by a streamed part
joined after it, none changed otherwise or gone) and is not full may wait:
its old document stays indexed until the projector settles
(:meth:`~tapestryd.projections.runner.Projector.settle`: at the end of every catch-up but the
daemon's, which settles once its writer is idle), so a session tailed turn by turn has its
open block tokenized once per idle spell, not once per line (each time twice: the old
document out, the new one in). The document is written at once when the block fills, when
a message of it goes (forgotten text never waits) or its text changes other than by growing
at its end (a redaction of the joined text), and when its size reaches a power of two, so a
waiting document always holds at least half of its block's messages, each as a beginning of
its stored text.
Settled, the documents are those a rebuild writes.

Tables it owns (in ``projections.db``, kept by
:class:`~tapestryd.projections.messages.MessagesProjection`):

* ``conversation_blocks(id, conversation, size, dirty)``: one row per block; ``size`` its
  messages now; ``dirty`` 1 while its document must be indexed again at the next flush,
  2 while it only grew and may wait for the projector to settle, 0 when it is indexed.
* ``block_members(message_id, block)``: which block each message is in.
* ``blocks_fts_<n>(text)``: the shards, FTS5 tables (the tokenizer of ``messages_fts``), shard
  ``n`` the documents of block ids ``[n, n + 1) *`` :data:`SHARD_BLOCKS` (fixed by the id, so a
  rebuild gives the same shards), rowid the block's id, text its messages' texts in id order,
  joined by :data:`~tapestryd.projections.fts_shards.TURN_BREAK` (no phrase matches across two turns).
  One table for every block made a query's cost grow with the index
  (:data:`SHARD_BLOCKS`); a file made with one (``blocks_fts``) has it set aside when the
  projector opens it (renamed ``blocks_retired``, emptied a part per backfill chunk and
  dropped) and its messages filed again in the background (:mod:`tapestryd.projections.backfill`).
* ``blocks_shards(shard)``: the shards made.
* ``blocks_format(shard_blocks, turn_break)``: one row, the :data:`SHARD_BLOCKS` the shards were made with
  and the :data:`~tapestryd.projections.fts_shards.TURN_BREAK_VERSION` of their documents; a file made with
  another has its blocks filed again.

A message's text is as the messages projection stores it (private spans removed, secrets
redacted). A deleted message (forgotten, or a compacted one dropped) leaves its block
through a delete trigger on ``messages``, which marks the block dirty; :func:`index_dirty`
(run at the projection's flush, before the runner commits) writes the block again from
the messages left, or drops it when none is, so forgotten text cannot be found through a
neighbour's block. Blocks are numbered and filled in log order, so a rebuild gives the
same rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from itertools import groupby
from operator import itemgetter

from tapestryd.db import in_chunks
from tapestryd.projections import fts_options
from tapestryd.projections.fts_shards import TURN_BREAK, TURN_BREAK_VERSION, FtsShards, exists

__all__ = ["BLOCK_SIZE", "BLOCK_WINDOW", "SHARD_BLOCKS", "backfill", "block_scores", "blocks_of", "clear",
           "create_tables", "file_messages", "index_dirty", "mark_dirty", "shard_tables", "waiting"]

_URGENT, _GROWN = 1, 2
"""``conversation_blocks.dirty``: indexed at the next flush; grown, indexed when the projector settles."""

BLOCK_SIZE = 64
"""Messages in one block at most: a tailed turn re-indexes at most this many messages' text."""

BLOCK_WINDOW = 1000
"""Blocks ranked for one query at most: when more match, only the most recently made ones compete
(the bound :mod:`tapestryd.projections.messages_search` puts on messages; bm25 keeps its idf over every block)."""

SHARD_BLOCKS = 1 << 15
"""Blocks per shard of the blocks' index: block ``id``'s document is in table ``blocks_fts_<id // SHARD_BLOCKS>``.
FTS5's ``bm25()`` walks every match of each of the query's phrases in its table once per statement to count
their documents (the idf), so on one table ranking even the :data:`BLOCK_WINDOW` newest blocks grew with the
whole index; ranked shard by shard, newest first, until the bound is filled, it grows with a shard.
``block_scores`` of the bench's 60 queries (``bench/search_bench.py``, CPU, best of 3) at 1M messages (83,334 blocks):
one table median 4.1–4.2 ms, p95 8.2–8.8; three shards of 32,768 median 2.7–3.4, p95 4.7–5.3 (search's top 10 the
same set as with one table for 54 of 60 queries, mean overlap 97.5%: idf from the newest shards); 100k (one shard)
unchanged. Shards of 4,096 (21 at 1M, the newest of 1,414 blocks) fell to 86% overlap."""

_RETIRED = "blocks_retired"
"""The one ``blocks_fts`` of a file made before shards, until the backfill drops it."""

_RETIRE_ROWS = 5000
"""Rows of each large shadow table of :data:`_RETIRED` deleted per backfill chunk (:func:`fts_options.retire`)."""

_INDEX_CHUNK = 64
"""Blocks indexed per statement: up to 64 messages' text each (4096 blocks at once held a whole batch's text twice)."""

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS conversation_blocks (
        id INTEGER PRIMARY KEY, conversation TEXT NOT NULL, size INTEGER NOT NULL, dirty INTEGER NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS conversation_blocks_conversation ON conversation_blocks(conversation, id)",
    # Blocks to index, urgent or grown (a file made before grown blocks had an index of the urgent ones only).
    "DROP INDEX IF EXISTS conversation_blocks_dirty",
    "CREATE INDEX IF NOT EXISTS conversation_blocks_pending ON conversation_blocks(dirty) WHERE dirty > 0",
    "CREATE TABLE IF NOT EXISTS block_members (message_id INTEGER PRIMARY KEY, block INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS block_members_block ON block_members(block)",
    "CREATE TABLE IF NOT EXISTS blocks_shards (shard INTEGER PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS blocks_format (shard_blocks INTEGER NOT NULL, turn_break INTEGER NOT NULL)",
    """CREATE TRIGGER IF NOT EXISTS block_members_ad AFTER DELETE ON messages BEGIN
        UPDATE conversation_blocks SET size = size - 1, dirty = 1
            WHERE id = (SELECT block FROM block_members WHERE message_id = old.id);
        DELETE FROM block_members WHERE message_id = old.id; END""",
]


def create_tables(conn: sqlite3.Connection) -> bool:
    """Create the tables, indexes and delete trigger if missing; True when ``conversation_blocks`` was new (the
    file predates blocks, or their shards of :data:`SHARD_BLOCKS`: its one ``blocks_fts`` is set aside as
    :data:`_RETIRED`, shards of another size are dropped, and its blocks are filed again by the backfill)."""
    made = conn.execute("SELECT * FROM blocks_format").fetchall() if exists(conn, "blocks_format") else []
    if made != [(SHARD_BLOCKS, TURN_BREAK_VERSION)]:
        if exists(conn, "blocks_fts") and not exists(conn, _RETIRED):  # renamed now, dropped by the backfill:
            conn.execute(f"ALTER TABLE blocks_fts RENAME TO {_RETIRED}")  # a DROP frees every page at once
        for table in ("blocks_fts", "conversation_blocks", "block_members", "blocks_format"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
    new = not exists(conn, "conversation_blocks")
    if new:  # the shards of blocks filed again (their ids may change)
        _SHARDS.drop(conn)
    for statement in _SCHEMA:
        conn.execute(statement)
    if not conn.execute("SELECT 1 FROM blocks_format").fetchone():
        conn.execute("INSERT INTO blocks_format (shard_blocks, turn_break) VALUES (?, ?)",
                     (SHARD_BLOCKS, TURN_BREAK_VERSION))
    return new


_SHARDS = FtsShards("blocks_fts", "blocks_shards", "text")
"""Shard ``n`` holds the documents of block ids ``[n, n + 1) * SHARD_BLOCKS``."""


def shard_tables(conn: sqlite3.Connection) -> list[str]:
    """The FTS5 tables holding blocks, newest shard first (:meth:`FtsShards.tables`)."""
    return _SHARDS.tables(conn)


def clear(conn: sqlite3.Connection) -> None:
    """Delete every block, membership and indexed document.

    The shards' tables are dropped: a DELETE of their rows reads every document back to take
    its terms out of the index.
    """
    conn.execute("DELETE FROM block_members")
    conn.execute("DELETE FROM conversation_blocks")
    _SHARDS.drop(conn)
    conn.execute(f"DROP TABLE IF EXISTS {_RETIRED}")


def backfill(conn: sqlite3.Connection, after: int, last: int) -> int:
    """File the stored messages of id ``(after, last]`` into blocks, in id order, and index the blocks made dirty
    (a file made before blocks or their shards, :mod:`tapestryd.projections.backfill`: every message before them
    is filed, none after them is). Returns how many messages were filed. Each chunk also takes a part of the
    blocks' index of a file made before shards away (:func:`create_tables` set it aside), the last one what is
    left.
    """
    fts_options.retire(conn, _RETIRED, _RETIRE_ROWS,
                       whole=last >= int(conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0]))
    count = file_messages(conn, conn.execute("SELECT id, conversation FROM messages WHERE id > ? AND id <= ?"
                                             " ORDER BY id", (after, last)).fetchall())
    index_dirty(conn)
    return count


def file_messages(conn: sqlite3.Connection, messages: Iterable[tuple[int, str]]) -> int:
    """File newly stored messages ``(id, conversation key)``, in the order given, into their
    conversation's newest block (a new one when it is full or none exists), marking those blocks to index:
    at the next flush when they filled or reached a power of two, else when the projector settles
    (an urgent mark stays urgent).

    The messages must not be filed yet (each id is filed once). Returns how many were filed.
    """
    open_blocks: dict[str, list[int]] = {}  # conversation -> [block id, size]
    members: list[tuple[int, int]] = []
    sizes: dict[int, int] = {}  # block id -> its size after this call
    for message_id, conversation in messages:
        block = open_blocks.get(conversation)
        if block is None:
            row = conn.execute("SELECT id, size FROM conversation_blocks WHERE conversation = ?"
                               " ORDER BY id DESC LIMIT 1", (conversation,)).fetchone()
            block = open_blocks[conversation] = [int(row[0]), int(row[1])] if row else [0, BLOCK_SIZE]
        if block[1] >= BLOCK_SIZE:
            cur = conn.execute("INSERT INTO conversation_blocks (conversation, size, dirty) VALUES (?, 0, 0)",
                               (conversation,))
            block[0], block[1] = int(cur.lastrowid or 0), 0
        members.append((message_id, block[0]))
        block[1] += 1
        sizes[block[0]] = block[1]
    conn.executemany("INSERT INTO block_members (message_id, block) VALUES (?, ?)", members)
    conn.executemany(f"UPDATE conversation_blocks SET size = ?, dirty = CASE WHEN dirty = {_URGENT} OR ?"
                     f" THEN {_URGENT} ELSE {_GROWN} END WHERE id = ?",
                     [(size, _due(size), block) for block, size in sorted(sizes.items())])
    return len(members)


def _due(size: int) -> bool:
    """Whether a block that grew to ``size`` messages is indexed at once: full, or a power of two."""
    return size >= BLOCK_SIZE or size & (size - 1) == 0


def mark_dirty(conn: sqlite3.Connection, message_ids: Iterable[int], *, grown: bool = False) -> None:
    """Mark the blocks of messages whose text changed (a later part joined) to be indexed again: at the
    next flush, or when the projector settles if ``grown`` (each new text begins with the text it replaces,
    so the waiting document holds no word the block lost; an urgent mark stays urgent)."""
    dirty = f"CASE WHEN dirty = {_URGENT} THEN {_URGENT} ELSE {_GROWN} END" if grown else str(_URGENT)
    conn.executemany(f"UPDATE conversation_blocks SET dirty = {dirty}"
                     " WHERE id = (SELECT block FROM block_members WHERE message_id = ?)",
                     [(i,) for i in message_ids])


def waiting(conn: sqlite3.Connection) -> bool:
    """Whether a block is marked to index (one look in the partial index of those)."""
    return conn.execute("SELECT 1 FROM conversation_blocks WHERE dirty > 0 LIMIT 1").fetchone() is not None


def index_dirty(conn: sqlite3.Connection, *, grown: bool = True) -> int:
    """Index the blocks marked to index again from their messages' stored texts (dropping an emptied
    block); returns how many. ``grown`` False leaves the blocks that only grew (see the module doc).

    Old documents are deleted first and the new ones inserted after, in block id order.
    """
    wanted = "" if grown else f" AND dirty = {_URGENT}"
    # Sorted here: ORDER BY id made SQLite scan the table in id order instead of the partial index.
    dirty = sorted(int(i) for (i,) in conn.execute(f"SELECT id FROM conversation_blocks WHERE dirty > 0{wanted}"))
    if not dirty:
        return 0
    _SHARDS.ensure(conn, {i // SHARD_BLOCKS for i in dirty})
    for shard, members in groupby(dirty, lambda i: i // SHARD_BLOCKS):
        conn.executemany(f"DELETE FROM {_SHARDS.table(shard)} WHERE rowid = ?", [(i,) for i in members])
    for start in range(0, len(dirty), _INDEX_CHUNK):  # one read of the chunk's members, not one per block
        chunk = dirty[start:start + _INDEX_CHUNK]
        rows = conn.execute("SELECT b.block, m.text FROM block_members b JOIN messages m ON m.id = b.message_id"
                            f" WHERE b.block IN ({','.join('?' * len(chunk))}) ORDER BY b.block, m.id", chunk)
        documents = [(block, TURN_BREAK.join(text for _, text in members))
                     for block, members in groupby(rows, itemgetter(0))]
        for shard, part in groupby(documents, lambda document: int(document[0]) // SHARD_BLOCKS):
            conn.executemany(f"INSERT INTO {_SHARDS.table(shard)} (rowid, text) VALUES (?, ?)", part)
    for done, marks in in_chunks(dirty, 8192):
        conn.execute(f"DELETE FROM conversation_blocks WHERE id IN ({marks}) AND size <= 0", done)
        conn.execute(f"UPDATE conversation_blocks SET dirty = 0 WHERE id IN ({marks})", done)
    return len(dirty)


def block_scores(conn: sqlite3.Connection, expr: str, limit: int) -> dict[int, float]:
    """``{block id: -bm25}`` of the ``limit`` best blocks matching FTS5 expression ``expr`` (higher is better),
    among the :data:`BLOCK_WINDOW` newest matching blocks.

    The shards are ranked newest first until the bound is filled, each with its own idf (a
    word's blocks counted in its shard). Empty when the file has no blocks table yet (a
    read-only connection to an older file).
    """
    return _SHARDS.newest_scores(conn, expr, BLOCK_WINDOW, limit) if expr else {}


def blocks_of(conn: sqlite3.Connection, message_ids: list[int]) -> dict[int, int]:
    """``{message id: block id}`` for the messages of ``message_ids`` that are filed."""
    if not message_ids or not _has_blocks(conn):
        return {}
    found: dict[int, int] = {}
    for chunk, marks in in_chunks(message_ids, 8192):
        found.update((int(m), int(b)) for m, b in conn.execute(
            f"SELECT message_id, block FROM block_members WHERE message_id IN ({marks})", chunk))
    return found


def _has_blocks(conn: sqlite3.Connection) -> bool:
    return exists(conn, "block_members")
