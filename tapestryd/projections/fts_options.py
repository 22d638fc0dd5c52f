"""FTS5 configuration options of the projections' full-text tables (https://sqlite.org/fts5.html#fts5_configuration_options).

``hashsize`` is the bytes of pending terms held in memory before they are written as a level-0
segment: the default of 1 MiB wrote a catch-up batch's text as many small segments to merge.
``automerge`` is how many segments of one level are merged (default 4): bulk loads rewrite the
index fewer times. Both change the segment layout only; rows, matches and ranks do not change.
"""

from __future__ import annotations

import sqlite3

__all__ = ["BULK_OPTIONS", "configure", "optimize_all", "retire"]

BULK_OPTIONS = {"hashsize": 16 * 1024 * 1024, "automerge": 8}
"""Options of the windows' and the blocks' shards (``windows_fts_<n>``, ``blocks_fts_<n>``), each batch's text
written at its flush. Their
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


def optimize_all(conn: sqlite3.Connection) -> list[str]:
    """Merge every FTS5 table's segments into one (FTS5's ``optimize`` command); returns the tables' names.

    A deleted document's terms stay in the segments that held them until those are merged, and
    the bytes of a forgotten word with them; merged, only the documents kept are left (a
    ``VACUUM`` after this then drops the freed pages). The whole index is rewritten: seconds at
    100k messages, minutes at 1M.
    """
    tables = [str(name) for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5(%'")]
    for table in tables:
        conn.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    return tables


def retire(conn: sqlite3.Connection, table: str, rows: int, *, whole: bool) -> None:
    """Delete up to ``rows`` rows of each large shadow table of FTS5 table ``table`` (an index being thrown away,
    set aside under that name: its rows go without FTS5), and drop it once they are empty or when ``whole``;
    nothing when it is gone. A DROP frees every page in one transaction (1M messages' windows: 10 s, 4.4 CPU-s,
    the writer held all along), so a backfill takes it away a part per chunk.
    """
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is None:
        return
    left = False
    # Rows 1 and 10 of ``_data`` (the averages and the structure) stay: DROP TABLE opens the table first.
    for shadow, keep in ((f"{table}_data", 10), (f"{table}_docsize", 0), (f"{table}_content", 0)):
        if not whole and conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (shadow,)).fetchone():
            conn.execute(f"DELETE FROM {shadow} WHERE rowid IN (SELECT rowid FROM {shadow} WHERE rowid > ?"
                         " ORDER BY rowid LIMIT ?)", (keep, rows))
            rest = conn.execute(f"SELECT 1 FROM {shadow} WHERE rowid > ? LIMIT 1", (keep,)).fetchone()
            left = left or rest is not None
    if not left:
        conn.execute(f"DROP TABLE {table}")
