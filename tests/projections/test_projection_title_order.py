"""A conversation's title is the one of the newest export, whatever the import order; rebuild agrees."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from tapestryd.events import ConversationTitled, EventStore, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.projections import Projector, default_projections

T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)
V1, V2 = "2025-03-01T10:00:00.000000Z", "2025-03-05T18:00:00.000000Z"


def _title(text: str, updated: str = "", conv: str = "chatgpt:c1") -> NewEvent:
    return NewEvent(event_id("title", conv, text, updated), ConversationTitled(conv, text, updated), T0, "chatgpt", "x")


def _message(conv: str = "chatgpt:c1") -> NewEvent:
    return NewEvent(event_id("m", conv), MessageRecorded(conv, "m1", "user", "hello", format_utc(T0)), T0, "chatgpt",
                    "x")


def _titles(tmp_path: Path, *events: NewEvent) -> dict[str, str]:
    """Titles after appending ``events`` one import at a time, checked equal to a rebuild."""
    with EventStore(tmp_path / "events.db") as store:
        projector = Projector(store, tmp_path / "projections.db", default_projections("UTC", 0))
        try:
            for event in events:
                store.append([event])
                projector.catch_up()
            incremental = dict(projector.conn.execute("SELECT key, title FROM conversations"))
            projector.rebuild()
            assert dict(projector.conn.execute("SELECT key, title FROM conversations")) == incremental
        finally:
            projector.close()
    return incremental


def test_an_older_export_imported_later_keeps_the_newer_title(tmp_path: Path) -> None:
    titles = _titles(tmp_path, _message(), _title("New title", V2), _title("Old title", V1), _title("New title", V2))
    assert titles == {"chatgpt:c1": "New title"}


def test_a_newer_export_imported_later_replaces_the_title(tmp_path: Path) -> None:
    titles = _titles(tmp_path, _message(), _title("Old title", V1), _title("New title", V2))
    assert titles == {"chatgpt:c1": "New title"}


def test_titles_without_a_time_keep_log_order_and_yield_to_a_timed_one(tmp_path: Path) -> None:
    """Old logs (no time) behave as before: the later title wins; a timed title then stays."""
    assert _titles(tmp_path, _message(), _title("First"), _title("Second")) == {"chatgpt:c1": "Second"}
    other = tmp_path / "b"
    other.mkdir()
    assert _titles(other, _message(), _title("Timed", V1), _title("Untimed")) == {"chatgpt:c1": "Timed"}


def test_a_projection_file_from_before_the_column_gets_it(tmp_path: Path) -> None:
    """A conversations table without title_updated is given the column when opened."""
    conn = sqlite3.connect(tmp_path / "projections.db")
    conn.execute("CREATE TABLE conversations (key TEXT PRIMARY KEY, agent TEXT NOT NULL, source TEXT NOT NULL,"
                 " title TEXT NOT NULL DEFAULT '', first_ts TEXT, last_ts TEXT, message_count INTEGER NOT NULL"
                 " DEFAULT 0, session TEXT NOT NULL DEFAULT '', cwd TEXT NOT NULL DEFAULT '',"
                 " git_branch TEXT NOT NULL DEFAULT '')")
    conn.commit()
    conn.close()
    titles = _titles(tmp_path, _message(), _title("New title", V2), _title("Old title", V1))
    assert titles == {"chatgpt:c1": "New title"}
