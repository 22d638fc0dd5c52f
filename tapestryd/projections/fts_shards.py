"""FTS5 indexes kept in shards: one table per range of rowids, ranked newest shard first.

Before it scores a row, FTS5's ``bm25()`` walks every match of each phrase in its table to count
the phrase's documents (its idf), so a query that ranks only its newest matches still costs as
much as all of the table's matches, and grows with the index. Kept as one table per fixed range
of rowids (a shard), ranked newest shard first until a query's bound is filled, it walks only
the shards it reads (the windows and the blocks of :mod:`tapestryd.projections.windows` and
:mod:`tapestryd.projections.blocks`; each module fixes its range and the rowid a shard holds).

Tables, for an index named ``<name>``: ``<name>_<n>`` for shard ``n``, and ``<registry>(shard)``
listing the shards made. A file made before shards holds one table ``<name>``, ranked alone
until a writer replaces it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from tapestryd.projections import fts_options

__all__ = ["TOKENIZE", "TURN_BREAK", "TURN_BREAK_VERSION", "FtsShards", "exists"]

TOKENIZE = "tokenize='porter unicode61 remove_diacritics 2'"
"""The tokenizer of the shards, the one ``messages_fts`` has."""

TURN_BREAK = "\n\ue000\n"
"""What joins two turns in one document (a window, a block): U+E000, a private-use character, is a word to the
unicode61 tokenizer (category Co) that no query holds, so a quoted phrase never matches across two turns ("…or
binary" then "Search me…" held "binary search"); a newline alone is no word."""
TURN_BREAK_VERSION = 1
"""Stored with each index's format (``windows_format``, ``blocks_format``): a file made before :data:`TURN_BREAK`
(0, none) has its documents written again."""


def exists(conn: sqlite3.Connection, table: str) -> bool:
    """Whether ``conn``'s main schema has a table (or trigger, index, view) named ``table``."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None


@dataclass(frozen=True)
class FtsShards:
    """The shards of one index: ``name`` (its tables are ``<name>_<n>``), ``registry`` (the table listing them)
    and ``arguments`` (the FTS5 table's columns and options before the tokenizer, e.g. ``"text, content=''"``).
    The names are the projections' own: they go into SQL as they are."""

    name: str
    registry: str
    arguments: str

    def table(self, shard: int) -> str:
        """The FTS5 table of shard ``shard``."""
        return f"{self.name}_{int(shard)}"

    def shards(self, conn: sqlite3.Connection) -> list[int]:
        """The shards made, oldest first (none in a file made before shards)."""
        if not exists(conn, self.registry):
            return []
        return [int(shard) for (shard,) in conn.execute(f"SELECT shard FROM {self.registry} ORDER BY shard")]

    def tables(self, conn: sqlite3.Connection) -> list[str]:
        """The FTS5 tables holding the index, newest shard first: ``<name>`` alone in a file made before shards
        and not opened by a writer of this version since (a read-only connection ranks it as it is)."""
        if not exists(conn, self.registry):
            return [self.name] if exists(conn, self.name) else []
        return [self.table(shard) for shard in reversed(self.shards(conn))]

    def ensure(self, conn: sqlite3.Connection, shards: Iterable[int]) -> list[int]:
        """Make the tables of ``shards`` that are missing (with :data:`fts_options.BULK_OPTIONS`); the shards
        made now, in order."""
        new = sorted(set(shards) - set(self.shards(conn)))
        for shard in new:
            conn.execute(f"CREATE VIRTUAL TABLE {self.table(shard)} USING fts5({self.arguments}, {TOKENIZE})")
            fts_options.configure(conn, self.table(shard), fts_options.BULK_OPTIONS)
            conn.execute(f"INSERT INTO {self.registry} (shard) VALUES (?)", (shard,))
        return new

    def drop(self, conn: sqlite3.Connection) -> None:
        """Drop every shard's table and empty the registry (a DELETE of the rows would read each document back
        to take its terms out)."""
        for shard in self.shards(conn):
            conn.execute(f"DROP TABLE {self.table(shard)}")
        if exists(conn, self.registry):
            conn.execute(f"DELETE FROM {self.registry}")

    def newest_scores(self, conn: sqlite3.Connection, expr: str, bound: int, limit: int) -> dict[int, float]:
        """``{rowid: -bm25}`` of the ``limit`` best rows matching FTS5 expression ``expr`` (higher is better;
        ties to the lower rowid) among the ``bound`` newest matches (highest rowids), the shards read newest
        first until ``bound`` is filled, each scored with its own idf (a word's documents counted in its shard)."""
        rows: list[tuple[int, float]] = []
        walked = 0
        for table in self.tables(conn):
            # One walk of the shard's newest matches, scoring each, and SQLite keeps the best (in one step of the
            # statement: a reader on a side thread takes the GIL back once, not once a row).
            best = conn.execute(f"SELECT rowid, score, count(*) OVER () FROM (SELECT rowid, bm25({table}) AS score"
                                f" FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?)"
                                " ORDER BY score, rowid LIMIT ?", (expr, bound - walked, limit)).fetchall()
            rows += [(int(i), float(score)) for i, score, _ in best]
            walked += int(best[0][2]) if best else 0
            if walked >= bound:
                break
        return {i: -score for i, score in sorted(rows, key=lambda row: (row[1], row[0]))[:limit]}
