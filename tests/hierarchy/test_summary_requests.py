"""What a node's request carries: a day (L1) brings its conversations' messages besides their summaries."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from hierarchy_helpers import append, history, write_config
from test_summarizer_manager import CLOCK_AT

from tapestryd.clock import FixedClock
from tapestryd.operations.hierarchy_jobs import Host, summarize_job
from tapestryd.operations.summary_requests import build_request
from tapestryd.projections.hierarchy_read import children, get_node


def test_a_day_request_carries_each_conversation_days_messages(home: Path, open_runtime: Any) -> None:
    """One tuple of message passages per child, in the children's order; the inputs stay their summaries;
    other levels carry none."""
    runtime = open_runtime(write_config(home))
    append(runtime.store, history(date(2025, 12, 1), 2, per_day=2))
    runtime.projector.catch_up()
    assert summarize_job(Host.of_runtime(runtime), FixedClock(CLOCK_AT))["remaining"] == 0
    conn = runtime.projector.conn
    day = get_node(conn, "L1:chatgpt:2025-12-01")
    assert day is not None
    request, _ = build_request(conn, day, ZoneInfo("UTC"), with_context=False)
    kids = children(conn, day.key)
    assert len(kids) == 2 and [p.text for p in request.inputs] == [k.summary for k in kids]
    assert [len(group) for group in request.sources] == [3, 3]
    assert [p.role for p in request.sources[0]] == ["user", "assistant", "user"]
    assert request.sources[0][0].text.startswith("On Monday I met")
    for kid in kids:
        assert build_request(conn, kid, ZoneInfo("UTC"), with_context=False)[0].sources == ()
