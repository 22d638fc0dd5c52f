"""The summarizer process manager: dirty, closed nodes in, NodeSummarized events out.

It walks nodes bottom-up in chronological order (:func:`todo_nodes`), so every child and
every context node is summarized before the nodes that read it; builds each prompt with
telescoping context (:mod:`tapestryd.operations.summary_requests`); calls the provider; and
appends a ``NodeSummarized`` per node to the event log, then lets the projector catch up.

Crash safety: a summary exists only once its event is in the log. The projector marks a
node clean when its latest summary's fingerprint is the node's current one, so after a
crash or Ctrl-C a rerun skips every node already recorded and redoes at most the call
that was in flight. Event ids hash the node, both fingerprints, the provider and the
answer, so appending the same result twice is a no-op. Offline providers (``local``) get
their appends batched (flushed before any node that reads a pending summary); remote
providers append after every call, so no paid call is ever lost.

A node whose provider call fails stays dirty and its ancestors wait; the error is
recorded for ``status``. A spent budget stops the run; so do three failures in a row.

A run reads nodes through a :class:`Target`'s connection and hands its events to the
Target's ``commit``. From a Runtime (CLI, write ops) both are the runtime's own; in the
daemon the scheduled job reads through a read-only connection and commits through the
writer thread, so slow provider calls never hold up ingest. One run at a time per
process: :func:`exclusive` refuses a second one with :class:`SummarizerBusy`.

A remote provider with ``concurrency`` above 1 gets that many calls in flight
(:class:`_Window`): nodes are still taken in the bottom-up order, and a node waits only
while a node it reads (a child or a context node, :func:`dependency_keys`) is in flight,
so the conversation-days of one day (and different agents) run side by side while
telescoping context still flows in time order. Each request is built, and each answer
recorded, in the calling thread, after everything it reads is committed: the calls and
summaries are those of a run with one call at a time.

A Target's ``halted()`` is asked before every node; once it says yes (the daemon paused or
stopping) the run ends with ``stopped='halted'`` after the node in hand, whose failure (a
child process ended on purpose) is not recorded as the node's error.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator
from zoneinfo import ZoneInfo

import structlog

from tapestryd.clock import Clock, SystemClock
from tapestryd.errors import DaemonError, ProviderError
from tapestryd.events.types import NewEvent, NodeSummarized, event_id, format_utc
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.summary_requests import build_request, dependency_keys
from tapestryd.projections.hierarchy_keys import hash_parts
from tapestryd.projections.hierarchy_read import (
    NodeRow,
    get_node,
    has_dirty_child,
    todo_nodes,
)
from tapestryd.summarize.base import Budget, BudgetExhausted, Summarizer, Summary, SummaryRequest, Usage

__all__ = ["RunReport", "SummarizerBusy", "Target", "exclusive", "never", "summarize_dirty", "summarize_keys"]

log = structlog.get_logger(__name__)

Progress = Callable[[int, int, str], None]
_BATCH = 256
_MAX_FAILURES_IN_A_ROW = 3
_RUNNING = threading.Lock()


def never() -> bool:
    """A ``halted`` that never halts (runs started from the CLI or a write op)."""
    return False


class SummarizerBusy(DaemonError):
    """Another summarizer run is in progress in this process (error code ``busy``)."""

    def __init__(self) -> None:
        super().__init__("the summarizer is already running (a scheduled run or another command); try again shortly",
                         code="busy")


@contextmanager
def exclusive() -> Iterator[None]:
    """Hold the process-wide summarizer lock for the block; raises SummarizerBusy if taken."""
    if not _RUNNING.acquire(blocking=False):
        raise SummarizerBusy()
    try:
        yield
    finally:
        _RUNNING.release()


@dataclass(frozen=True)
class Target:
    """Where a run reads nodes (a projections connection, local ``tz``), how it commits events, when to halt.

    ``commit(events)`` must append them to the log and return once the projections have
    applied them; ``halted()`` is True once the run must end after the node in hand.
    """

    conn: sqlite3.Connection
    commit: Callable[[list[NewEvent]], None]
    tz: ZoneInfo
    halted: Callable[[], bool] = never

    @classmethod
    def of(cls, runtime: Runtime) -> Target:
        """The runtime's own projector connection, appending to its store and catching up."""
        def commit(events: list[NewEvent]) -> None:
            runtime.store.append(events)
            runtime.projector.catch_up()

        return cls(runtime.projector.conn, commit, runtime.settings.tz)


@dataclass
class RunReport:
    """What one run did: nodes summarized (of which unchanged), failures by node, usage, why it stopped.

    ``stopped`` is ``""`` (ran out of work), ``budget``, ``time``, ``errors``, ``halted`` (the
    daemon paused or is stopping) or ``interrupted``; ``reason`` says it in words (the
    budget spent: ``token budget of 5000 spent (5120 used)``).
    """

    summarized: int = 0
    unchanged: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    succeeded: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    remaining: int = 0
    stopped: str = ""
    reason: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: counts, failures, usage, remaining, stop reason and duration (s)."""
        return {"summarized": self.summarized, "unchanged": self.unchanged, "failed": dict(self.failed),
                "usage": self.usage.to_dict(), "remaining": self.remaining, "stopped": self.stopped,
                "reason": self.reason, "seconds": round(self.seconds, 3)}


def summarize_dirty(target: Target, summarizer: Summarizer, *, until: str = "", agent: str = "",
                    mode: str = "context", budget: Budget | None = None, max_seconds: float | None = None,
                    progress: Progress | None = None, clock: Clock | None = None) -> RunReport:
    """Summarize every dirty, closed node (period ending by ``until``, of ``agent``), bottom-up.

    ``mode`` is ``context`` (telescoping context given) or ``catchup`` (none, faster for
    bulk). Stops after ``max_seconds`` (seconds; None: no limit) with ``stopped='time'``.
    """
    keys = todo_nodes(target.conn, until=until, agent=agent)
    report = summarize_keys(target, summarizer, keys, mode=mode, budget=budget, max_seconds=max_seconds,
                            progress=progress, clock=clock)
    report.remaining = len(todo_nodes(target.conn, until=until, agent=agent))
    return report


def summarize_keys(target: Target, summarizer: Summarizer, keys: Iterable[str], *, mode: str = "context",
                   state: str = "dirty", force: frozenset[str] = frozenset(), budget: Budget | None = None,
                   max_seconds: float | None = None, progress: Progress | None = None,
                   clock: Clock | None = None) -> RunReport:
    """Summarize the nodes among ``keys`` (in the order given) that are in ``state`` or in ``force``.

    A node is skipped while any child is dirty. The caller orders ``keys`` bottom-up.
    """
    run = _Run(target, summarizer, mode, budget or Budget(), clock or SystemClock())
    window = _Window(run, _concurrency(summarizer))
    started, todo = time.monotonic(), list(keys)
    try:
        for done, key in enumerate(todo):
            if max_seconds is not None and time.monotonic() - started > max_seconds:
                run.report.stopped = "time"
                break
            if target.halted():
                run.report.stopped = "halted"
                break
            if not window.step(key, state, key in force):
                break
            if progress:
                progress(done + 1, len(todo), key)
    except KeyboardInterrupt:
        run.report.stopped = "interrupted"
        raise
    finally:
        window.close()
        run.flush()
        run.report.seconds = time.monotonic() - started
    return run.report


def _concurrency(summarizer: Summarizer) -> int:
    """Calls to keep in flight: the provider's ``concurrency`` for a remote one, else 1.

    Read with a default because test doubles and local providers need not declare it.
    """
    return 1 if summarizer.local else max(1, int(getattr(summarizer, "concurrency", 1)))


class _Window:
    """Up to ``size`` provider calls in flight for one run; requests built and answers recorded in this thread."""

    def __init__(self, run: _Run, size: int) -> None:
        self.run, self.size = run, size
        self.pool = ThreadPoolExecutor(size, thread_name_prefix="summarize") if size > 1 else None
        self.flying: dict[Future[Summary], tuple[NodeRow, str]] = {}
        self.stop = False

    def step(self, key: str, state: str, forced: bool) -> bool:
        """Start (or, with one call at a time, do) ``key`` once what it reads is settled; False to stop."""
        if self.pool is None:
            return self.run.step(key, state, forced)
        node = get_node(self.run.conn, key)
        if node is None:
            return True
        reads = dependency_keys(self.run.conn, node)
        while self.flying and (len(self.flying) >= self.size or reads & {n.key for n, _ in self.flying.values()}):
            self._settle()
        if self.stop:
            return False
        prepared = self.run.prepare(key, state, forced)
        if prepared is not None:
            request, node, context_fp = prepared
            self.flying[self.pool.submit(self.run.summarizer.summarize, request, self.run.budget)] = (node, context_fp)
        return True

    def _settle(self) -> None:
        """Wait for at least one call and record every finished one, in the order they were started."""
        done, _ = wait(list(self.flying), return_when=FIRST_COMPLETED)
        self.run.holding = True  # the answers that finished together are appended in one transaction
        try:
            for future in [f for f in self.flying if f in done]:
                node, context_fp = self.flying.pop(future)
                if not self.run.finish(node, context_fp, future):
                    self.stop = True
        finally:
            self.run.holding = False
            self.run.flush()

    def close(self) -> None:
        """Record the calls still in flight, then end the threads."""
        while self.flying:
            self._settle()
        if self.pool is not None:
            self.pool.shutdown(wait=True)


class _Run:
    """One run's state: pending appends, the report and the failure streak."""

    def __init__(self, target: Target, summarizer: Summarizer, mode: str, budget: Budget, clock: Clock) -> None:
        self.target, self.summarizer, self.mode, self.budget, self.clock = target, summarizer, mode, budget, clock
        self.conn = target.conn
        self.pending: list[NewEvent] = []
        self.pending_keys: set[str] = set()
        self.report = RunReport()
        self.streak = 0
        self.holding = False  # while True, a remote provider's answers wait for one flush (see _Window._settle)

    def step(self, key: str, state: str, forced: bool) -> bool:
        """Summarize ``key`` if it is due; False when the run must stop."""
        prepared = self.prepare(key, state, forced)
        if prepared is None:
            return True
        request, node, context_fp = prepared
        future: Future[Summary] = Future()
        try:
            future.set_result(self.summarizer.summarize(request, self.budget))
        except ProviderError as exc:
            future.set_exception(exc)
        return self.finish(node, context_fp, future)

    def prepare(self, key: str, state: str, forced: bool) -> tuple[SummaryRequest, NodeRow, str] | None:
        """The request for ``key`` (with its node and context fingerprint), or None when it is not due."""
        node = get_node(self.conn, key)
        if node is None:
            return None
        if self.pending_keys and self.pending_keys & dependency_keys(self.conn, node):
            self.flush()
            node = get_node(self.conn, key)
        if node is None or not (forced or node.state == state) or has_dirty_child(self.conn, key):
            return None
        request, context_fp = build_request(self.conn, node, self.target.tz, with_context=self.mode == "context")
        return request, node, context_fp

    def finish(self, node: NodeRow, context_fp: str, outcome: Future[Summary]) -> bool:
        """Record a finished call's summary, or its failure; False when the run must stop."""
        try:
            summary = outcome.result()
        except BudgetExhausted as exc:
            self.report.stopped, self.report.reason = "budget", exc.message
            log.info("summarizer.budget_spent", node=node.key, reason=exc.message)
            return False
        except ProviderError as exc:
            if self.target.halted():
                self.report.stopped = "halted"
                return False
            return self._failed(node, exc)
        self.streak = 0
        self._record(node, summary, context_fp)
        return True

    def _failed(self, node: NodeRow, exc: ProviderError) -> bool:
        self.report.failed[node.key] = exc.message
        self.streak += 1
        log.warning("summarizer.node_failed", node=node.key, reason=exc.message)
        if self.streak >= _MAX_FAILURES_IN_A_ROW:
            self.report.stopped, self.report.reason = "errors", f"{self.streak} failures in a row"
            return False
        return True

    def _record(self, node: NodeRow, summary: Summary, context_fp: str) -> None:
        s = self.summarizer
        body = NodeSummarized(node=node.key, level=node.level, fingerprint=node.fingerprint, provider=s.name,
                              model=s.model, prompt_version=s.prompt_version, title=summary.title, text=summary.text,
                              usage=summary.usage.to_dict(), mode=self.mode, context_fingerprint=context_fp)
        # A summary a forget blanked (provider recorded, text gone) may come back word for word with
        # the same fingerprint; the time keeps its event from being taken for the forgotten one.
        again = format_utc(self.clock.now()) if node.provider and not node.summary else ""
        key = event_id(NodeSummarized.type, node.key, node.fingerprint, context_fp, s.name, s.model,
                       s.prompt_version, self.mode, hash_parts(summary.title, summary.text),
                       *([again] if again else []))
        self.pending.append(NewEvent(key, body, self.clock.now(), agent=node.agent, source="summarizer"))
        self.pending_keys.add(node.key)
        self.report.summarized += 1
        self.report.unchanged += (summary.title, summary.text) == (node.title, node.summary)
        self.report.succeeded.append(node.key)
        self.report.usage += summary.usage
        if (not s.local and not self.holding) or len(self.pending) >= _BATCH:
            self.flush()

    def flush(self) -> None:
        """Append pending summaries in one transaction and apply them to the projections."""
        if not self.pending:
            return
        events, self.pending, self.pending_keys = self.pending, [], set()
        self.target.commit(events)
