"""The contract every projection keeps: replay is a no-op, rebuild equals incremental,
checkpoints only rise, and the checkpoint commits with the rows."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tapestryd.events import ConversationTitled, EventStore, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.projections import SHIPPED, Projector, checkpoints, default_projections

T0 = datetime(2026, 1, 30, 22, 0, tzinfo=timezone.utc)


def history(n: int) -> list[NewEvent]:
    """A few conversations over several days, with titles and a reply streamed in two parts."""
    out = []
    for i in range(n):
        ts = T0 + timedelta(hours=7 * i)
        conv = f"chatgpt:c{i % 4}"
        body = MessageRecorded(conv, f"m{i}", "user" if i % 2 else "assistant", f"message {i} about topic {i % 5}",
                               format_utc(ts), skipped={"thinking": i % 2})
        out.append(NewEvent(event_id("h", str(i)), body, ts, agent="chatgpt", source=f"x#{i}"))
    tail = MessageRecorded("chatgpt:c0", "m0", "assistant", "second part", format_utc(T0))
    out.append(NewEvent(event_id("h", "part"), tail, T0, agent="chatgpt", source="x#part"))
    out.append(NewEvent(event_id("h", "title"), ConversationTitled("chatgpt:c1", "Plans"), T0, agent="chatgpt"))
    return out


def dump(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every ordinary table except checkpoints, sorted."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' AND name NOT LIKE 'sqlite_%'"
        " AND name != 'checkpoints'")]
    return {t: sorted(map(tuple, conn.execute(f"SELECT * FROM {t}")), key=repr) for t in tables}


def fts_rows(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return sorted(conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'message'"))


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    s = EventStore(tmp_path / "events.db")
    s.append(history(40))
    return s


def projector(store: EventStore, path: Path) -> Projector:
    return Projector(store, path, default_projections("UTC", 0))


def test_rebuild_equals_incremental(store: EventStore, tmp_path: Path) -> None:
    """Rows built in small increments equal rows from one replay of the whole log."""
    incremental = projector(store, tmp_path / "a.db")
    while incremental.catch_up(batch=3, max_events=3):
        pass
    replayed = projector(store, tmp_path / "b.db")
    replayed.rebuild()
    assert dump(incremental.conn) == dump(replayed.conn)
    assert fts_rows(incremental.conn) == fts_rows(replayed.conn)


def test_catching_up_twice_is_a_no_op(store: EventStore, tmp_path: Path) -> None:
    """A caught-up projector applies nothing more and its rows do not change."""
    p = projector(store, tmp_path / "p.db")
    p.catch_up()
    before = dump(p.conn)
    assert p.catch_up() == 0
    assert dump(p.conn) == before
    assert set(p.lag().values()) == {0}


def test_checkpoints_only_rise_and_reach_the_last_seq(store: EventStore, tmp_path: Path) -> None:
    """Each batch moves every checkpoint forward, ending at the log's last seq."""
    p = projector(store, tmp_path / "p.db")
    seen = []
    while p.catch_up(batch=5, max_events=5):
        seen.append(min(checkpoints(p.conn).values()))
    assert seen == sorted(seen) and seen[-1] == store.last_seq()


def test_a_crash_mid_batch_applies_nothing_of_it(store: EventStore, tmp_path: Path) -> None:
    """Checkpoint and rows share a transaction: a failing apply rolls both back."""
    p = projector(store, tmp_path / "p.db")
    original = p.projections[0].apply_batch  # type: ignore[attr-defined]

    def failing(conn: sqlite3.Connection, events: list[object]) -> None:
        original(conn, events[:2])
        raise RuntimeError("power cut")

    p.projections[0].apply_batch = failing  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError):
        p.catch_up(batch=10)
    assert checkpoints(p.conn) == {} and dump(p.conn)["messages"] == []


def test_streamed_parts_join_into_one_message(store: EventStore, tmp_path: Path) -> None:
    """Two events with one message key become one message, parts in log order."""
    p = projector(store, tmp_path / "p.db")
    p.catch_up()
    text = p.conn.execute("SELECT text FROM messages WHERE message_key = 'm0'").fetchone()[0]
    assert text == "message 0 about topic 0\n\nsecond part"
    count = p.conn.execute("SELECT message_count FROM conversations WHERE key = 'chatgpt:c0'").fetchone()[0]
    assert count == 10


def test_the_shipped_names_are_the_default_projections_in_apply_order() -> None:
    """``status`` lists each projection's lag by SHIPPED (it imports no projection): the names of
    default_projections, in its order."""
    assert tuple(p.name for p in default_projections("UTC", 0)) == SHIPPED
