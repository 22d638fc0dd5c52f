"""Statements run beside the caller's: read-only connections of their own, each on a worker thread.

Python's ``sqlite3`` lets go of the GIL while SQLite steps a statement, so an FTS5 ranking on one
connection runs at the same time as another on a second connection. Search ranks the windows and the
blocks of a query (:mod:`tapestryd.queries.rerank`) and its summaries (:mod:`tapestryd.queries.search`)
on these while the caller ranks the messages; none of them needs the others' answer. The answer is the
one the same statements give run one after the other: each ranks what it read.

Each connection reads its own snapshot of ``projections.db``: a write committed between two statements
may be seen by one and not the other (a window of a message the caller cannot see yet). Callers check
what a side statement names against their own connection, as they check its filters.

:class:`InlineReads` runs the statements on the caller's own connection, in turn: for a Reader sharing
a writer's connection, whose uncommitted rows another connection would not see.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Protocol, TypeVar

from tapestryd.db import connect

__all__ = ["InlineReads", "SideReads", "ThreadedReads"]

T = TypeVar("T")
WORKERS = 3
"""Worker threads (and connections) of one :class:`ThreadedReads`: search asks at most three statements beside
its own (summaries, windows, blocks)."""


class SideReads(Protocol):
    """Where a read runs beside the caller's: :meth:`submit` gives a Future of ``fn(connection)``."""

    def submit(self, fn: Callable[[sqlite3.Connection], T]) -> Future[T]:
        """Run ``fn`` on a read-only connection to the database; its result or error is the Future's."""
        ...


class InlineReads:
    """Runs each read at once on ``conn``, the caller's connection (no thread, no second snapshot)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def submit(self, fn: Callable[[sqlite3.Connection], T]) -> Future[T]:
        """``fn(conn)`` run now; a raised error is the Future's (raised again by ``result()``)."""
        done: Future[T] = Future()
        try:
            done.set_result(fn(self.conn))
        except BaseException as exc:  # handed to result(), as a worker thread's would be
            done.set_exception(exc)
        return done


class ThreadedReads:
    """Up to :data:`WORKERS` worker threads, each with its own read-only connection to ``path``, opened at its
    first read. Threads start at the first :meth:`submit`; :meth:`close` stops them and closes the
    connections. Raises StoreError (from the Future) when ``path`` cannot be opened."""

    def __init__(self, path: Path, workers: int = WORKERS) -> None:
        self.path = path
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def submit(self, fn: Callable[[sqlite3.Connection], T]) -> Future[T]:
        """``fn`` run on a worker's connection."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="side-read")
            return self._pool.submit(lambda: fn(self._connection()))

    def _connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path, readonly=True)
            self._local.conn = conn
            with self._lock:
                self._opened.append(conn)
        return conn

    def close(self) -> None:
        """Wait for the reads under way, stop the threads and close their connections."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        with self._lock:
            opened, self._opened = self._opened, []
        for conn in opened:
            conn.close()
