"""A forget pattern also forgets the conversation titles it matches, now and when they arrive later."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from tapestryd.events import ConversationTitled, EventStore, Forgotten, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.projections import Projector, default_projections

T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)


def _titled(conv: str, title: str, updated: str) -> NewEvent:
    return NewEvent(event_id("t", conv, title), ConversationTitled(conv, title, updated), T0, "claude-ai", "x")


def _message(conv: str, text: str) -> NewEvent:
    return NewEvent(event_id("m", conv, text), MessageRecorded(conv, "m1", "user", text, format_utc(T0)), T0,
                    "claude-ai", "x")


def test_a_pattern_blanks_matching_titles_and_keeps_later_ones_out(tmp_path: Path) -> None:
    forget = NewEvent(event_id("f"), Forgotten(match="(?i)bakery"), T0, "tapestryctl", "forget")
    with EventStore(tmp_path / "events.db") as store:
        projector = Projector(store, tmp_path / "projections.db", default_projections("UTC", 0))
        try:
            store.append([_message("claude-ai:a", "compare the two shops"),
                          _titled("claude-ai:a", "Interactive Bakery Comparison", "2025-03-01T10:00:00.000000Z"),
                          _message("claude-ai:b", "a walk by the river"),
                          _titled("claude-ai:b", "River walk", "2025-03-01T10:00:00.000000Z"), forget])
            projector.catch_up()
            titles = dict(projector.conn.execute("SELECT key, title FROM conversations"))
            assert titles == {"claude-ai:a": "", "claude-ai:b": "River walk"}
            store.append([_titled("claude-ai:b", "River walk to the BAKERY", "2025-03-02T10:00:00.000000Z")])
            projector.catch_up()
            assert dict(projector.conn.execute("SELECT key, title FROM conversations"))["claude-ai:b"] == "River walk"
            incremental = dict(projector.conn.execute("SELECT key, title FROM conversations"))
            projector.rebuild()
            assert dict(projector.conn.execute("SELECT key, title FROM conversations")) == incremental
        finally:
            projector.close()
