"""A Reader: a read-only view of one home's projections, shared by every query.

The daemon keeps one Reader per server thread on its own database; the CLI opens one
read-only (``mode=ro``) when no daemon runs, so a query never takes the writer lock.

``projections.db`` is a cache derived from the log: when it is missing while the log holds
events, or is not a readable database, the errors here say to run ``tapestryctl rebuild``
(which recreates it) rather than to ingest again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from zoneinfo import ZoneInfo

from tapestryd.config import Settings
from tapestryd.db import connect
from tapestryd.errors import StoreError
from tapestryd.paths import Paths, paths_for
from tapestryd.queries.side_reads import InlineReads, SideReads, ThreadedReads

__all__ = ["Reader", "check_projections", "damaged", "log_has_events", "nothing_stored", "unreadable",
           "unreadable_error"]

T = TypeVar("T")


@dataclass
class Reader:
    """Settings, paths and a connection to ``projections.db`` (read-only unless shared).

    ``threaded``: reads asked :meth:`aside` run on worker threads with connections of their own
    (:mod:`tapestryd.queries.side_reads`); else on ``conn``, in turn (a Reader sharing a writer's
    connection sees its uncommitted rows, which another connection would not).
    """

    settings: Settings
    paths: Paths
    conn: sqlite3.Connection
    threaded: bool = False
    _side: ThreadedReads | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, settings: Settings) -> Reader:
        """Open the projections of ``settings``' home read-only.

        Raises StoreError when nothing was ingested yet, or when the projections are
        missing or unreadable (see :func:`check_projections`).
        """
        paths = paths_for(settings)
        if not paths.projections_db.exists():
            check_projections(paths)
            raise nothing_stored(paths)
        conn = connect(paths.projections_db, readonly=True)
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise unreadable_error(paths, str(exc)) from exc
        return cls(settings, paths, conn, threaded=True)

    @property
    def tz(self) -> ZoneInfo:
        """The configured timezone."""
        return self.settings.tz

    @property
    def side(self) -> SideReads:
        """Where reads beside this one's run (see the class docstring)."""
        if not self.threaded:
            return InlineReads(self.conn)
        if self._side is None:
            self._side = ThreadedReads(self.paths.projections_db)
        return self._side

    def aside(self, fn: Callable[[Reader], T]) -> Future[T]:
        """``fn`` run on a Reader of the same home over a side connection (:attr:`side`), which reads in turn."""
        return self.side.submit(lambda conn: fn(Reader(self.settings, self.paths, conn)))

    def close(self) -> None:
        """Close the connection and the side reads' threads and connections."""
        if self._side is not None:
            self._side.close()
        self.conn.close()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def nothing_stored(paths: Paths) -> StoreError:
    """The error of a home with no log yet (a new or mistyped ``--home``)."""
    return StoreError(f"nothing stored yet in {paths.data_dir}: run `tapestryctl ingest PATH` first")


def log_has_events(events_db: Path) -> bool:
    """Whether the log file exists and holds at least one event (False when unreadable)."""
    if not events_db.exists():
        return False
    try:
        conn = connect(events_db, readonly=True)
    except StoreError:
        return False
    try:
        return conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def unreadable(db: Path) -> str:
    """SQLite's complaint when ``db`` exists but is not a readable database, else ``''``."""
    if not db.exists():
        return ""
    try:
        conn = connect(db, readonly=True)
    except StoreError as exc:
        return str(exc.__cause__ or exc)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return ""
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()


def damaged(db: Path) -> str:
    """``unreadable(db)``, else the first problem SQLite's ``PRAGMA quick_check`` finds in its
    pages (``''`` when none). It reads the whole file, so only ``rebuild`` asks it."""
    problem = unreadable(db)
    if problem or not db.exists():
        return problem
    conn = connect(db, readonly=True)
    try:
        verdict = str(conn.execute("PRAGMA quick_check(1)").fetchone()[0])
        return "" if verdict == "ok" else verdict
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()


def check_projections(paths: Paths) -> None:
    """Raise StoreError saying to run ``tapestryctl rebuild`` when ``projections.db`` is
    missing while the log holds events, or is not a readable database."""
    if not paths.projections_db.exists() and log_has_events(paths.events_db):
        raise StoreError(f"the projections are missing ({paths.projections_db}) but the log holds events: "
                         "run `tapestryctl rebuild` to recreate them from the log")
    problem = unreadable(paths.projections_db)
    if problem:
        raise unreadable_error(paths, problem)


def unreadable_error(paths: Paths, problem: str) -> StoreError:
    """The error of an unreadable ``projections.db`` (SQLite's ``problem``), saying to rebuild."""
    return StoreError(f"{paths.projections_db}: {problem}; it is a cache derived from the log: "
                      "run `tapestryctl rebuild` to recreate it")
