"""The one writer thread: every write to the databases happens here, in submission order.

Tailer batches, inbox imports, write operations from the socket and scheduled jobs are
all tasks ``fn(runtime)`` submitted to :class:`Writer`; each returns a Future. Between
tasks, and after each before its Future resolves, the projections catch up with the log
one slice at a time (a write op that must be read back, such as ``ingest``, catches up
fully itself); once no task came for ``settle_after`` seconds, the projections settle (write
what they left for later while events streamed in: the open conversation blocks' documents).
This is DESIGN.md's "one writer": no two threads ever share the SQLite connections of the
:class:`~tapestryd.operations.runtime.Runtime`.
"""

from __future__ import annotations

import queue
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable, TypeVar

import structlog

from tapestryd.errors import DaemonError, TapestryError
from tapestryd.operations.runtime import Runtime

__all__ = ["Task", "Writer"]

log = structlog.get_logger(__name__)

T = TypeVar("T")
Task = Callable[[Runtime], Any]
_STOP = object()


class Writer:
    """Runs submitted tasks one at a time on its own thread, then catches projections up.

    ``on_error(name, exc)`` is told about every task that failed (the daemon keeps the
    last errors for ``status``). The projections catch up one slice of ``catch_up_slice``
    events at a time, after each task and whenever the queue is empty, so a long catch-up
    (a first start over a big log, a rebuild's backlog) never holds tasks back for more
    than one slice, and SIGTERM is honoured within seconds. The slices leave the grown blocks
    for later (``settle=False``); the projections settle once the writer was idle for
    ``settle_after`` seconds since the last slice that applied events, and before it stops, so a
    session tailed turn by turn has its open block indexed once per pause, not once per line.
    """

    def __init__(self, runtime: Runtime, *, on_error: Callable[[str, BaseException], None] = lambda n, e: None,
                 catch_up_slice: int = 250, settle_after: float = 30.0) -> None:
        self.runtime = runtime
        self.on_error = on_error
        self.catch_up_slice = catch_up_slice
        self.settle_after = settle_after
        self._unsettled = True  # the projections may hold grown blocks at start
        self._queue: queue.Queue[Any] = queue.Queue()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tapestryd-writer", daemon=True)
        self.current: str = ""
        self.busy_since: float | None = None

    def start(self) -> None:
        """Start the writer thread."""
        self._thread.start()

    @property
    def stopping(self) -> bool:
        """Whether shutdown began (long tasks check this between batches)."""
        return self._stopping.is_set()

    @property
    def alive(self) -> bool:
        """Whether the writer thread runs."""
        return self._thread.is_alive()

    def pending(self) -> int:
        """How many tasks wait in the queue."""
        return self._queue.qsize()

    def submit(self, fn: Callable[[Runtime], T], *, name: str = "task") -> Future[T]:
        """Queue ``fn(runtime)``; the Future holds its result or exception.

        After shutdown began the Future fails at once with DaemonError ``shutting_down``.
        """
        future: Future[T] = Future()
        if self.stopping:
            future.set_exception(_shutting_down())
        else:
            self._queue.put((future, fn, name))
        return future

    def run(self, fn: Callable[[Runtime], T], *, name: str = "task", timeout: float | None = None) -> T:
        """Submit ``fn`` and wait for its result (re-raising its exception)."""
        return self.submit(fn, name=name).result(timeout)

    def stop(self, timeout: float = 4.0) -> bool:
        """Finish the task in hand, fail the queued ones, stop; True if the thread ended in time."""
        self._stopping.set()
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not _STOP:
                item[0].set_exception(_shutting_down())
        self._queue.put(_STOP)
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        behind = True  # the projections may lag behind the log at start
        while True:
            try:
                item = self._queue.get(block=not behind, timeout=self.settle_after if self._unsettled else None)
            except queue.Empty:
                if behind:
                    behind = self._catch_up()
                else:
                    self._settle()
                continue
            if item is _STOP:
                self._settle()
                return
            future, fn, name = item
            if future.set_running_or_notify_cancel():
                outcome = self._execute(fn, name)
                behind = self._catch_up()
                _resolve(future, outcome)

    def _execute(self, fn: Task, name: str) -> tuple[bool, Any]:
        """``(True, result)`` or ``(False, exception)`` of one task."""
        self.current, self.busy_since = name, time.monotonic()
        try:
            return True, fn(self.runtime)
        except BaseException as exc:  # a failing task must never end the writer
            if not isinstance(exc, TapestryError):
                log.exception("writer.task_failed", task=name)
            self.on_error(name, exc)
            return False, exc
        finally:
            self.current, self.busy_since = "", None

    def _catch_up(self) -> bool:
        """Apply one slice of events to the projections; True when more may be waiting."""
        if self.stopping:
            return False
        try:
            applied = self.runtime.projector.catch_up(batch=self.catch_up_slice, max_events=self.catch_up_slice,
                                                      settle=False)
        except Exception as exc:  # a projection failure is reported, and retried after the next task
            log.exception("projection.catch_up_failed")
            self.on_error("catch_up", exc)
            return False
        self._unsettled = self._unsettled or applied > 0
        return applied > 0

    def _settle(self) -> None:
        """Let the projections write what they left for later (once per idle spell)."""
        if not self._unsettled:
            return
        try:
            self.runtime.projector.settle()
        except Exception as exc:  # reported; tried again at the next idle spell
            log.exception("projection.settle_failed")
            self.on_error("settle", exc)
            return
        self._unsettled = False


def _resolve(future: Future[Any], outcome: tuple[bool, Any]) -> None:
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


def _shutting_down() -> DaemonError:
    return DaemonError("tapestryd is shutting down", code="shutting_down")
