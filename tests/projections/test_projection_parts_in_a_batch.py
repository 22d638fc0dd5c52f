"""A streamed reply's parts give the same rows and indexes whether they come in one batch or one per batch.

The messages projection holds the text changes of a batch's later parts and writes each message once at
the flush (taking an already indexed message out of messages_fts and its windows first); one part per
batch is the part-by-part path, whole batches the held one, batches of three mix parts joined to a
message stored this batch and to one indexed before.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

from test_projection_batch_path import build_with

from tapestryd.events import EventStore, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.projections import default_projections

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _part(i: int, key: str, text: str, conversation: str = "claude-code:s1", **meta: object) -> NewEvent:
    ts = T0 + timedelta(minutes=i)
    body = MessageRecorded(conversation, key, "assistant" if key.startswith("r") else "user", text, format_utc(ts),
                           skipped={"tool_use": i % 2}, meta=dict(meta))
    return NewEvent(event_id("parts", str(i)), body, ts, agent="claude-code", source=f"s#{i}")


def _events() -> list[NewEvent]:
    """Replies streamed in parts between prompts: a part repeating one, a snapshot, a private span closed by a
    later part, a version replacing the whole reply, and parts of two sessions interleaved."""
    return [
        _part(0, "q1", "where did we hike"), _part(1, "r1", "we hiked the ridge"), _part(2, "r1", "it rained"),
        _part(3, "r1", "it rained"), _part(4, "q2", "and the week before"),
        _part(5, "r2", "the lake <private>with Sam"), _part(6, "r2", "and Jo</private> by bus"),
        _part(7, "r2", "the lake <private>with Sam\n\nand Jo</private> by bus\n\nthen lunch"),
        _part(8, "q1", "a prompt in another session", "claude-code:s2"),
        _part(9, "r1", "an answer", "claude-code:s2"),
        _part(10, "r1", "rewritten whole", "claude-code:s2", replaces=True),
        _part(11, "r2", "home by six"), _part(12, "q3", "thanks"), _part(13, "r1", "late part", "claude-code:s2"),
    ]


_ROWID = {"message_vocatives": "*"}
"""Tables without a rowid."""


def _dump(conn: sqlite3.Connection) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every ordinary table (rowids too), and every indexed term occurrence of each FTS5 table
    (the windows' shards too)."""
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE"
                                         " '%fts%' AND name NOT LIKE 'sqlite_%' AND name != 'checkpoints'")]
    rows = {t: sorted(map(tuple, conn.execute(f"SELECT {_ROWID.get(t, 'rowid, *')} FROM {t}")), key=repr)
            for t in tables}
    for (fts,) in conn.execute("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE % USING fts5(%'"
                               " ORDER BY name").fetchall():
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{fts}_terms USING fts5vocab(main, {fts}, instance)")
        rows[fts] = list(map(tuple, conn.execute(f"SELECT * FROM temp.{fts}_terms ORDER BY term, doc, col, offset")))
    conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    return rows


def _build(store: EventStore, path: Path, batch: int) -> dict[str, list[tuple[object, ...]]]:
    return build_with(store, path, default_projections("UTC", 0), batch, _dump)


def test_parts_held_in_a_batch_leave_the_rows_of_one_part_per_batch(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "events.db")
    store.append(_events())
    one_by_one = _build(store, tmp_path / "one.db", 1)
    texts = {(row[2], row[3]): row[8] for row in one_by_one["messages"]}  # rowid, id, conversation, key, ..., text
    assert texts["claude-code:s1", "r1"] == "we hiked the ridge\n\nit rained"
    assert texts["claude-code:s1", "r2"] == "the lake  by bus\n\nthen lunch\n\nhome by six"
    assert texts["claude-code:s2", "r1"] == "rewritten whole\n\nlate part"
    windows = [row for name, rows in one_by_one.items() if name.startswith("windows_fts") for row in rows]
    documents = [row for name, rows in one_by_one.items() if name.startswith("blocks_fts") for row in rows]
    assert windows and documents and "sam" not in {row[0] for row in windows}
    for batch in (3, 1000):
        assert _build(store, tmp_path / f"batch-{batch}.db", batch) == one_by_one
