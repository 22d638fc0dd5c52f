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
* ``blocks_fts(text)``: an FTS5 table (the tokenizer of ``messages_fts``), rowid the block's
  id, text its messages' texts in id order, joined by newlines.

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

__all__ = ["BLOCK_SIZE", "BLOCK_WINDOW", "backfill", "block_scores", "blocks_of", "clear", "create_tables",
           "file_messages", "index_dirty", "mark_dirty", "waiting"]

_URGENT, _GROWN = 1, 2
"""``conversation_blocks.dirty``: indexed at the next flush; grown, indexed when the projector settles."""

BLOCK_SIZE = 64
"""Messages in one block at most: a tailed turn re-indexes at most this many messages' text."""

BLOCK_WINDOW = 1000
"""Blocks ranked for one query at most: when more match, only the most recently made ones compete
(the bound :mod:`tapestryd.projections.messages_search` puts on messages; bm25 keeps its idf over every block)."""

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
    """CREATE VIRTUAL TABLE IF NOT EXISTS blocks_fts USING fts5(
        text, tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER IF NOT EXISTS block_members_ad AFTER DELETE ON messages BEGIN
        UPDATE conversation_blocks SET size = size - 1, dirty = 1
            WHERE id = (SELECT block FROM block_members WHERE message_id = old.id);
        DELETE FROM block_members WHERE message_id = old.id; END""",
]


def create_tables(conn: sqlite3.Connection) -> bool:
    """Create the tables, indexes and delete trigger if missing; True when ``conversation_blocks`` was new."""
    return fts_options.create(conn, _SCHEMA, "conversation_blocks", "blocks_fts")


def clear(conn: sqlite3.Connection) -> None:
    """Delete every block, membership and indexed document.

    ``blocks_fts`` is dropped and made again: a DELETE of its rows reads every document back to take
    its terms out of the index.
    """
    conn.execute("DELETE FROM block_members")
    conn.execute("DELETE FROM conversation_blocks")
    conn.execute("DROP TABLE blocks_fts")
    create_tables(conn)


def backfill(conn: sqlite3.Connection, after: int, last: int) -> int:
    """File the stored messages of id ``(after, last]`` into blocks, in id order, and index the blocks made dirty
    (a file made before blocks, :mod:`tapestryd.projections.backfill`: every message before them is filed, none
    after them is). Returns how many messages were filed.
    """
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
    conn.executemany("DELETE FROM blocks_fts WHERE rowid = ?", [(i,) for i in dirty])
    for start in range(0, len(dirty), _INDEX_CHUNK):  # one read of the chunk's members, not one per block
        chunk = dirty[start:start + _INDEX_CHUNK]
        rows = conn.execute("SELECT b.block, m.text FROM block_members b JOIN messages m ON m.id = b.message_id"
                            f" WHERE b.block IN ({','.join('?' * len(chunk))}) ORDER BY b.block, m.id", chunk)
        documents = [(block, "\n".join(text for _, text in members)) for block, members in groupby(rows, itemgetter(0))]
        conn.executemany("INSERT INTO blocks_fts (rowid, text) VALUES (?, ?)", documents)
    for done, marks in in_chunks(dirty, 8192):
        conn.execute(f"DELETE FROM conversation_blocks WHERE id IN ({marks}) AND size <= 0", done)
        conn.execute(f"UPDATE conversation_blocks SET dirty = 0 WHERE id IN ({marks})", done)
    return len(dirty)


def block_scores(conn: sqlite3.Connection, expr: str, limit: int) -> dict[int, float]:
    """``{block id: -bm25}`` of the ``limit`` best blocks matching FTS5 expression ``expr`` (higher is better),
    among the :data:`BLOCK_WINDOW` newest matching blocks.

    Empty when the file has no blocks table yet (a read-only connection to an older file).
    """
    if not expr or not _has_blocks(conn):
        return {}
    # One walk of the newest matches, scoring each (as windows.window_scores).
    rows = conn.execute("SELECT rowid, score FROM (SELECT rowid, bm25(blocks_fts) AS score FROM blocks_fts"
                        " WHERE blocks_fts MATCH ? ORDER BY rowid DESC LIMIT ?) ORDER BY score, rowid LIMIT ?",
                        (expr, BLOCK_WINDOW, limit))
    return {int(i): -float(score) for i, score in rows}


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
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'blocks_fts'").fetchone()
    return found is not None
