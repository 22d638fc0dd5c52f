"""Hierarchy operations: iterate, catchup, generate, close_days, repair, tree, hierarchy_status.

The write ops run the summarizer process manager (:mod:`tapestryd.daemon.summarizer`)
with the configured provider; each closes due days first, so "everything closed" is
judged against the wall clock, and records its run for ``status``. ``max_seconds`` lets a
client call ``iterate`` in slices and draw a progress bar between them.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import date
from typing import Any, Iterator

from tapestryd.clock import SystemClock, check_supported
from tapestryd.daemon.dayclose import close_days
from tapestryd.daemon.hierarchy_jobs import Host, record_checks, record_run, repair_job
from tapestryd.daemon.ops.daemon_ops import DAEMON_ARG
from tapestryd.daemon.ops.query_ops import check_agent
from tapestryd.daemon.ops.registry import read_op, write_op
from tapestryd.daemon.runtime import Runtime
from tapestryd.daemon.summarizer import RunReport, Target, exclusive, summarize_dirty, summarize_keys
from tapestryd.daemon.summary_worker import isolated
from tapestryd.errors import TapestryError
from tapestryd.projections.hierarchy_checks import run_checks
from tapestryd.queries.reader import Reader
from tapestryd.queries.tree import hierarchy_status, resolve_nodes, tree
from tapestryd.summarize import Budget, Summarizer, make_summarizer

__all__ = ["MAX_FAILURES_IN_A_ROW"]

_MODES = ("context", "catchup")


MAX_FAILURES_IN_A_ROW = 3
"""Failed nodes in a row, across the slices of one ``iterate`` command, after which it gives up."""


@write_op("iterate")
def iterate(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Summarize dirty closed nodes bottom-up; args: until (ISO date), agent, mode, max_seconds,
    failed_in_a_row (failures in a row in the earlier slices of the same command).

    The result's ``failed_in_a_row`` carries the streak on; a slice that ends on its time limit
    with the streak at :data:`MAX_FAILURES_IN_A_ROW` is recorded (and answered) as
    ``stopped: errors``, the reason the command gives up.
    """
    mode = str(args.get("mode") or "context")
    if mode not in _MODES:
        raise TapestryError(f"mode must be context or catchup, got {mode!r}")
    clock = SystemClock()
    with exclusive():
        closed = close_days(runtime, clock)
        with _summarizer(runtime, args) as summarizer:
            report = summarize_dirty(Target.of(runtime), summarizer, until=_iso_date(args.get("until")),
                                     agent=check_agent(runtime.settings, runtime.projector.conn, args.get("agent")),
                                     mode=mode, budget=_budget(runtime),
                                     max_seconds=_seconds(args.get("max_seconds")), progress=args.get("_progress"))
        result = {"days_closed": closed, **report.to_dict(), **_streak(report, args.get("failed_in_a_row"))}
        record_run(runtime.paths, clock, "iterate" if mode == "context" else "catchup", result, report)
        if report.summarized and not report.remaining:
            record_checks(runtime.paths, clock, run_checks(runtime.projector.conn))
    return result


@write_op("generate")
def generate(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Summarize one period's node(s) now, dirty descendants first; args: level, when, agent, conversation."""
    level = _level(args.get("level"))
    clock = SystemClock()
    close_days(runtime, clock)
    nodes = resolve_nodes(runtime.projector.conn, level, str(args.get("when") or ""),
                          first_day_of_week=runtime.settings.first_day_of_week, agent=str(args.get("agent") or ""),
                          conversation=str(args.get("conversation") or ""))
    if not nodes:
        raise TapestryError(f"no L{level} node for {args.get('when')!r}" + _filters(args))
    keys = [k for n in nodes for k in _dirty_below(runtime, n.key)] + [n.key for n in nodes]
    with exclusive():
        with _summarizer(runtime, args) as summarizer:
            report = summarize_keys(Target.of(runtime), summarizer, keys, force=frozenset(n.key for n in nodes),
                                    budget=_budget(runtime))
        record_run(runtime.paths, clock, "generate", report.to_dict(), report)
    return {"nodes": [n.key for n in nodes], **report.to_dict()}


@write_op("close_days")
def close_days_op(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Append the DayClosed events that are due now."""
    return {"days_closed": close_days(runtime, SystemClock())}


@write_op("repair")
def repair_op(runtime: Runtime, args: dict[str, Any]) -> dict[str, Any]:
    """Run the nightly repair cascade now."""
    with _summarizer(runtime, args) as summarizer:
        return repair_job(Host.of_runtime(runtime), SystemClock(), summarizer)


@read_op("tree")
def tree_op(reader: Reader, args: dict[str, Any]) -> list[dict[str, Any]]:
    """The summary tree; args: agent, start, end (local ISO dates), min_level (0–4, default 1)."""
    return tree(reader, agent=check_agent(reader.settings, reader.conn, args.get("agent")),
                start=_iso_date(args.get("start")),
                end=_iso_date(args.get("end")), min_level=_level(args.get("min_level", 1)))


@read_op("hierarchy_status")
def hierarchy_status_op(reader: Reader, args: dict[str, Any]) -> dict[str, Any]:
    """Counts, usage, last runs and errors, structural checks and the grade."""
    return hierarchy_status(reader, checks=bool(args.get("checks", True)))


@contextmanager
def _summarizer(runtime: Runtime, args: dict[str, Any]) -> Iterator[Summarizer]:
    """The configured provider; in the daemon a local one runs in a child process, so the
    long-lived daemon never loads scikit-learn (:mod:`tapestryd.daemon.summary_worker`)."""
    if DAEMON_ARG in args:
        with isolated(runtime.settings.summarize) as summarizer:
            yield summarizer
        return
    summarizer = make_summarizer(runtime.settings.summarize)
    try:
        yield summarizer
    finally:
        summarizer.close()


def _dirty_below(runtime: Runtime, key: str) -> list[str]:
    rows = runtime.projector.conn.execute(
        "WITH RECURSIVE below(key) AS (SELECT key FROM nodes WHERE parent = ?"
        " UNION ALL SELECT n.key FROM nodes n JOIN below b ON n.parent = b.key)"
        " SELECT n.key FROM nodes n JOIN below b ON b.key = n.key WHERE n.state = 'dirty'"
        " ORDER BY n.period_end, n.level, n.period_start, n.key", (key,))
    return [r[0] for r in rows]


def _level(value: Any) -> int:
    try:
        level = int(value)
    except (TypeError, ValueError):
        level = -1
    if level not in range(5):
        raise TapestryError(f"level must be 0 to 4, got {value!r}")
    return level


def _streak(report: RunReport, earlier: Any) -> dict[str, Any]:
    """``failed_in_a_row`` after this slice, and ``stopped: errors`` when it reaches the limit."""
    try:
        streak = 0 if report.summarized else max(0, int(earlier or 0)) + len(report.failed)
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"failed_in_a_row must be a number, got {earlier!r}") from exc
    stopped = "errors" if report.stopped == "time" and streak >= MAX_FAILURES_IN_A_ROW else report.stopped
    return {"failed_in_a_row": streak, "stopped": stopped}


def _budget(runtime: Runtime) -> Budget:
    return Budget(runtime.settings.summarize.budget_calls, runtime.settings.summarize.budget_tokens)


def _iso_date(value: Any) -> str:
    if not value:
        return ""
    try:
        day = date.fromisoformat(str(value))
    except ValueError as exc:
        raise TapestryError(f"not an ISO date (YYYY-MM-DD): {value!r}") from exc
    check_supported(day, repr(str(value)))
    return day.isoformat()


def _seconds(value: Any) -> float | None:
    try:
        return float(value) if value not in (None, "") else None
    except (TypeError, ValueError) as exc:
        raise TapestryError(f"max_seconds must be a number, got {value!r}") from exc


def _filters(args: dict[str, Any]) -> str:
    parts = [f"{k} {args[k]!r}" for k in ("agent", "conversation") if args.get(k)]
    return f" ({', '.join(parts)})" if parts else ""
