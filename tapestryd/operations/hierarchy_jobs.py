"""Scheduler jobs of the hierarchy, as plain functions of a :class:`Host` and a Clock.

* :func:`close_days_job`: append the DayClosed events that are due (on start, then every
  minute; cheap when nothing is due).
* :func:`summarize_job`: close due days, then summarize dirty closed nodes with context,
  for at most ``max_seconds`` per run (the next run continues).
* :func:`repair_job`: the nightly repair cascade at ``schedule.repair_time``: structural
  checks (a broken tree is rebuilt from the log, with zero provider calls), dirty and
  missing nodes rebuilt, ``context_stale`` nodes refreshed within
  ``schedule.repair_budget_calls``, then, within what is left of it, the nodes the provider
  summarized with an older prompt version (a changed prompt or extractive selector
  re-summarizes old nodes night after night), checks again.

A Host is a Runtime used in place (:meth:`Host.of_runtime`: the CLI, write ops, tests) or
the daemon's writer thread plus a read-only connection (:meth:`Host.of_daemon`), so
provider calls run off the writer thread. Every job writes what it did into
``<data>/cache/hierarchy.json`` (:func:`tapestryd.queries.tree.record_file`), which
``status`` shows: the last run of each kind, the last error of each node that failed
(cleared when it succeeds), and the structural checks of the last run that left nothing
dirty (so ``status`` need not rerun them). Jobs skip their turn while another summarizer run holds the
lock (:func:`tapestryd.operations.summarizer.exclusive`).
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, TypeVar

import structlog

from tapestryd.clock import Clock
from tapestryd.config import Settings
from tapestryd.errors import TapestryError
from tapestryd.events.types import NewEvent, format_utc
from tapestryd.operations.dayclose import close_days
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.summarizer import (
    RunReport,
    SummarizerBusy,
    Target,
    exclusive,
    never,
    summarize_dirty,
    summarize_keys,
)
from tapestryd.paths import Paths, paths_for
from tapestryd.projections.hierarchy_checks import Check, grade, run_checks
from tapestryd.projections.hierarchy_read import outdated_nodes, todo_nodes
from tapestryd.queries.reader import Reader
from tapestryd.queries.tree import read_record, record_file
from tapestryd.summarize import Budget, Summarizer, make_summarizer

__all__ = ["Host", "close_days_job", "record_checks", "record_run", "repair_job", "summarize_job"]

log = structlog.get_logger(__name__)
T = TypeVar("T")
_MAX_ERRORS = 50
_STRUCTURAL = {"parent_links", "orphans", "sources_resolve", "dailies", "duplicates"}


class WriterLike(Protocol):
    """The daemon's writer: runs ``fn(runtime)`` on its thread and returns the result."""

    def run(self, fn: Callable[[Runtime], T], *, name: str = ..., timeout: float | None = ...) -> T: ...


@dataclass(frozen=True)
class Host:
    """What a hierarchy job needs: settings, paths, a Target for runs, and a way to write."""

    settings: Settings
    paths: Paths
    target: Target
    write: Callable[[Callable[[Runtime], Any]], Any]

    @classmethod
    def of_runtime(cls, runtime: Runtime) -> Host:
        """Everything done in place on ``runtime`` (this thread holds it)."""
        return cls(runtime.settings, runtime.paths, Target.of(runtime), lambda fn: fn(runtime))

    @classmethod
    @contextmanager
    def of_daemon(cls, settings: Settings, writer: WriterLike, *,
                  halted: Callable[[], bool] = never) -> Iterator[Host]:
        """Reads through a read-only connection of its own; writes queued to ``writer``; runs end once ``halted()``."""
        def commit(events: list[NewEvent]) -> None:
            writer.run(lambda runtime: Target.of(runtime).commit(events), name="summaries")

        reader = Reader.open(settings)
        try:
            yield cls(settings, paths_for(settings), Target(reader.conn, commit, settings.tz, halted),
                      lambda fn: writer.run(fn, name="hierarchy"))
        finally:
            reader.close()


def close_days_job(host: Host, clock: Clock) -> int:
    """Append due DayClosed events; returns how many were new."""
    return int(host.write(lambda runtime: close_days(runtime, clock)))


def summarize_job(host: Host, clock: Clock, summarizer: Summarizer | None = None, *,
                  max_seconds: float = 300.0) -> dict[str, Any]:
    """Close due days, then summarize dirty closed nodes for up to ``max_seconds``; returns the run."""
    return _guarded(host, clock, "summarize", summarizer, lambda s: _summarize(host, clock, s, max_seconds))


def repair_job(host: Host, clock: Clock, summarizer: Summarizer | None = None) -> dict[str, Any]:
    """The nightly repair cascade (see the module docstring); returns what it did."""
    return _guarded(host, clock, "repair", summarizer, lambda s: _repair(host, clock, s))


def _guarded(host: Host, clock: Clock, kind: str, summarizer: Summarizer | None,
             work: Callable[[Summarizer], dict[str, Any]]) -> dict[str, Any]:
    try:
        with exclusive():
            provider = summarizer or make_summarizer(host.settings.summarize)
            try:
                return work(provider)
            finally:
                if summarizer is None:
                    provider.close()
    except SummarizerBusy as exc:
        return {"skipped": exc.message}
    except TapestryError as exc:
        record_run(host.paths, clock, kind, {"error": exc.message})
        return {"error": exc.message}


def _budget(settings: Settings) -> Budget:
    return Budget.per_run(settings.summarize)


def _summarize(host: Host, clock: Clock, summarizer: Summarizer, max_seconds: float) -> dict[str, Any]:
    closed = close_days_job(host, clock)
    report = summarize_dirty(host.target, summarizer, budget=_budget(host.settings), max_seconds=max_seconds,
                             clock=clock)
    result = {"days_closed": closed, **report.to_dict()}
    record_run(host.paths, clock, "summarize", result, report)
    if report.summarized and not report.remaining:
        record_checks(host.paths, clock, run_checks(host.target.conn))
    return result


def _repair(host: Host, clock: Clock, summarizer: Summarizer) -> dict[str, Any]:
    closed = close_days_job(host, clock)
    before = run_checks(host.target.conn)
    broken = [c.name for c in before if not c.ok and c.name in _STRUCTURAL]
    replayed = int(host.write(lambda runtime: runtime.projector.rebuild())) if broken else 0
    if broken:
        log.warning("hierarchy.rebuilt", reason=broken, events=replayed)
    dirty = summarize_dirty(host.target, summarizer, budget=_budget(host.settings), clock=clock)
    stale_budget = Budget(host.settings.schedule.repair_budget_calls)
    stale = summarize_keys(host.target, summarizer, todo_nodes(host.target.conn, state="context_stale"),
                           state="context_stale", budget=stale_budget, clock=clock)
    outdated = summarize_keys(host.target, summarizer,
                              outdated_nodes(host.target.conn, summarizer.name, summarizer.prompt_version),
                              state="clean", budget=stale_budget, clock=clock)
    cascade = summarize_dirty(host.target, summarizer, budget=stale_budget, clock=clock)
    after = run_checks(host.target.conn)
    waiting = len(todo_nodes(host.target.conn)) + len(todo_nodes(host.target.conn, state="context_stale"))
    result = {"days_closed": closed, "checks_failed_before": [c.to_dict() for c in before if not c.ok],
              "replayed_events": replayed, "dirty": dirty.to_dict(), "stale": stale.to_dict(),
              "outdated": outdated.to_dict(), "cascade": cascade.to_dict(), "checks": [c.to_dict() for c in after],
              "waiting": waiting, "grade": grade(after, waiting)}
    record_run(host.paths, clock, "repair", result, dirty, stale, outdated, cascade)
    record_checks(host.paths, clock, after)
    return result


def record_run(paths: Paths, clock: Clock, kind: str, result: dict[str, Any], *reports: RunReport) -> None:
    """Store ``result`` as the last run of ``kind`` and update per-node errors from ``reports``."""
    record = read_record(paths)
    now = format_utc(clock.now())
    record.setdefault("runs", {})[kind] = {"at": now, **result}
    errors: dict[str, Any] = record.setdefault("errors", {})
    for report in reports:
        for key in report.succeeded:
            errors.pop(key, None)
        errors.update({key: {"error": message, "at": now} for key, message in report.failed.items()})
    record["errors"] = dict(sorted(errors.items(), key=lambda kv: str(kv[1]["at"]))[-_MAX_ERRORS:])
    _write_json(record_file(paths), record)


def record_checks(paths: Paths, clock: Clock, checks: list[Check]) -> None:
    """Store the results of the structural checks, for a ``status`` that does not rerun them."""
    record = read_record(paths)
    record["checks"] = {"at": format_utc(clock.now()), "results": [c.to_dict() for c in checks]}
    _write_json(record_file(paths), record)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: a temporary file beside ``path``, then rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str))
    os.replace(tmp, path)
