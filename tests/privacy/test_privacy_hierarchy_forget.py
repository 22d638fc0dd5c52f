"""Forgotten messages make the summaries that held them dirty, and their old text unservable."""

from __future__ import annotations

from datetime import datetime, timezone

from privacy_helpers import at, message, record

from tapestryd.events.types import DayClosed, NewEvent, NodeSummarized, event_id
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json


def _nodes(rt: Runtime) -> dict[str, tuple[int, str, str, str, int]]:
    """key → (level, state, fingerprint, summary, message_count)."""
    return {k: (lvl, st, fp, sm, n) for k, lvl, st, fp, sm, n in rt.projector.conn.execute(
        "SELECT key, level, state, fingerprint, summary, message_count FROM nodes")}


def _summarize_leaves(rt: Runtime) -> None:
    leaves = [(k, fp) for k, (lvl, _, fp, _, _) in _nodes(rt).items() if lvl == 0]
    rt.store.append([NewEvent(event_id("sum", k, fp), NodeSummarized(k, 0, fp, "fake", "", "v1", "Title",
                                                                    f"summary of {k}: lawyer talk"),
                              datetime(2025, 1, 11, tzinfo=timezone.utc)) for k, fp in leaves])
    rt.projector.catch_up()


def test_forgotten_conversation_day_goes_and_parents_rebuild(runtime: Runtime) -> None:
    """The L0 of a forgotten conversation is removed, the other stays, the day's fingerprint changes."""
    record(runtime,
           message("claude-code:a", "1", "the divorce lawyer", at("2025-01-10")),
           message("claude-code:a", "2", "the custody plan", at("2025-01-10", 13)),
           message("claude-code:b", "1", "parser refactor", at("2025-01-10", 14)),
           NewEvent(event_id("closed", "2025-01-10"), DayClosed("2025-01-10", "UTC"),
                    datetime(2025, 1, 11, 2, tzinfo=timezone.utc)))
    _summarize_leaves(runtime)
    before = _nodes(runtime)
    leaf_a = next(k for k in before if before[k][0] == 0 and "claude-code:a" in k)
    leaf_b = next(k for k in before if before[k][0] == 0 and "claude-code:b" in k)
    assert before[leaf_a][1] == "clean" and before[leaf_b][1] == "clean"
    run_json("forget", runtime, {"conversation": "claude-code:a"})
    after = _nodes(runtime)
    assert leaf_a not in after and after[leaf_b] == before[leaf_b]  # a's only conversation-day is gone
    day = next(k for k in after if after[k][0] == 1)
    assert after[day][2] != before[day][2] and after[day][4] == 1
    hits = runtime.projector.conn.execute("SELECT COUNT(*) FROM nodes_fts WHERE nodes_fts MATCH 'lawyer'").fetchone()
    assert hits[0] == 1  # only b's summary still says it
    runtime.projector.rebuild()
    assert _nodes(runtime) == after


def test_partly_forgotten_leaf_is_dirty_and_blank(runtime: Runtime) -> None:
    """An L0 that lost some messages is dirty, its old summary blanked, and rebuild agrees."""
    record(runtime,
           message("claude-code:a", "1", "the divorce lawyer", at("2025-01-10")),
           message("claude-code:a", "2", "the custody plan", at("2025-01-10", 13)),
           NewEvent(event_id("closed", "2025-01-10"), DayClosed("2025-01-10", "UTC"),
                    datetime(2025, 1, 11, 2, tzinfo=timezone.utc)))
    _summarize_leaves(runtime)
    run_json("forget", runtime, {"match": "lawyer"})
    after = _nodes(runtime)
    leaf = next(k for k in after if after[k][0] == 0)
    assert after[leaf][1] == "dirty" and after[leaf][3] == "" and after[leaf][4] == 1
    runtime.projector.rebuild()
    assert _nodes(runtime) == after
