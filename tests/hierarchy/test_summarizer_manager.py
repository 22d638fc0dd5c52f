"""The summarizer process manager against a real local HTTP LLM that counts calls."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM, Reply
from hierarchy_helpers import append, history, message, node_rows, write_config

from tapestryd.clock import FixedClock
from tapestryd.operations.dayclose import close_days
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.hierarchy_jobs import Host, repair_job, summarize_job
from tapestryd.operations.requests import RebuildRequest
from tapestryd.operations.summarizer import Target, summarize_dirty
from tapestryd.projections.hierarchy_checks import run_checks
from tapestryd.queries.reader import Reader
from tapestryd.queries.tree import hierarchy_status, status_view
from tapestryd.summarize import make_summarizer

CLOCK_AT = datetime(2026, 1, 2, 3, 0, tzinfo=timezone.utc)  # 2025 is closed: every level has closed nodes


def build(home: Path, llm: FakeLLM, open_runtime: Any, *, extra: str = "") -> tuple[Any, FixedClock]:
    """Ten weeks of 2025 (two conversations a day), days closed, everything summarized once."""
    settings = write_config(home, llm=llm, extra=extra)
    runtime = open_runtime(settings)
    append(runtime.store, history(date(2025, 10, 20), 70))
    runtime.projector.catch_up()
    clock = FixedClock(CLOCK_AT)
    result = summarize_job(Host.of_runtime(runtime), clock, max_seconds=600)
    assert result["failed"] == {} and result["remaining"] == 0
    return runtime, clock


def summarized_events(runtime: Any) -> list[Any]:
    return [e.event for e in runtime.store.read(types=["NodeSummarized"])]


def test_a_full_build_makes_one_call_per_node_and_passes_every_check(home: Path, llm: FakeLLM,
                                                                    open_runtime: Any) -> None:
    """Every closed node is summarized by exactly one call; the tree passes all structural checks."""
    runtime, _ = build(home, llm, open_runtime)
    conn = runtime.projector.conn
    nodes = conn.execute("SELECT COUNT(*) FROM nodes").fetchone()[0]
    assert conn.execute("SELECT COUNT(*) FROM nodes WHERE closed = 0").fetchone()[0] == 0
    assert len(llm.calls) == nodes == len(summarized_events(runtime)) == len({c["hash"] for c in llm.calls})
    assert {r[0] for r in conn.execute("SELECT DISTINCT state FROM nodes")} == {"clean"}
    assert all(check.ok for check in run_checks(conn))
    assert {r[0] for r in conn.execute("SELECT DISTINCT level FROM nodes")} == {0, 1, 2, 3, 4}
    with Reader.open(runtime.settings) as reader:
        assert hierarchy_status(reader)["grade"] == "A"


def prompt_of(runtime: Any, llm: FakeLLM, key: str) -> str:
    summary = runtime.projector.conn.execute("SELECT summary FROM nodes WHERE key = ?", (key,)).fetchone()[0]
    return next(c["prompt"] for c in llm.calls if c["hash"] in summary)


def test_prompts_carry_telescoping_context(home: Path, llm: FakeLLM, open_runtime: Any) -> None:
    """A continued conversation sees its earlier segment and the previous dailies; a daily sees its week."""
    runtime, _ = build(home, llm, open_runtime)
    title = lambda key: runtime.projector.conn.execute(  # noqa: E731
        "SELECT title FROM nodes WHERE key = ?", (key,)).fetchone()[0]
    segment = prompt_of(runtime, llm, "L0:chatgpt:2025-10-22:chatgpt:conv-0")
    assert "For continuity" in segment
    assert title("L0:chatgpt:2025-10-20:chatgpt:conv-0") in segment and title("L1:chatgpt:2025-10-21") in segment
    daily = prompt_of(runtime, llm, "L1:chatgpt:2025-10-22")
    assert title("L1:chatgpt:2025-10-20") in daily and title("L1:chatgpt:2025-10-21") in daily
    monthly = prompt_of(runtime, llm, "L3:chatgpt:2025-11")
    assert title("L3:chatgpt:2025-10") in monthly and title("L2:chatgpt:2025-11-03w") in monthly


def test_one_late_message_three_weeks_back_costs_exactly_five_calls(home: Path, llm: FakeLLM,
                                                                    open_runtime: Any) -> None:
    """L0, L1, L2, L3 and L4 of that day are redone; no other node's inputs or summary change."""
    runtime, clock = build(home, llm, open_runtime)
    before, calls = node_rows(runtime.projector.conn), len(llm.calls)
    runtime.store.append([message("chatgpt:conv-34", "late", datetime(2025, 12, 12, 16, tzinfo=timezone.utc),
                                  "I forgot: the Gotland ferry leaves at 07:10.")])
    summarize_job(Host.of_runtime(runtime), clock)
    chain = {"L0:chatgpt:2025-12-12:chatgpt:conv-34", "L1:chatgpt:2025-12-12", "L2:chatgpt:2025-12-08w",
             "L3:chatgpt:2025-12", "L4:chatgpt:2025"}
    assert len(llm.calls) - calls == 5
    assert {e.node for e in summarized_events(runtime)[calls:]} == chain
    after = node_rows(runtime.projector.conn)
    assert {k for k in after if after[k][1:] != before[k][1:]} == chain
    assert {row[0] for k, row in after.items() if k in chain} == {"clean"}
    assert "dirty" not in {row[0] for row in after.values()}


def test_rebuild_from_the_log_makes_no_calls_and_the_same_tree(home: Path, llm: FakeLLM, open_runtime: Any) -> None:
    """Summaries are events: the lead's rebuild operation restores the identical tree, offline."""
    runtime, _ = build(home, llm, open_runtime)
    before, calls = node_rows(runtime.projector.conn), len(llm.calls)
    runtime.close()
    run_here(runtime.settings, RebuildRequest())
    reopened = open_runtime(runtime.settings)
    assert node_rows(reopened.projector.conn) == before and len(llm.calls) == calls


def test_a_failing_endpoint_leaves_nodes_dirty_and_status_says_why(home: Path, llm: FakeLLM,
                                                                   open_runtime: Any) -> None:
    """500 on every try: nodes stay dirty, the run stops, status names the error; later it recovers."""
    runtime = open_runtime(write_config(home, llm=llm))
    append(runtime.store, history(date(2025, 12, 1), 5))
    runtime.projector.catch_up()
    llm.fail_with = Reply(500, "model is loading", {"Retry-After": "0"})
    result = summarize_job(Host.of_runtime(runtime), FixedClock(CLOCK_AT))
    assert result["stopped"] == "errors" and len(result["failed"]) == 3 and len(llm.calls) == 9
    conn = runtime.projector.conn
    assert conn.execute("SELECT COUNT(*) FROM nodes WHERE state != 'dirty'").fetchone()[0] == 0
    with Reader.open(runtime.settings) as reader:
        view = status_view(reader)
    assert view["grade"] == "B" and len(view["errors"]) == 3
    assert all("HTTP 500" in line and "model is loading" in line for line in view["errors"].values())
    assert "3 failed" in view["runs"]["summarize"] and "stopped: errors" in view["runs"]["summarize"]
    llm.fail_with = None
    assert summarize_job(Host.of_runtime(runtime), FixedClock(CLOCK_AT))["remaining"] == 0
    with Reader.open(runtime.settings) as reader:
        assert hierarchy_status(reader)["errors"] == {}


def test_catchup_builds_without_context_and_marks_it(home: Path, llm: FakeLLM, open_runtime: Any) -> None:
    """mode=catchup: no prompt carries context, every summary says catchup."""
    runtime = open_runtime(write_config(home, llm=llm))
    append(runtime.store, history(date(2025, 12, 1), 9))
    runtime.projector.catch_up()
    close_days(runtime, FixedClock(CLOCK_AT))
    summarizer = make_summarizer(runtime.settings.summarize)
    report = summarize_dirty(Target.of(runtime), summarizer, mode="catchup")
    summarizer.close()
    assert report.summarized == len(llm.calls) > 0 and report.remaining == 0
    assert not any("For continuity" in c["prompt"] for c in llm.calls)
    assert {e.mode for e in summarized_events(runtime)} == {"catchup"}


def test_the_nightly_repair_refreshes_stale_nodes_within_its_budget(home: Path, llm: FakeLLM,
                                                                    open_runtime: Any) -> None:
    """A changed daily stales later nodes; repair refreshes at most repair_budget_calls of them and says so."""
    runtime, clock = build(home, llm, open_runtime, extra="[schedule]\nrepair_budget_calls = 3\n")
    runtime.store.append([message("chatgpt:conv-34", "late", datetime(2025, 12, 12, 16, tzinfo=timezone.utc),
                                  "one more thing")])
    summarize_job(Host.of_runtime(runtime), clock)
    stale = runtime.projector.conn.execute("SELECT COUNT(*) FROM nodes WHERE state = 'context_stale'").fetchone()[0]
    assert stale > 3
    calls = len(llm.calls)
    result = repair_job(Host.of_runtime(runtime), clock)
    assert result["stale"]["summarized"] + result["cascade"]["summarized"] <= 3 and len(llm.calls) - calls <= 3
    assert result["stale"]["stopped"] == "budget" and result["grade"] == "B"
    with Reader.open(runtime.settings) as reader:
        assert "grade B" in status_view(reader)["runs"]["repair"]


def test_repair_rebuilds_a_broken_tree_from_the_log_without_calls(home: Path, llm: FakeLLM,
                                                                  open_runtime: Any) -> None:
    """A daily lost from the projection fails the checks; repair replays the log and the grade is A again."""
    runtime, clock = build(home, llm, open_runtime)
    runtime.projector.conn.execute("DELETE FROM nodes WHERE key = 'L1:chatgpt:2025-11-05'")
    assert not all(c.ok for c in run_checks(runtime.projector.conn))
    calls = len(llm.calls)
    result = repair_job(Host.of_runtime(runtime), clock)
    assert result["replayed_events"] > 0 and result["grade"] == "A" and len(llm.calls) == calls
    assert {c["name"] for c in result["checks_failed_before"]} >= {"dailies", "parent_links"}
