"""The batch path (``apply_batch``, projection by projection) leaves the rows the event-by-event path leaves.

A projector gets a do-nothing projection without ``apply_batch`` to force the event-by-event
path; the rows of both paths, and of several batch sizes, must be equal, on a history with
streamed parts, late messages for earlier days, titles, sessions, closed days, summaries,
forgetting and compacted messages.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import pytest

from tapestryd.events import (ConversationTitled, EventStore, Forgotten, MessageRecorded, NewEvent, event_id,
                              format_utc)
from tapestryd.events.types import DayClosed, NodeSummarized, StoredEvent
from tapestryd.projections import Projector, default_projections

T0 = datetime(2026, 1, 30, 22, 0, tzinfo=timezone.utc)


class _EventByEvent:
    """A projection without apply_batch: its presence makes the runner apply event by event."""

    name, types = "event-by-event", ()

    def create(self, conn: sqlite3.Connection) -> None:
        """Nothing to create."""

    def clear(self, conn: sqlite3.Connection) -> None:
        """Nothing to clear."""

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        """Nothing to apply."""


def _new(key: str, body: object, ts: datetime, agent: str = "chatgpt") -> NewEvent:
    return NewEvent(event_id("batch", key), body, ts, agent=agent, source=f"x#{key}")  # type: ignore[arg-type]


def _message(i: int, conv: str, key: str, hours: float, text: str, **meta: object) -> NewEvent:
    ts = T0 + timedelta(hours=hours)
    body = MessageRecorded(conv, key, "user" if i % 2 else "assistant", text, format_utc(ts),
                           session=str(meta.pop("session", "")), skipped={"thinking": i % 3}, meta=dict(meta))
    return _new(f"m{i}", body, ts, "claude-code" if conv.startswith("claude-code") else "chatgpt")


def history() -> list[NewEvent]:
    """Messages over several days and two agents, parts, late messages, titles, closes and a summary."""
    out = [_message(i, f"chatgpt:c{i % 3}", f"k{i}", 5 * i, f"message {i} about topic {i % 4}") for i in range(24)]
    out += [_message(100 + i, "claude-code:s1", f"r{i // 2}", 30 + i, f"part {i} of reply", session="s1",
                     cwd="/w" if i else "", git_branch=f"b{i % 2}" if i % 3 else "") for i in range(8)]
    # A day's first message arriving after a later one, then a new conversation that day:
    # the new sibling's position depends on the earlier conversation's first_ts being written.
    out += [_message(150, "claude-code:s2", "a", 252, "ten o'clock"),
            _message(151, "claude-code:s2", "b", 250, "eight"),
            _message(152, "claude-code:s3", "a", 251, "nine o'clock")]
    out.append(_message(200, "chatgpt:c1", "late", 1, "a late message for the first day"))
    out.append(_message(201, "chatgpt:c0", "k0", 90, "a part joined days later"))
    out.append(_new("title", ConversationTitled("chatgpt:c1", "Plans"), T0))
    out.append(_new("close", DayClosed("2026-01-31", "UTC"), T0 + timedelta(days=2)))
    out.append(_new("sum", NodeSummarized("L0:chatgpt:2026-01-30:chatgpt:c0", 0, "f", "extractive", "m", "1",
                                          "Title", "Summary text", {"calls": 1}), T0 + timedelta(days=3)))
    out += [_message(300 + i, "chatgpt:c0", f"after{i}", 2 + 9 * i, f"after the summary {i}") for i in range(6)]
    out.append(_new("close2", DayClosed("2026-02-01", "UTC", "chatgpt"), T0 + timedelta(days=4)))
    return out


def forgetting() -> list[NewEvent]:
    """A conversation forgotten, a message of it arriving later, a compacted message, a regex rule."""
    compacted = MessageRecorded("chatgpt:c1", "k1", "user", "", format_utc(T0), meta={"forgotten": True})
    return [_new("forget-c2", Forgotten(conversation="chatgpt:c2"), T0 + timedelta(days=5)),
            _message(400, "chatgpt:c2", "again", 3, "back from the forgotten"),
            _new("compact", compacted, T0 + timedelta(days=6)),
            _new("forget-re", Forgotten(match="topic 3"), T0 + timedelta(days=7)),
            _message(401, "chatgpt:c0", "k401", 4, "topic 3 again"),
            _message(402, "chatgpt:c0", "k402", 4, "still here")]


def dump(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every ordinary table (checkpoints aside), and the FTS rowids per term."""
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' AND name NOT LIKE 'sqlite_%'"
        " AND name != 'checkpoints'")]
    rows = {t: sorted(map(tuple, conn.execute(f"SELECT * FROM {t}")), key=repr) for t in tables}
    for term in ("message", "part", "topic", "summary", "again"):
        rows[f"fts:{term}"] = sorted(conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", (term,)))
        rows[f"nodes_fts:{term}"] = sorted(conn.execute("SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ?", (term,)))
    conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    return rows


def build(store: EventStore, path: Path, *, batch: int, event_by_event: bool) -> dict[str, list[tuple[object, ...]]]:
    projections = default_projections("UTC", 0) + ([_EventByEvent()] if event_by_event else [])  # type: ignore[list-item]
    return build_with(store, path, projections, batch)


def build_with(store: EventStore, path: Path, projections: list[Any], batch: int,
               dumped: Callable[[sqlite3.Connection], dict[str, list[tuple[object, ...]]]] | None = None,
               ) -> dict[str, list[tuple[object, ...]]]:
    """The rows ``projections`` leave after catching up ``batch`` events at a time, as ``dumped`` reads them
    (default :func:`dump`)."""
    projector = Projector(store, path, projections)
    while projector.catch_up(batch=batch, max_events=batch):
        pass
    try:
        return (dumped or dump)(projector.conn)
    finally:
        projector.close()


@pytest.mark.parametrize("with_forgetting", [False, True])
def test_batch_path_equals_event_by_event(tmp_path: Path, with_forgetting: bool) -> None:
    """Whole batches, small batches and event by event give the same rows and index."""
    store = EventStore(tmp_path / "events.db")
    store.append(history() + (forgetting() if with_forgetting else []))
    expected = build(store, tmp_path / "one-by-one.db", batch=1000, event_by_event=True)
    assert expected["messages"] and expected["nodes"] and expected["similarity_feed"]
    for batch in (1000, 7, 2):
        assert build(store, tmp_path / f"batch-{batch}.db", batch=batch, event_by_event=False) == expected


def test_batch_path_counts_every_node_once(tmp_path: Path) -> None:
    """Counts summed per batch reach every level: each node holds its messages and characters."""
    store = EventStore(tmp_path / "events.db")
    store.append(history())
    rows = build(store, tmp_path / "p.db", batch=1000, event_by_event=False)
    projector = Projector(store, tmp_path / "p.db", default_projections("UTC", 0))
    conn = projector.conn
    messages, chars = conn.execute(
        "SELECT COUNT(*), SUM(LENGTH(text)) FROM messages WHERE agent = 'chatgpt'").fetchone()
    for level in range(5):
        count, = conn.execute("SELECT SUM(message_count) FROM nodes WHERE level = ? AND agent = 'chatgpt'",
                              (level,)).fetchone()
        assert count == messages, level
    assert rows["conversations"] and chars > 0
    projector.close()
