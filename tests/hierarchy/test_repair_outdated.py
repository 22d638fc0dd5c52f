"""A new prompt (or extractive selector) version: the nightly repair re-summarizes old nodes within its budget."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from hierarchy_helpers import append, history, write_config
from test_summarizer_manager import CLOCK_AT

from tapestryd.clock import FixedClock
from tapestryd.operations.hierarchy_jobs import Host, repair_job, summarize_job
from tapestryd.summarize import ExtractiveSummarizer
from tapestryd.summarize.extractive import EXTRACTIVE_VERSION


class OldExtractive(ExtractiveSummarizer):
    """The same provider as it was before its version changed."""

    prompt_version = "x-old"


def versions(runtime: Any) -> dict[str, int]:
    rows = runtime.projector.conn.execute("SELECT prompt_version, COUNT(*) FROM nodes WHERE closed = 1 "
                                          "GROUP BY prompt_version")
    return dict(rows.fetchall())


def test_repair_resummarizes_nodes_of_an_older_version_within_its_budget(home: Path, open_runtime: Any) -> None:
    """Each night at most repair_budget_calls old nodes are redone, bottom-up, until none is left."""
    runtime = open_runtime(write_config(home, extra="[schedule]\nrepair_budget_calls = 5\n"))
    append(runtime.store, history(date(2025, 11, 3), 6))
    runtime.projector.catch_up()
    clock, host = FixedClock(CLOCK_AT), Host.of_runtime(runtime)
    assert summarize_job(host, clock, summarizer=OldExtractive(), max_seconds=600)["remaining"] == 0
    old = versions(runtime)["x-old"]
    assert set(versions(runtime)) == {"x-old"} and old > 10
    first = repair_job(host, clock)
    assert first["outdated"]["summarized"] == 5 and first["outdated"]["stopped"] == "budget"
    assert versions(runtime) == {"x-old": old - 5, EXTRACTIVE_VERSION: 5}
    redone = runtime.projector.conn.execute(f"SELECT level FROM nodes WHERE prompt_version = '{EXTRACTIVE_VERSION}'")
    assert {r[0] for r in redone} <= {0, 1}  # bottom-up, oldest first: the first days, never a week before them
    for _ in range(old // 5 + 1):
        repair_job(host, clock)
    assert versions(runtime) == {EXTRACTIVE_VERSION: old}
    assert repair_job(host, clock)["outdated"]["summarized"] == 0
