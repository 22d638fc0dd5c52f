"""Several provider calls in flight: same calls and summaries as one at a time; budgets and 429s still hold."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from fake_llm import FakeLLM, Reply
from hierarchy_helpers import append, history, write_config
from test_summarizer_manager import CLOCK_AT

from tapestryd.clock import FixedClock
from tapestryd.operations.dayclose import close_days
from tapestryd.operations.hierarchy_jobs import Host, summarize_job
from tapestryd.operations.summarizer import Target, summarize_dirty
from tapestryd.queries.reader import Reader
from tapestryd.queries.tree import status_view
from tapestryd.summarize import make_summarizer


def build_tree(home: Path, llm: FakeLLM, open_runtime: Any, concurrency: int,
               extra: str = "") -> tuple[Any, dict[str, Any]]:
    """Three weeks, four conversations a day, summarized with ``concurrency`` calls in flight."""
    home.mkdir(exist_ok=True)
    runtime = open_runtime(write_config(home, llm=llm, concurrency=concurrency, extra=extra))
    append(runtime.store, history(date(2025, 11, 3), 21, per_day=4))
    runtime.projector.catch_up()
    result = summarize_job(Host.of_runtime(runtime), FixedClock(CLOCK_AT), max_seconds=600)
    return runtime, result


def tree_of(runtime: Any) -> dict[str, tuple[str, str]]:
    rows = runtime.projector.conn.execute("SELECT key, title, summary FROM nodes ORDER BY key")
    return {key: (title, summary) for key, title, summary in rows}


def test_four_in_flight_make_the_same_calls_and_summaries_as_one_at_a_time(tmp_path: Path, open_runtime: Any) -> None:
    """Independent nodes overlap (the server saw several at once), yet every prompt and summary is identical.

    Answers take 0.05 s where calls may overlap, so that they do; one at a time, they come at once.
    """
    trees, prompts = [], []
    for concurrency in (1, 4):
        llm = (FakeLLM(slow_from=1, slow_delay=0.05) if concurrency > 1 else FakeLLM()).start()
        try:
            runtime, result = build_tree(tmp_path / f"c{concurrency}", llm, open_runtime, concurrency)
        finally:
            llm.stop()
        assert result["failed"] == {} and result["remaining"] == 0
        assert llm.most_in_flight == concurrency
        trees.append(tree_of(runtime))
        prompts.append(sorted(c["hash"] for c in llm.calls))
    assert trees[0] == trees[1] and prompts[0] == prompts[1]
    assert len(prompts[0]) == len(trees[0])  # one call per node


def test_a_token_budget_stops_the_run_cleanly_and_status_says_why(home: Path, llm: FakeLLM,
                                                                 open_runtime: Any) -> None:
    """max_tokens_per_run reached: the run stops, what is left stays dirty, and status gives the reason."""
    runtime, result = build_tree(home, llm, open_runtime, 4, extra="max_tokens_per_run = 3000\n")
    assert result["stopped"] == "budget" and "token budget of 3000 spent" in result["reason"]
    assert result["remaining"] > 0 and result["failed"] == {}
    conn = runtime.projector.conn
    dirty = conn.execute("SELECT COUNT(*) FROM nodes WHERE state = 'dirty' AND closed = 1").fetchone()[0]
    assert dirty == result["remaining"] and len(llm.calls) == result["summarized"]
    with Reader.open(runtime.settings) as reader:
        line = status_view(reader)["runs"]["summarize"]
    assert "stopped: budget (token budget of 3000 spent" in line


def test_a_429_with_retry_after_is_waited_out_while_other_calls_fly(home: Path, llm: FakeLLM,
                                                                   open_runtime: Any) -> None:
    """The throttled call waits what Retry-After says (recorded, not slept), then its node is summarized."""
    runtime = open_runtime(write_config(home, llm=llm, concurrency=4))
    append(runtime.store, history(date(2025, 11, 3), 3, per_day=4))
    runtime.projector.catch_up()
    close_days(runtime, FixedClock(CLOCK_AT))
    llm.script.append(Reply(429, '{"error": "slow down"}', {"Retry-After": "7"}))
    waits: list[float] = []
    summarizer = make_summarizer(runtime.settings.summarize, sleep=waits.append)
    try:
        report = summarize_dirty(Target.of(runtime), summarizer)
    finally:
        summarizer.close()
    assert waits == [7.0] and report.failed == {} and report.remaining == 0
    assert len(llm.calls) == report.summarized + 1


def test_a_cost_budget_stops_the_run_cleanly_and_status_says_why(home: Path, llm: FakeLLM,
                                                                open_runtime: Any) -> None:
    """max_cost reached at the configured prices: the run stops, the rest stays dirty, status gives the reason."""
    prices = "max_cost = 0.02\ninput_price = 3.0\noutput_price = 15.0\n"
    runtime, result = build_tree(home, llm, open_runtime, 4, extra=prices)
    assert result["stopped"] == "budget" and "cost budget of 0.02 spent" in result["reason"]
    assert 0 < result["summarized"] and result["remaining"] > 0 and result["failed"] == {}
    usage = result["usage"]
    assert (usage["tokens_in"] * 3.0 + usage["tokens_out"] * 15.0) / 1e6 <= 0.02
    conn = runtime.projector.conn
    dirty = conn.execute("SELECT COUNT(*) FROM nodes WHERE state = 'dirty' AND closed = 1").fetchone()[0]
    assert dirty == result["remaining"] and len(llm.calls) == result["summarized"]
    with Reader.open(runtime.settings) as reader:
        line = status_view(reader)["runs"]["summarize"]
    assert "stopped: budget (cost budget of 0.02 spent" in line
