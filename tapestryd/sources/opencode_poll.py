"""Polling OpenCode's database for new rows, exactly once.

OpenCode keeps its sessions in SQLite (:mod:`tapestryd.sources.parsers.opencode`), so
there are no lines to tail: :meth:`OpenCodePoller.poll` opens the database read only,
reads what changed at or after the stored position (a ``time_updated`` in epoch ms, kept
as the database's :class:`~tapestryd.events.store.SourceOffset` ``offset``) and appends
the events **together with the new position in one transaction**, like the tailer. Rows
at the position itself are read again; their event ids make that a no-op.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing

import structlog

from tapestryd.events.store import EventStore, SourceOffset
from tapestryd.events.types import NewEvent
from tapestryd.sources.parsers.base import Origin, Problem, Skip
from tapestryd.sources.parsers.opencode import open_readonly, read_changes
from tapestryd.sources.screen import Screen
from tapestryd.sources.tailer import TailReport

__all__ = ["OPENCODE_FILES", "OpenCodePoller", "database_of"]

log = structlog.get_logger(__name__)

OPENCODE_FILES = ("opencode.db", "opencode.db-wal")
"""File names whose change means the database may hold new rows."""


def database_of(path: str) -> str:
    """The database a changed file belongs to (``x/opencode.db-wal`` → ``x/opencode.db``)."""
    return path.removesuffix("-wal")


class OpenCodePoller:
    """Reads OpenCode databases from their stored positions into the event log (the writer thread only).

    ``agent`` labels the events; ``screen`` applies the privacy settings. Raises
    StoreError when the log cannot be written (the position then stays where it was).
    """

    def __init__(self, store: EventStore, *, agent: str, screen: Screen | None = None) -> None:
        self.store, self.agent, self.screen = store, agent, screen

    def poll(self, db: str) -> TailReport:
        """Read what ``db`` gained since its stored position and append it; ``lines`` counts messages read."""
        report = TailReport(db)
        stored = self.store.offset(db)
        since = stored.offset if stored is not None else 0
        try:
            info = os.stat(db)
            with closing(open_readonly(db)) as conn:
                changes = read_changes(conn, Origin(db, "", self.agent), since)
        except (OSError, sqlite3.Error) as exc:
            if os.path.exists(db):
                report.problems.append(f"{db}: could not be read ({exc}); it is read again on the next pass")
            return report
        events = self._sorted(changes.items, report)
        offset = SourceOffset(db, changes.position, info.st_ino, info.st_size)
        if events or stored != offset:
            result = self.store.append(events, [offset])
            report.new = sum(1 for s in result.seqs if s is not None)
            report.known = len(result.seqs) - report.new
        report.offset = changes.position
        if report.new or report.problems:
            log.info("source.polled", path=db, new=report.new, known=report.known, problems=len(report.problems))
        return report

    def _sorted(self, items: list[NewEvent | Skip | Problem], report: TailReport) -> list[NewEvent]:
        events: list[NewEvent] = []
        for item in items:
            if isinstance(item, NewEvent):
                events.append(item)
            elif isinstance(item, Skip):
                report.skipped[item.reason] += 1
            else:
                report.problems.append(str(item))
        report.lines = len(events)
        if self.screen is not None:
            screened = self.screen.screen(events)
            report.skipped.update(screened.skipped)
            events = screened.events
        return events
