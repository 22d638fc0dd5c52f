"""Status: what the store holds, how far each projection lags behind the log, and the daemon's state.

:func:`build_status` returns one JSON-ready dict of sections::

    {"store": {"conversations": 12, "messages": 3400, "machines": {"laptop": 3000, "desk": 400}},
     "projections": {"last_seq": 3600, "lag": {"messages": 0, ...}, "checkpoints": {...},
                     "upgrading": {"windows": {"done": 120000, "total": 1000000}}},
     "daemon": {"running": true, "pid": ..., "uptime_s": ..., ...},
     ...one key per registered section}

More sections plug in with :func:`status_section` (the hierarchy adds node counts per
level and health); each is ``fn(reader) -> JSON value`` and a failing one is reported
in place as ``{"error": "..."}`` instead of failing the whole status.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import sqlite3

from tapestryd.db import connect, translate_errors
from tapestryd.errors import StoreError
from tapestryd.paths import Paths
from tapestryd.projections import SHIPPED, backfill, checkpoints
from tapestryd.projections.messages_read import machine_counts, message_counts
from tapestryd.queries.reader import Reader

__all__ = ["SECTIONS", "build_status", "events_behind", "log_last_seq", "projection_lag", "status_section",
           "store_counts"]

Section = Callable[[Reader], Any]
SECTIONS: dict[str, Section] = {}


def status_section(name: str) -> Callable[[Section], Section]:
    """Register ``fn(reader)`` as the status section ``name`` (shown after the built-in ones)."""
    def register(fn: Section) -> Section:
        SECTIONS[name] = fn
        return fn

    return register


def build_status(reader: Reader, *, daemon: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole status; ``daemon`` is the running daemon's own state (None: not running)."""
    status: dict[str, Any] = {"store": store_counts(reader), "projections": projection_lag(reader),
                              "daemon": daemon if daemon is not None else {"running": False}}
    for name, section in SECTIONS.items():
        try:
            status[name] = section(reader)
        except StoreError as exc:
            status[name] = {"error": exc.message}
    return status


def store_counts(reader: Reader) -> dict[str, Any]:
    """How many conversations and messages the projections hold, and the messages of each machine that
    captured them (``machines``: origin → messages, most first)."""
    conversations, messages = message_counts(reader.conn)
    return {"conversations": conversations, "messages": messages, "machines": machine_counts(reader.conn)}


def log_last_seq(reader: Reader) -> int:
    """The highest seq in the event log (0 when the log does not exist yet), read-only."""
    return _last_seq(reader.paths.events_db)


def _last_seq(events_db: Path) -> int:
    if not events_db.exists():
        return 0
    conn = connect(events_db, readonly=True)
    try:
        with translate_errors(conn):
            return int(conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])
    finally:
        conn.close()


def projection_lag(reader: Reader) -> dict[str, Any]:
    """The log's last seq, each projection's checkpoint, how many seqs each lags behind, and what an upgraded
    file still writes in the background (``upgrading``: ``{part: {"done": n, "total": n}}``, absent when
    nothing is left), or ``upgrade_pending`` when a file made by an older version was not opened by a writer of
    this one yet (what it lacks is not counted until then)."""
    last = log_last_seq(reader)
    marks = checkpoints(reader.conn)
    names = [*SHIPPED, *(name for name in marks if name not in SHIPPED)]
    found = {"last_seq": last, "checkpoints": {n: marks.get(n, 0) for n in names},
             "lag": {n: max(0, last - marks.get(n, 0)) for n in names}}
    upgrading = backfill.progress(reader.conn)
    if upgrading:
        found["upgrading"] = {part: {"done": done, "total": total} for part, (done, total) in upgrading.items()}
    elif backfill.unplanned(reader.conn):
        found["upgrade_pending"] = True
    return found


def events_behind(paths: Paths) -> int:
    """How many events of the log the slowest projection has not applied (an import cut short).

    Two small read-only queries: the log's last seq and the lowest checkpoint. 0 when either
    database is missing or unreadable (the query that follows says what is wrong).
    """
    if not paths.events_db.exists() or not paths.projections_db.exists():
        return 0
    try:
        last = _last_seq(paths.events_db)
        conn = connect(paths.projections_db, readonly=True)
        try:
            marks = checkpoints(conn)
        finally:
            conn.close()
    except (sqlite3.Error, StoreError):
        return 0
    return max(0, last - min(marks.values(), default=0))


