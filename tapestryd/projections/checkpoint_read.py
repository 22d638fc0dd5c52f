"""The projector's checkpoints read back: how far each projection has applied the log.

Apart from :mod:`~tapestryd.projections.runner` (which writes them) so that a read of the lag
(``status``, the CLI's warning before a read answered without the daemon) does not import the
projector and multiprocessing.
"""

from __future__ import annotations

import sqlite3

from tapestryd.db import translate_errors

__all__ = ["checkpoints"]


def checkpoints(conn: sqlite3.Connection) -> dict[str, int]:
    """Every projection's checkpoint seq by name (empty when none was written yet)."""
    with translate_errors(conn):
        exists = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'checkpoints'").fetchone()
        return dict(conn.execute("SELECT projection, seq FROM checkpoints").fetchall()) if exists else {}
