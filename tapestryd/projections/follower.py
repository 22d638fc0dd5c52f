"""A child process that applies events to the projections while the parent appends them.

An import spends its time in two halves that share nothing but the log: parsing and
appending (``events.db``), and applying to the projections (``projections.db``). Both are
mostly single-threaded Python, so on two cores they overlap only in two processes.
:meth:`tapestryd.projections.runner.Projector.alongside` runs the parent's work (an
ingest) and, once it has run for ``delay`` seconds, starts a :class:`Follower`: a
``spawn``-ed interpreter (never a fork of a threaded daemon) with its own read-only
connection to the log and its own projector over the same projections, which catches up
in a loop until told to stop, then until nothing is left. Every batch it applies is committed with its
checkpoint as usual, so whatever it leaves undone (it failed, it was stopped) the parent's
own catch-up afterwards applies; the two never write the projections at once, since the
parent waits for the child before it catches up (and the projector reads its checkpoints
again under the write lock, so even a stray child could not apply an event twice). The
child ends by itself when its parent is gone (killed mid-import), within :data:`POLL`
seconds or one batch. ``spawn`` imports the parent's main module again (as
``__mp_main__``), so a program that imports must guard its entry point with
``if __name__ == "__main__"`` (tapestryd, tapestryctl and the bench do); a child that fails
to start or dies only costs the overlap, never a row. A database error in the child (a full
disk) ends it quietly with :data:`STORE_FAILED`: the parent's catch-up reports it.
"""

from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path
from typing import Callable, Protocol, Sequence

from tapestryd.lazylog import get_logger
from tapestryd.projections.protocol import Projection

__all__ = ["STORE_FAILED", "Follower", "StopFlag"]

log = get_logger(__name__)

POLL = 0.05
"""Seconds the child waits for new events when it has caught up."""

STORE_FAILED = 75
"""Exit code of a child stopped by a database error (disk full...): it prints no traceback and the
parent logs no warning, since the parent's catch-up afterwards meets the same error and reports it."""


class StopFlag(Protocol):
    """What the child's loop is told to stop with (a ``multiprocessing`` Event)."""

    def is_set(self) -> bool:
        """Whether the parent asked the child to finish."""

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the flag; whether it is set."""


class Follower:
    """Starts the child after ``delay`` seconds unless stopped before; ``stop`` waits for it.

    ``events_db`` and ``projections_db`` are the two files; ``projections`` the projection
    objects (pickled to the child, so it builds the same rows); ``follow`` the child's loop
    (:func:`tapestryd.projections.runner.follow`, a module-level function the child imports).
    """

    def __init__(self, events_db: Path, projections_db: Path, projections: Sequence[Projection], delay: float,
                 follow: Callable[[Path, Path, list[Projection], StopFlag], None]) -> None:
        context = multiprocessing.get_context("spawn")
        self._stop = context.Event()
        self._process = context.Process(target=follow, args=(events_db, projections_db, list(projections), self._stop),
                                        name="tapestry-projector", daemon=True)
        self._lock = threading.Lock()
        self._started = False
        self._timer = threading.Timer(delay, self._start)
        self._timer.daemon = True
        self._timer.start()

    def _start(self) -> None:
        with self._lock:
            if self._stop.is_set():
                return
            try:
                self._process.start()
                self._started = True
            except Exception as exc:  # an unpicklable projection: the parent catches up alone afterwards
                log.warning("projection.follower_not_started", error=str(exc))

    def stop(self) -> None:
        """Tell the child to finish (one last catch-up) and wait for it; a no-op when it never started."""
        self._timer.cancel()
        with self._lock:
            self._stop.set()
            started = self._started
        if started:
            self._process.join()
            if self._process.exitcode == STORE_FAILED:
                log.info("projection.follower_store_failed")
            elif self._process.exitcode:
                log.warning("projection.follower_failed", exitcode=self._process.exitcode)
