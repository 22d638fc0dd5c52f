"""Hierarchy operations: iterate, generate, close_days, repair, tree, hierarchy_status.

The write operations run the summarizer process manager (:mod:`tapestryd.operations.summarizer`)
with the provider their deps open (in the daemon, a local provider runs in a child process);
each closes due days first, so "everything closed" is judged against the deps' clock, and
records its run for ``status``. ``max_seconds`` lets a client call ``iterate`` in slices and
draw a progress bar between them.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from tapestryd.clock import check_supported
from tapestryd.errors import TapestryError
from tapestryd.operations.base import ReadDeps, WriteDeps
from tapestryd.operations.checks import check_agent
from tapestryd.operations.dayclose import close_days as append_closed_days
from tapestryd.operations.hierarchy_jobs import (
    Host,
    record_checks,
    record_run,
    repair_job,
)
from tapestryd.operations.requests import (
    CloseDaysRequest,
    GenerateRequest,
    HierarchyStatusRequest,
    IterateRequest,
    RepairRequest,
    TreeRequest,
)
from tapestryd.operations.results import (
    CloseDaysResult,
    GenerateResult,
    HierarchyStatusResult,
    IterateResult,
    RepairResult,
    TreeResult,
)
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.summarizer import (
    RunReport,
    Target,
    exclusive,
    summarize_dirty,
    summarize_keys,
)
from tapestryd.projections.hierarchy_checks import run_checks
from tapestryd.projections.hierarchy_read import dirty_below
from tapestryd.queries.tree import hierarchy_status as count_hierarchy
from tapestryd.queries.tree import resolve_nodes
from tapestryd.queries.tree import tree as list_tree
from tapestryd.summarize import Budget

__all__ = ["MAX_FAILURES_IN_A_ROW", "close_days", "generate", "hierarchy_status", "iterate", "repair", "tree"]

_MODES = ("context", "catchup")

MAX_FAILURES_IN_A_ROW = 3
"""Failed nodes in a row, across the slices of one ``iterate`` command, after which it gives up."""


def iterate(request: IterateRequest, deps: WriteDeps) -> IterateResult:
    """Summarize dirty closed nodes bottom-up.

    The result's ``failed_in_a_row`` carries the streak on; a slice that ends on its time limit
    with the streak at :data:`MAX_FAILURES_IN_A_ROW` is recorded (and answered) as
    ``stopped: errors``, the reason the command gives up. Raises TapestryError for an unknown
    mode, a bad date or agent.
    """
    mode, runtime = request.mode or "context", deps.runtime
    if mode not in _MODES:
        raise TapestryError(f"mode must be context or catchup, got {mode!r}")
    with exclusive():
        closed = append_closed_days(runtime, deps.clock)
        with deps.summarizers(runtime.settings.summarize) as summarizer:
            report = summarize_dirty(Target.of(runtime), summarizer, until=_iso_date(request.until),
                                     agent=check_agent(runtime.settings, runtime.projector.conn, request.agent),
                                     mode=mode, budget=_budget(runtime), max_seconds=request.max_seconds,
                                     progress=deps.progress)
        result = {"days_closed": closed, **report.to_dict(), **_streak(report, request.failed_in_a_row)}
        record_run(runtime.paths, deps.clock, "iterate" if mode == "context" else "catchup", result, report)
        if report.summarized and not report.remaining:
            record_checks(runtime.paths, deps.clock, run_checks(runtime.projector.conn))
    return IterateResult.from_json(result)


def generate(request: GenerateRequest, deps: WriteDeps) -> GenerateResult:
    """Summarize one period's node(s) now, dirty descendants first."""
    runtime, level = deps.runtime, _level(request.level)
    append_closed_days(runtime, deps.clock)
    nodes = resolve_nodes(runtime.projector.conn, level, request.when,
                          first_day_of_week=runtime.settings.first_day_of_week, agent=request.agent,
                          conversation=request.conversation)
    if not nodes:
        raise TapestryError(f"no L{level} node for {request.when!r}" + _filters(request))
    keys = [k for n in nodes for k in dirty_below(runtime.projector.conn, n.key)] + [n.key for n in nodes]
    with exclusive():
        with deps.summarizers(runtime.settings.summarize) as summarizer:
            report = summarize_keys(Target.of(runtime), summarizer, keys, force=frozenset(n.key for n in nodes),
                                    budget=_budget(runtime))
        record_run(runtime.paths, deps.clock, "generate", report.to_dict(), report)
    return GenerateResult.from_json({"nodes": [n.key for n in nodes], **report.to_dict()})


def close_days(request: CloseDaysRequest, deps: WriteDeps) -> CloseDaysResult:
    """Append the DayClosed events that are due now."""
    return CloseDaysResult(days_closed=append_closed_days(deps.runtime, deps.clock))


def repair(request: RepairRequest, deps: WriteDeps) -> RepairResult:
    """Run the nightly repair cascade now."""
    with deps.summarizers(deps.runtime.settings.summarize) as summarizer:
        return RepairResult.from_json(repair_job(Host.of_runtime(deps.runtime), deps.clock, summarizer))


def tree(request: TreeRequest, deps: ReadDeps) -> TreeResult:
    """The summary tree between two local ISO dates, from ``min_level`` up."""
    reader = deps.reader
    found = list_tree(reader, agent=check_agent(reader.settings, reader.conn, request.agent),
                      start=_iso_date(request.start), end=_iso_date(request.end), min_level=_level(request.min_level))
    return TreeResult.from_json(found)


def hierarchy_status(request: HierarchyStatusRequest, deps: ReadDeps) -> HierarchyStatusResult:
    """Counts, usage, last runs and errors, structural checks and the grade."""
    return HierarchyStatusResult.from_json(count_hierarchy(deps.reader, checks=request.checks))


def _level(value: int | None) -> int:
    if value is None or value not in range(5):
        raise TapestryError(f"level must be 0 to 4, got {value!r}")
    return value


def _streak(report: RunReport, earlier: int) -> dict[str, Any]:
    """``failed_in_a_row`` after this slice, and ``stopped: errors`` when it reaches the limit."""
    streak = 0 if report.summarized else max(0, earlier) + len(report.failed)
    stopped = "errors" if report.stopped == "time" and streak >= MAX_FAILURES_IN_A_ROW else report.stopped
    return {"failed_in_a_row": streak, "stopped": stopped}


def _budget(runtime: Runtime) -> Budget:
    return Budget.per_run(runtime.settings.summarize)


def _iso_date(value: str) -> str:
    if not value:
        return ""
    try:
        day = date.fromisoformat(value)
    except ValueError as exc:
        raise TapestryError(f"not an ISO date (YYYY-MM-DD): {value!r}") from exc
    check_supported(day, repr(value))
    return day.isoformat()


def _filters(request: GenerateRequest) -> str:
    parts = [f"{k} {v!r}" for k, v in (("agent", request.agent), ("conversation", request.conversation)) if v]
    return f" ({', '.join(parts)})" if parts else ""
