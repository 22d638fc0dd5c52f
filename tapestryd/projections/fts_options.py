"""FTS5 configuration options of the projections' full-text tables (https://sqlite.org/fts5.html#fts5_configuration_options).

``hashsize`` is the bytes of pending terms held in memory before they are written as a level-0
segment: the default of 1 MiB wrote a catch-up batch's text as many small segments to merge.
``automerge`` is how many segments of one level are merged (default 4): bulk loads rewrite the
index fewer times. Both change the segment layout only; rows, matches and ranks do not change.
"""

from __future__ import annotations

import sqlite3
from typing import Sequence

__all__ = ["BULK_OPTIONS", "configure", "create"]

BULK_OPTIONS = {"hashsize": 16 * 1024 * 1024, "automerge": 8}
"""Options of ``windows_fts`` and ``blocks_fts``, each batch's text written at its flush. Their
documents are written once per batch like ``messages_fts``'s; a smaller ``hashsize`` than that
table's (64 MiB) bounds the memory of a window's three turns of text, for about the same CPU
(20 MB ChatGPT export, 28.8 MB of window text inserted: 1.01 s CPU with the defaults, 0.66 s
with these, 0.63 s with a 64 MiB ``hashsize``)."""


def configure(conn: sqlite3.Connection, table: str, options: dict[str, int]) -> None:
    """Set FTS5 table ``table``'s ``options`` (``{name: value}``) where its stored config differs.

    ``table`` must be an FTS5 table name made by the projections (it is put into the SQL as is).
    """
    stored = dict(conn.execute(f"SELECT k, v FROM {table}_config"))
    for option, value in options.items():
        if stored.get(option) != value:
            conn.execute(f"INSERT INTO {table}({table}, rank) VALUES (?, ?)", (option, value))


def create(conn: sqlite3.Connection, schema: Sequence[str], marker: str, fts: str) -> bool:
    """Run the ``CREATE … IF NOT EXISTS`` statements of ``schema``, give FTS5 table ``fts`` the
    :data:`BULK_OPTIONS`, and say whether table ``marker`` was new (the file predates these tables)."""
    new = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (marker,)).fetchone()
    for statement in schema:
        conn.execute(statement)
    configure(conn, fts, BULK_OPTIONS)
    return new is None
