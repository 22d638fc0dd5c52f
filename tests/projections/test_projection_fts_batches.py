"""messages_fts is written once per batch (MessagesProjection.flush): parts joined, rollbacks discarded."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tapestryd.events import EventStore, Forgotten, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.events.types import StoredEvent
from tapestryd.projections import MessagesProjection, Projector

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _message(i: int, key: str, text: str, conversation: str = "claude-code:s1") -> NewEvent:
    body = MessageRecorded(conversation, key, "assistant", text, format_utc(T0 + timedelta(minutes=i)))
    return NewEvent(event_id("fts", str(i)), body, T0 + timedelta(minutes=i), agent="claude-code", source=f"s#{i}")


def _hits(conn: sqlite3.Connection, term: str) -> list[int]:
    return [r[0] for r in conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid",
                                       (term,))]


def _intact(conn: sqlite3.Connection) -> None:
    # rank 1: checked against the content table
    conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")


def test_streamed_parts_across_batches_are_indexed_joined(tmp_path: Path) -> None:
    """Parts of one reply inside a batch and across batches end as one indexed text."""
    store = EventStore(tmp_path / "events.db")
    store.append([_message(0, "a", "alpha"), _message(1, "a", "bravo"), _message(2, "b", "charlie"),
                  _message(3, "a", "delta"), _message(4, "b", "echo")])
    projector = Projector(store, tmp_path / "projections.db", [MessagesProjection()])
    while projector.catch_up(batch=2, max_events=2):
        pass
    conn = projector.conn
    _intact(conn)
    text_a = conn.execute("SELECT id, text FROM messages WHERE message_key = 'a'").fetchone()
    assert text_a[1] == "alpha\n\nbravo\n\ndelta"
    assert _hits(conn, "alpha") == _hits(conn, "delta") == [text_a[0]]
    assert len(_hits(conn, "charlie")) == 1 and _hits(conn, "charlie") == _hits(conn, "echo")


def test_forgotten_within_a_batch_removes_what_was_held(tmp_path: Path) -> None:
    """A Forgotten event in the same batch as the messages it covers leaves the index consistent."""
    store = EventStore(tmp_path / "events.db")
    forget = NewEvent(event_id("fts", "forget"), Forgotten(conversation="claude-code:gone", reason="test"), T0,
                      agent="claude-code", source="cli")
    store.append([_message(0, "a", "kept words"), _message(1, "x", "secret words", "claude-code:gone"), forget,
                  _message(2, "a", "more")])
    projector = Projector(store, tmp_path / "projections.db", [MessagesProjection()])
    projector.catch_up()
    _intact(projector.conn)
    assert len(_hits(projector.conn, "words")) == 1 and _hits(projector.conn, "secret") == []


class _FailOnce:
    """A projection that raises on the seq given, the first time only."""

    name, types = "fail-once", ()

    def __init__(self, seq: int) -> None:
        self.seq = seq

    def create(self, conn: sqlite3.Connection) -> None:
        """Nothing to create."""

    def clear(self, conn: sqlite3.Connection) -> None:
        """Nothing to clear."""

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        if event.seq == self.seq:
            self.seq = -1
            raise RuntimeError("boom")


def test_rolled_back_batch_leaves_nothing_held(tmp_path: Path) -> None:
    """Texts held by a batch that rolled back are dropped; the retry indexes each message once."""
    store = EventStore(tmp_path / "events.db")
    store.append([_message(i, f"k{i}", f"word{i} shared") for i in range(4)])
    projector = Projector(store, tmp_path / "projections.db", [MessagesProjection(), _FailOnce(3)])
    with pytest.raises(RuntimeError, match="boom"):
        projector.catch_up()
    assert sum(iter(lambda: projector.catch_up(batch=1, max_events=1), 0)) == 4
    _intact(projector.conn)
    assert len(_hits(projector.conn, "shared")) == 4
