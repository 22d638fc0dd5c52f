"""The daemon's way of running the summarizer: provider calls off the writer thread, appends through it."""

from __future__ import annotations

import threading
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from hierarchy_helpers import append, history, write_config

from tapestryd.clock import FixedClock
from tapestryd.daemon.writer import Writer
from tapestryd.operations.hierarchy_jobs import Host, summarize_job
from tapestryd.operations.summarizer import exclusive
from tapestryd.summarize import Budget, ExtractiveSummarizer, Summary, SummaryRequest


class ThreadSpy(ExtractiveSummarizer):
    """The extractive provider, noting which thread each call ran on."""

    def __init__(self) -> None:
        self.threads: set[str] = set()

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        self.threads.add(threading.current_thread().name)
        return super().summarize(request, budget)


def test_scheduled_summaries_call_the_provider_off_the_writer_thread(home: Path, open_runtime: Any) -> None:
    """Host.of_daemon reads through its own connection and commits through the writer; the tree completes."""
    runtime = open_runtime(write_config(home))
    append(runtime.store, history(date(2025, 12, 1), 10))
    runtime.projector.catch_up()
    writer = Writer(runtime)
    writer.start()
    spy = ThreadSpy()
    try:
        with Host.of_daemon(runtime.settings, writer) as host:
            result = summarize_job(host, FixedClock(datetime(2026, 1, 2, 3, tzinfo=timezone.utc)), spy)
    finally:
        writer.stop()
    assert result["remaining"] == 0 and result["summarized"] > 10
    assert spy.threads == {threading.current_thread().name}
    states = {r[0] for r in runtime.projector.conn.execute("SELECT DISTINCT state FROM nodes")}
    assert states == {"clean"}


def test_a_second_run_while_one_is_busy_is_skipped(home: Path, open_runtime: Any) -> None:
    """Two summarizer runs never overlap: a job that finds the lock taken skips its turn."""
    runtime = open_runtime(write_config(home))
    with exclusive():
        result = summarize_job(Host.of_runtime(runtime), FixedClock(datetime(2026, 1, 2, tzinfo=timezone.utc)))
    assert "already running" in result["skipped"]
