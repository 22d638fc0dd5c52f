"""The projector: applies logged events to projections, checkpointed, replayable.

Each projection keeps a checkpoint (the last seq it applied) in ``projections.db``; the
checkpoint is written in the same transaction as the rows the events produced, so a crash
never applies an event twice or skips one (the tracking-record pattern of
pyeventsourcing's ``projection.py``). ``rebuild`` is "clear, checkpoint 0, catch up": the
incremental path and the replay path are one code path. A :class:`BufferedProjection`
(one with ``flush``) writes what it held back during a batch when the runner flushes it,
after the batch's last event and before the commit.

A :class:`BatchProjection` (one with ``apply_batch`` and ``batch_safe``) takes a whole batch
in one call. The runner uses that path only when every projection offers it and every one
says the batch is safe to take projection by projection (the messages projection refuses
a batch that deletes messages, which the hierarchy would otherwise see too early); else it
applies event by event. Both paths leave identical rows.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import sqlite3
import sys
import time
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from tapestryd.db import connect, transaction
from tapestryd.errors import StoreError
from tapestryd.events.store import EventStore
from tapestryd.events.types import StoredEvent
from tapestryd.lazylog import get_logger, warnings_to_stderr
from tapestryd.projections.checkpoint_read import checkpoints
from tapestryd.projections.follower import POLL, STORE_FAILED, Follower, StopFlag
from tapestryd.projections.protocol import (BatchProjection, BufferedProjection, LogReadingProjection, Projection,
                                            SettlingProjection, UpgradingProjection)

__all__ = ["Projector", "checkpoints", "follow"]

log = get_logger(__name__)

T = TypeVar("T")

FOLLOW_AFTER = 0.5
"""Seconds an import runs before a child process starts applying its events alongside."""

BATCH = 5000
"""Events per transaction of a catch-up: about 5 MB of message text at ChatGPT export sizes; fewer,
larger FTS5 segments to write and merge than 2,000 (200 MB export: commits 2.1 s -> 1.6 s of CPU)."""


def _create_checkpoints(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, seq INTEGER NOT NULL)")


class Projector:
    """Runs projections over the event log into one SQLite database.

    ``store`` is the event log; ``db_path`` the projections file (created when missing);
    ``projections`` satisfy :class:`~tapestryd.projections.protocol.Projection`, with its optional
    hooks: a :class:`~tapestryd.projections.protocol.LogReadingProjection` is handed the log (the
    messages projection reads earlier parts of a message back from it).
    """

    def __init__(self, store: EventStore, db_path: Path, projections: Sequence[Projection]) -> None:
        self.store = store
        self.db_path = db_path
        self.projections = list(projections)
        for projection in self.projections:
            if isinstance(projection, LogReadingProjection):
                projection.attach_log(store)
        self.conn = connect(db_path, durable=False)
        with transaction(self.conn):
            _create_checkpoints(self.conn)
            for projection in self.projections:
                projection.create(self.conn)

    def close(self) -> None:
        """Close the projections database."""
        self.conn.close()

    def checkpoint(self, name: str) -> int:
        """The last seq applied by projection ``name`` (0 if none)."""
        return checkpoints(self.conn).get(name, 0)

    def lag(self) -> dict[str, int]:
        """How many seqs each projection is behind the log."""
        last, marks = self.store.last_seq(), checkpoints(self.conn)
        return {p.name: max(0, last - marks.get(p.name, 0)) for p in self.projections}

    def catch_up(self, *, batch: int = BATCH, max_events: int | None = None, settle: bool = True) -> int:
        """Apply every event after each projection's checkpoint; returns how many were read.

        Work is committed every ``batch`` events; ``max_events`` bounds one call (the
        daemon uses it to stay responsive). With ``settle`` (the default) the projections
        then write what they left for later (:meth:`settle`), so the rows are a rebuild's;
        the daemon's writer passes False while events stream in and settles once idle.
        """
        started, total = time.monotonic(), 0
        while max_events is None or total < max_events:
            applied = self._apply_batch(batch)
            if not applied:
                break
            total += applied
        if settle:
            self.settle()
        if total:
            log.debug("projection.caught_up", events=total, seconds=round(time.monotonic() - started, 3))
        return total

    def settle(self) -> None:
        """Let each :class:`~tapestryd.projections.protocol.SettlingProjection` write what it left for
        later (the messages projection's grown blocks), in one transaction."""
        settling = [p for p in self.projections if isinstance(p, SettlingProjection) and p.unsettled(self.conn)]
        if settling:
            with transaction(self.conn):
                for projection in settling:
                    projection.settle(self.conn)

    def alongside(self, work: Callable[[], T], *, delay: float | None = None) -> T:
        """Run ``work`` (which appends to the log) while a child process applies what it appends,
        then catch up here; returns what ``work`` returned.

        On two cores an import's two halves (parse and append; apply to the projections)
        then overlap. The child (:mod:`tapestryd.projections.follower`) starts only when
        ``work`` still runs after ``delay`` seconds (default :data:`FOLLOW_AFTER`, read at each
        call), so a small import costs no process. This
        projector's connection must stay unused until ``work`` returns. When ``work`` raises,
        the child is still stopped and waited for, and the error propagates without a final
        catch-up (the next one applies what was appended).
        """
        follower = Follower(self.store.path, self.db_path, self.projections,
                            FOLLOW_AFTER if delay is None else delay, follow)
        try:
            result = work()
        finally:
            follower.stop()
        self.catch_up()
        return result

    def _apply_batch(self, batch: int) -> int:
        """Apply up to ``batch`` events in one transaction; how many were read (0: caught up).

        The checkpoints are read again once the write lock is held: another projector over
        the same file (a :class:`~tapestryd.projections.follower.Follower` child) may have
        applied events since, and they must not be applied twice.
        """
        marks = checkpoints(self.conn)
        events = self._read(self._low(marks), batch)
        if not events:
            return 0
        try:
            with transaction(self.conn):
                fresh = checkpoints(self.conn)
                if fresh != marks:
                    marks, events = fresh, self._read(self._low(fresh), batch)
                if events:
                    self._apply_events(marks, events)
        except BaseException:
            for projection in self._buffered():
                projection.discard()
            raise
        return len(events)

    def _low(self, marks: dict[str, int]) -> int:
        return min((marks.get(p.name, 0) for p in self.projections), default=0)

    def _buffered(self) -> list[BufferedProjection]:
        return [p for p in self.projections if isinstance(p, BufferedProjection)]

    def _read(self, after: int, batch: int) -> list[StoredEvent]:
        return list(itertools.islice(self.store.read(after=after, batch=batch), batch))

    def _apply_events(self, marks: dict[str, int], events: list[StoredEvent]) -> None:
        """Apply the batch (see the module docstring for the two paths), flush, write checkpoints."""
        batched = self._batched()
        if batched is not None and all(p.batch_safe(self.conn, events) for p in batched):
            for each in batched:
                mine = _wanted(each, marks, events)
                if mine:
                    each.apply_batch(self.conn, mine)
        else:
            self._apply_one_by_one(marks, events)
        for buffered in self._buffered():
            buffered.flush(self.conn)
        for projection in self.projections:
            self.conn.execute(
                "INSERT INTO checkpoints VALUES (?, ?) ON CONFLICT(projection) DO UPDATE SET seq = excluded.seq",
                (projection.name, max(marks.get(projection.name, 0), events[-1].seq)),
            )

    def _apply_one_by_one(self, marks: dict[str, int], events: list[StoredEvent]) -> None:
        """Event by event, each to every projection in order, so a projection that reads another's
        rows (the hierarchy reads messages) sees them as of that event, whatever the batch size:
        a message forgotten later in the same batch is still there when the hierarchy files it."""
        wanted = {p.name: set(p.types) for p in self.projections}
        for event in events:
            for projection in self.projections:
                types = wanted[projection.name]
                if event.seq > marks.get(projection.name, 0) and (not types or event.type in types):
                    projection.apply(self.conn, event)

    def _batched(self) -> list[BatchProjection] | None:
        """The projections as batch projections, or None when one of them is not."""
        batched = [p for p in self.projections if isinstance(p, BatchProjection)]
        return batched if len(batched) == len(self.projections) else None

    def upgrade_step(self) -> bool:
        """Write one chunk of what an upgraded file lacks (the first :class:`UpgradingProjection` with work left)
        in one transaction; returns whether more is left (False: every projection is up to date).

        The daemon's writer runs it one chunk per task until False, so what it captures meanwhile is applied
        between chunks; a restart resumes where the last committed chunk left off.
        """
        with transaction(self.conn):
            return any(p.upgrade_step(self.conn) for p in self.projections if isinstance(p, UpgradingProjection))

    def upgrade(self) -> int:
        """Run :meth:`upgrade_step` until nothing is left (the CLI and tests); returns how many steps had more left."""
        steps = 0
        while self.upgrade_step():
            steps += 1
        return steps

    def rebuild(self) -> int:
        """Clear every projection, reset checkpoints to 0 and replay the whole log."""
        with transaction(self.conn):
            for projection in self.projections:
                projection.clear(self.conn)
            self.conn.execute("DELETE FROM checkpoints")
        log.info("projection.cleared", projections=[p.name for p in self.projections])
        return self.catch_up()


def _wanted(projection: Projection, marks: dict[str, int], events: list[StoredEvent]) -> list[StoredEvent]:
    """The events of ``events`` after ``projection``'s checkpoint and of a type it reads."""
    mark, types = marks.get(projection.name, 0), set(projection.types)
    return [e for e in events if e.seq > mark and (not types or e.type in types)]


def follow(events_db: Path, projections_db: Path, projections: list[Projection], stop: StopFlag) -> None:
    """A :class:`~tapestryd.projections.follower.Follower` child's loop: catch up a batch at a
    time, wait ``POLL`` seconds when nothing was new; once ``stop`` is set, finish what the log
    holds, settle (the grown blocks are written here, alongside the parent, not by its last
    catch-up) and return. Returns at once when the parent died.

    What the child holds once set up (modules, the projections) lives as long as it does, so it is
    frozen out of the garbage collector's sight (:func:`gc.freeze`): the full collections that an
    import's allocations set off walk only what the batches made."""
    warnings_to_stderr()
    parent = multiprocessing.parent_process()
    try:
        store = EventStore(events_db, readonly=True)
        projector = Projector(store, projections_db, projections)
    except StoreError:
        sys.exit(STORE_FAILED)
    gc.freeze()
    try:
        while parent is None or parent.is_alive():
            last = stop.is_set()  # read before the pass: that pass then sees every event appended
            applied = projector.catch_up(max_events=BATCH, settle=False)
            if last and not applied:
                projector.settle()
                return
            if not applied:
                stop.wait(POLL)
    except StoreError:  # a full disk, say: the parent's own catch-up meets it again and reports it once
        sys.exit(STORE_FAILED)
    finally:
        projector.close()
        store.close()
