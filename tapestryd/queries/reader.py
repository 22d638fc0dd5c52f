"""A Reader: a read-only view of one home's projections, shared by every query.

The daemon keeps one Reader per server thread on its own database; the CLI opens one
read-only (``mode=ro``) when no daemon runs, so a query never takes the writer lock.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from tapestryd.config import Settings
from tapestryd.db import connect
from tapestryd.errors import StoreError
from tapestryd.paths import Paths, paths_for

__all__ = ["Reader"]


@dataclass
class Reader:
    """Settings, paths and a connection to ``projections.db`` (read-only unless shared)."""

    settings: Settings
    paths: Paths
    conn: sqlite3.Connection

    @classmethod
    def open(cls, settings: Settings) -> Reader:
        """Open the projections of ``settings``' home read-only.

        Raises StoreError when the database does not exist yet (nothing was ingested).
        """
        paths = paths_for(settings)
        if not paths.projections_db.exists():
            raise StoreError(f"nothing stored yet in {paths.data_dir}: run `tapestryctl ingest PATH` first")
        return cls(settings, paths, connect(paths.projections_db, readonly=True))

    @property
    def tz(self) -> ZoneInfo:
        """The configured timezone."""
        return self.settings.tz

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> Reader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
