"""messages_fts options (hashsize, automerge): set on new and older files, and ranks stay those of FTS5's defaults."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tapestryd.events import EventStore, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.projections import MessagesProjection, Projector, messages

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf")


def _message(i: int) -> NewEvent:
    text = " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 2 + i % 9))
    body = MessageRecorded(f"chatgpt:c{i % 5}", f"k{i}", "user", text, format_utc(T0 + timedelta(minutes=i)))
    return NewEvent(event_id("fts-options", str(i)), body, T0 + timedelta(minutes=i), agent="chatgpt", source=f"s#{i}")


def _options(conn: sqlite3.Connection) -> dict[str, object]:
    return dict(conn.execute("SELECT k, v FROM messages_fts_config WHERE k IN ('hashsize', 'automerge')"))


def _ranked(conn: sqlite3.Connection, term: str) -> list[tuple[int, float]]:
    return conn.execute("SELECT rowid, bm25(messages_fts) FROM messages_fts WHERE messages_fts MATCH ?"
                        " ORDER BY bm25(messages_fts), rowid", (term,)).fetchall()


def _project(store: EventStore, path: Path) -> Projector:
    projector = Projector(store, path, [MessagesProjection()])
    while projector.catch_up(batch=40, max_events=40):
        pass
    return projector


def test_options_are_set_on_a_file_made_without_them(tmp_path: Path) -> None:
    """An older projections file (FTS5 defaults) gets the options when a projector opens it;
    reopening writes nothing."""
    path = tmp_path / "projections.db"
    projector = Projector(EventStore(tmp_path / "events.db"), path, [MessagesProjection()])
    projector.conn.execute("DELETE FROM messages_fts_config WHERE k IN ('hashsize', 'automerge')")
    projector.close()
    reopened = Projector(EventStore(tmp_path / "events.db"), path, [MessagesProjection()])
    assert _options(reopened.conn) == {"hashsize": 64 * 1024 * 1024, "automerge": 8}
    before = reopened.conn.total_changes
    MessagesProjection().create(reopened.conn)
    assert reopened.conn.total_changes == before
    reopened.close()


def test_matches_and_ranks_equal_those_of_the_default_options(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The same messages indexed with FTS5's default options and with ours match and rank alike."""
    store = EventStore(tmp_path / "events.db")
    store.append([_message(i) for i in range(300)])
    ours = _project(store, tmp_path / "ours.db")
    monkeypatch.setattr(messages, "_FTS_OPTIONS", {"hashsize": 1024 * 1024, "automerge": 4})
    reference = _project(store, tmp_path / "defaults.db")
    assert _options(reference.conn) == {"hashsize": 1024 * 1024, "automerge": 4}
    for term in WORDS + ("alpha AND golf", "bravo OR echo", '"charlie delta"'):
        assert _ranked(ours.conn, term)
        assert _ranked(ours.conn, term) == _ranked(reference.conn, term)
    ours.conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    ours.close()
    reference.close()
