"""The similarity feed: which searchable documents changed, in log order.

The TF-IDF index (:mod:`tapestryd.projections.tfidf`) lives in the daemon's memory; this
projection tells it what to update as events arrive. Table (in ``projections.db``):

* ``similarity_feed(doc, seq)``: one row per document, ``doc`` being ``m:<message id>``
  (a message recorded or a streamed part joined to it), ``n:<node key>`` (a node
  summarized) or ``reset`` (something was forgotten: refit from scratch), ``seq`` the log
  position of its latest change. The index reads rows after the last seq it has seen.

It must run after the messages projection (it reads message ids), as
:func:`tapestryd.projections.default_projections` orders it.

The index saved beside the database (:mod:`tapestryd.projections.warmfile`) may hold what a
``Forgotten`` event removes: a batch holding one removes the file, and so does :meth:`~SimilarityFeed.clear`
(a rebuild, which repair and restore run too). The next fit writes it again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Sequence

from tapestryd.db import translate_errors
from tapestryd.events.types import Forgotten, MessageRecorded, NodeSummarized, StoredEvent
from tapestryd.projections.messages_read import MessageAt, message_rows_of
from tapestryd.projections.warmfile import discard, index_file

__all__ = ["SimilarityFeed", "feed_after", "feed_head", "last_reset"]

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS similarity_feed (doc TEXT PRIMARY KEY, seq INTEGER NOT NULL)",
    "CREATE INDEX IF NOT EXISTS similarity_feed_seq ON similarity_feed(seq)",
]


class SimilarityFeed:
    """Records the documents each event changes (see the module docstring); a message's id is read
    through the messages projection's :func:`~tapestryd.projections.messages_read.message_rows_of`."""

    name = "similarity"
    types: tuple[str, ...] = (MessageRecorded.type, NodeSummarized.type, Forgotten.type)

    def create(self, conn: sqlite3.Connection) -> None:
        """Create the feed table and its seq index if missing."""
        for statement in _SCHEMA:
            conn.execute(statement)

    def clear(self, conn: sqlite3.Connection) -> None:
        """Forget every row (a rebuild replays them) and remove the saved index."""
        conn.execute("DELETE FROM similarity_feed")
        _discard_saved_index(conn)

    def batch_safe(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> bool:
        """Always: no other projection reads the feed."""
        return True

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        """Note the document the event changed, at the event's seq."""
        self.apply_batch(conn, [event])

    def apply_batch(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> None:
        """Note the documents the events changed, each once at the seq of its latest change."""
        docs: dict[str, int] = {}
        rows = message_rows_of(conn, [e.event for e in events if isinstance(e.event, MessageRecorded)])
        for event in events:
            doc = _doc(event, rows)
            if doc:
                docs[doc] = event.seq
        if "reset" in docs:
            _discard_saved_index(conn)
        conn.executemany("INSERT INTO similarity_feed VALUES (?, ?) ON CONFLICT(doc) DO UPDATE SET seq = excluded.seq",
                         docs.items())



def _doc(event: StoredEvent, rows: dict[tuple[str, str], MessageAt]) -> str:
    """The document ``event`` changed (``''`` for none: a message not among the stored ``rows``)."""
    payload = event.event
    if isinstance(payload, MessageRecorded):
        row = rows.get((payload.conversation, payload.message))
        return f"m:{row[0]}" if row is not None else ""
    if isinstance(payload, NodeSummarized):
        return f"n:{payload.node}"
    return "reset" if isinstance(payload, Forgotten) else ""


def _discard_saved_index(conn: sqlite3.Connection) -> None:
    """Remove the warm index saved beside ``conn``'s database file (none for a database in memory)."""
    main = conn.execute("PRAGMA database_list").fetchone()  # (seq, name, file) of "main"
    if main is not None and main[2]:
        discard(index_file(Path(main[2])))


def feed_head(conn: sqlite3.Connection) -> int:
    """The highest seq in the feed (0 when empty or when the table does not exist)."""
    with translate_errors(conn):
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'similarity_feed'").fetchone() is None:
            return 0
        return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM similarity_feed").fetchone()[0])


def feed_after(conn: sqlite3.Connection, seq: int, *, limit: int = 100_000) -> list[tuple[str, int]]:
    """``(doc, seq)`` rows with seq greater than ``seq``, in seq order, at most ``limit``."""
    with translate_errors(conn):
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'similarity_feed'").fetchone() is None:
            return []
        return [(str(d), int(s)) for d, s in conn.execute(
            "SELECT doc, seq FROM similarity_feed WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit))]


def last_reset(conn: sqlite3.Connection) -> int:
    """The seq of the last ``Forgotten`` event the feed noted (0 when none, or when the table does not exist)."""
    with translate_errors(conn):
        if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'similarity_feed'").fetchone() is None:
            return 0
        row = conn.execute("SELECT seq FROM similarity_feed WHERE doc = 'reset'").fetchone()
        return int(row[0]) if row else 0
