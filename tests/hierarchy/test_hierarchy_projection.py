"""The hierarchy projection: local days, split weeks, closing, dirty chains, early cut-off, staleness."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from hierarchy_helpers import message, node_rows

from tapestryd.events import DayClosed, EventStore, NewEvent, NodeSummarized, event_id
from tapestryd.projections import Projector, default_projections
from tapestryd.projections.hierarchy_keys import parse_node_key


def projector(tmp_path: Path, tz: str = "UTC") -> Projector:
    store = EventStore(tmp_path / "events.db")
    return Projector(store, tmp_path / "projections.db", default_projections(tz, 0))


def close(p: Projector, first: date, last: date, tz: str = "UTC") -> None:
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    now = datetime.now(timezone.utc)
    p.store.append([NewEvent(event_id("close", d.isoformat(), tz), DayClosed(d.isoformat(), tz), now) for d in days])
    p.catch_up()


def summarize(p: Projector, key: str, text: str, title: str = "T") -> None:
    fp = p.conn.execute("SELECT fingerprint, level FROM nodes WHERE key = ?", (key,)).fetchone()
    body = NodeSummarized(key, fp[1], fp[0], "fake", "m", "v", title, text, {"calls": 1})
    p.store.append([NewEvent(event_id("sum", key, fp[0], text), body, datetime.now(timezone.utc))])
    p.catch_up()


def summarize_all(p: Projector, suffix: str = "") -> None:
    """Summarize every dirty node bottom-up, text from its key (plus ``suffix`` for changed ones)."""
    while True:
        keys = [r[0] for r in p.conn.execute(
            "SELECT n.key FROM nodes n WHERE n.state = 'dirty' AND n.fingerprint != n.summarized_fingerprint AND NOT"
            " EXISTS (SELECT 1 FROM nodes c WHERE c.parent = n.key AND c.state = 'dirty')"
            " ORDER BY n.period_end, n.level, n.key")]
        if not keys:
            return
        summarize(p, keys[0], f"summary of {keys[0]}{suffix}")


def test_a_message_at_2330_in_tokyo_lands_in_that_local_day(tmp_path: Path) -> None:
    """23:30 in Asia/Tokyo is 14:30 UTC: the segment belongs to the Tokyo day, not another."""
    p = projector(tmp_path, "Asia/Tokyo")
    p.store.append([message("chatgpt:c1", "m1", datetime(2026, 3, 4, 14, 30, tzinfo=timezone.utc), "late night")])
    p.store.append([message("chatgpt:c1", "m2", datetime(2026, 3, 4, 15, 30, tzinfo=timezone.utc), "after midnight")])
    p.catch_up()
    keys = {r[0] for r in p.conn.execute("SELECT key FROM nodes WHERE level <= 1")}
    assert keys == {"L0:chatgpt:2026-03-04:chatgpt:c1", "L1:chatgpt:2026-03-04",
                    "L0:chatgpt:2026-03-05:chatgpt:c1", "L1:chatgpt:2026-03-05"}


def test_a_week_crossing_a_month_boundary_splits_in_two(tmp_path: Path) -> None:
    """Mon 30 March to Sun 5 April 2026 becomes two weeks, one under March, one under April."""
    p = projector(tmp_path)
    p.store.append([message("chatgpt:c", f"m{d}", datetime(2026, 3, 30, 12, tzinfo=timezone.utc) + timedelta(days=d),
                            f"day {d}") for d in range(7)])
    p.catch_up()
    weeks = p.conn.execute(
        "SELECT key, period_start, period_end, parent FROM nodes WHERE level = 2 ORDER BY key").fetchall()
    assert weeks == [("L2:chatgpt:2026-03-30w", "2026-03-30", "2026-03-31", "L3:chatgpt:2026-03"),
                     ("L2:chatgpt:2026-04-01w", "2026-04-01", "2026-04-05", "L3:chatgpt:2026-04")]
    assert parse_node_key("L0:chatgpt:2026-03-30:claude-code:a:b").conversation == "claude-code:a:b"


def test_weeks_months_and_years_close_with_their_last_day(tmp_path: Path) -> None:
    """Closing up to 31 Dec closes the day, its split week, December and the year; one day less does not."""
    p = projector(tmp_path)
    p.store.append([message("chatgpt:c", "m", datetime(2025, 12, 29, 9, tzinfo=timezone.utc), "x")])
    p.catch_up()
    close(p, date(2025, 12, 29), date(2025, 12, 30))
    assert {r[0] for r in p.conn.execute("SELECT key FROM nodes WHERE closed = 1")} == {
        "L0:chatgpt:2025-12-29:chatgpt:c", "L1:chatgpt:2025-12-29"}
    close(p, date(2025, 12, 31), date(2025, 12, 31))
    assert p.conn.execute("SELECT COUNT(*) FROM nodes WHERE closed = 0").fetchone()[0] == 0


def test_a_day_closed_in_another_timezone_closes_nothing(tmp_path: Path) -> None:
    """DayClosed carries its timezone; a projection in another zone ignores it."""
    p = projector(tmp_path, "Europe/Berlin")
    p.store.append([message("chatgpt:c", "m", datetime(2026, 1, 5, 9, tzinfo=timezone.utc), "x")])
    p.catch_up()
    close(p, date(2026, 1, 5), date(2026, 1, 5), tz="UTC")
    assert p.conn.execute("SELECT COUNT(*) FROM nodes WHERE closed = 1").fetchone()[0] == 0


def built(tmp_path: Path) -> Projector:
    """Six weeks of history, every day closed and every node summarized."""
    p = projector(tmp_path)
    events = [message(f"chatgpt:c{d % 4}", f"m{d}-{i}", datetime(2026, 2, 1, 9 + i, tzinfo=timezone.utc)
                      + timedelta(days=d), f"day {d} part {i}") for d in range(42) for i in range(2)]
    p.store.append(events)
    p.catch_up()
    close(p, date(2026, 2, 1), date(2026, 12, 31))
    summarize_all(p)
    assert {r[0] for r in p.conn.execute("SELECT DISTINCT state FROM nodes")} == {"clean"}
    return p


def test_a_late_message_dirties_exactly_its_chain_of_five(tmp_path: Path) -> None:
    """A message for a closed day three weeks back dirties its L0, L1, L2, L3 and L4, nothing else."""
    p = built(tmp_path)
    p.store.append([message("chatgpt:c1", "late", datetime(2026, 2, 20, 15, tzinfo=timezone.utc), "forgot this")])
    p.catch_up()
    dirty = {r[0] for r in p.conn.execute("SELECT key FROM nodes WHERE state = 'dirty'")}
    assert dirty == {"L0:chatgpt:2026-02-20:chatgpt:c1", "L1:chatgpt:2026-02-20", "L2:chatgpt:2026-02-16w",
                     "L3:chatgpt:2026-02", "L4:chatgpt:2026"}


def test_an_identical_rebuilt_summary_leaves_the_parents_clean(tmp_path: Path) -> None:
    """Early cut-off: the segment is redone, its text is the same, so the chain falls back to clean."""
    p = built(tmp_path)
    p.store.append([message("chatgpt:c3", "late", datetime(2026, 2, 20, 15, tzinfo=timezone.utc), "ok")])
    p.catch_up()
    leaf = "L0:chatgpt:2026-02-20:chatgpt:c3"
    before = node_rows(p.conn)
    summarize(p, leaf, before[leaf][4], before[leaf][3])
    after = node_rows(p.conn)
    assert {k for k, row in after.items() if row[0] != "clean"} == set()
    assert {k for k in after if after[k][1:] != before[k][1:]} == {leaf}


def test_a_changed_daily_marks_later_nodes_context_stale_not_dirty(tmp_path: Path) -> None:
    """A daily whose text changes stales the next two days' segments and the week's later dailies."""
    p = built(tmp_path)
    summarize(p, "L1:chatgpt:2026-02-17", "a new account of the day")
    states = dict(p.conn.execute("SELECT key, state FROM nodes WHERE state != 'clean'").fetchall())
    assert states.pop("L2:chatgpt:2026-02-16w") == "dirty"
    assert states.pop("L3:chatgpt:2026-02") == "dirty" and states.pop("L4:chatgpt:2026") == "dirty"
    assert set(states.values()) == {"context_stale"}
    assert set(states) == {"L0:chatgpt:2026-02-18:chatgpt:c1", "L0:chatgpt:2026-02-19:chatgpt:c2",
                           "L1:chatgpt:2026-02-18", "L1:chatgpt:2026-02-19", "L1:chatgpt:2026-02-20",
                           "L1:chatgpt:2026-02-21", "L1:chatgpt:2026-02-22"}


def test_replaying_summaries_rebuilds_the_same_tree(tmp_path: Path) -> None:
    """Summaries are events: a rebuild restores every title, summary and state."""
    p = built(tmp_path)
    p.store.append([message("chatgpt:c1", "late", datetime(2026, 2, 20, 15, tzinfo=timezone.utc), "more")])
    p.catch_up()
    summarize_all(p, " (v2)")
    before = node_rows(p.conn)
    p.rebuild()
    assert node_rows(p.conn) == before


def test_a_reply_streamed_over_midnight_stays_in_one_segment(tmp_path: Path) -> None:
    """Parts that share a message key belong to the day of the first part."""
    p = projector(tmp_path)
    first = message("chatgpt:c", "m1", datetime(2026, 3, 4, 23, 59, tzinfo=timezone.utc), "part one", role="assistant")
    second = message("chatgpt:c", "m1", datetime(2026, 3, 5, 0, 1, tzinfo=timezone.utc), "part two", role="assistant")
    p.store.append([first, second])
    p.catch_up()
    rows = p.conn.execute("SELECT key, message_count FROM nodes WHERE level = 0").fetchall()
    assert rows == [("L0:chatgpt:2026-03-04:chatgpt:c", 1)]


def test_node_summaries_are_searchable_with_bm25(tmp_path: Path) -> None:
    """nodes_fts ranks summaries; a new summary replaces the old text in the index."""
    p = built(tmp_path)
    summarize(p, "L1:chatgpt:2026-02-10", "I booked the ferry to Gotland")
    hits = p.conn.execute("SELECT n.key FROM nodes_fts JOIN nodes n ON n.id = nodes_fts.rowid"
                          " WHERE nodes_fts MATCH 'gotland' ORDER BY bm25(nodes_fts)").fetchall()
    assert hits == [("L1:chatgpt:2026-02-10",)]
    summarize(p, "L1:chatgpt:2026-02-10", "I cancelled the trip")
    assert p.conn.execute("SELECT COUNT(*) FROM nodes_fts WHERE nodes_fts MATCH 'gotland'").fetchone()[0] == 0
