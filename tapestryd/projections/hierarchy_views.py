"""Read functions over the summary hierarchy's ``nodes``, ``node_sources`` and ``nodes_fts`` tables,
as the queries see nodes: dicts of :data:`NODE_COLUMNS`.

These are the hierarchy projection's own reads (no other module holds SQL on its tables); they answer
"nothing" when they do not exist yet (a home where the hierarchy never ran). Node keys
(``L0:{agent}:{YYYY-MM-DD}:{conversation}``, ``L1:{agent}:{YYYY-MM-DD}``,
``L2:{agent}:{YYYY-MM-DD}w``, ``L3:{agent}:{YYYY-MM}``, ``L4:{agent}:{YYYY}``) sort in
time order within a level and agent, so ranges of periods are ranges of the primary key
and need no other index.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Iterator

from tapestryd.db import translate_errors
from tapestryd.projections.messages_search import KEYS_IN, keys_json

__all__ = ["NODE_COLUMNS", "NodeFilter", "children", "get_node", "has_nodes", "last_node_id", "node_agents",
           "nodes_by_keys", "nodes_in_key_range", "ranked_summaries", "segment_days", "source_rows", "summaries",
           "summary_count", "summary_rows"]

NODE_COLUMNS = ("key", "level", "agent", "parent", "period_start", "period_end", "conversation", "title",
                "summary", "state", "message_count", "first_ts", "last_ts")
_SELECT = f"SELECT {', '.join(NODE_COLUMNS)} FROM nodes"


def has_nodes(conn: sqlite3.Connection) -> bool:
    """Whether the hierarchy's ``nodes`` table exists in this database."""
    with translate_errors(conn):
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'nodes'").fetchone()
    return found is not None


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
    """Rows as dicts; none when the hierarchy's tables do not exist (no lookup on the happy path)."""
    with translate_errors(conn):
        try:
            return [dict(zip(NODE_COLUMNS, row)) for row in conn.execute(sql, params).fetchall()]
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise


def get_node(conn: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    """One node by key, as a dict of :data:`NODE_COLUMNS`, or None."""
    rows = _rows(conn, f"{_SELECT} WHERE key = ?", (key,))
    return rows[0] if rows else None


def nodes_by_keys(conn: sqlite3.Connection, keys: list[str]) -> list[dict[str, Any]]:
    """The nodes among ``keys`` that exist, in key order."""
    if not keys:
        return []
    marks = ",".join("?" * len(keys))
    return _rows(conn, f"{_SELECT} WHERE key IN ({marks}) ORDER BY key", tuple(keys))


def nodes_in_key_range(conn: sqlite3.Connection, low: str, high: str) -> list[dict[str, Any]]:
    """Nodes with ``low <= key <= high`` (a period range of one level and agent), in key order."""
    return _rows(conn, f"{_SELECT} WHERE key >= ? AND key <= ? ORDER BY key", (low, high))


def children(conn: sqlite3.Connection, key: str) -> list[dict[str, Any]]:
    """The nodes whose parent is ``key``, in period (then key) order."""
    return _rows(conn, f"{_SELECT} WHERE parent = ? ORDER BY period_start, key", (key,))


def node_agents(conn: sqlite3.Connection) -> list[str]:
    """Every agent that has nodes (read from the few yearly nodes), sorted."""
    rows = _rows(conn, f"{_SELECT} WHERE key >= 'L4:' AND key < 'L4;'", ())
    return sorted({r["agent"] for r in rows})


def source_rows(conn: sqlite3.Connection, key: str) -> list[tuple[str, str, int]]:
    """``(source, kind, position)`` of node ``key``'s sources in position order (none without the tables).

    ``source`` is a child's node key (kind ``node``) or a message reference (kind ``message``:
    a message id, or ``conversation/message key`` in older rows).
    """
    if not has_nodes(conn):
        return []
    with translate_errors(conn):
        rows = conn.execute("SELECT source, kind, position FROM node_sources WHERE node = ? ORDER BY position",
                            (key,)).fetchall()
    return [(str(source), str(kind), int(position or 0)) for source, kind, position in rows]


@dataclass(frozen=True)
class NodeFilter:
    """Which summaries a search keeps: ``level`` 0–4 (None: any), ``agent`` and ``conversation``
    ('' for any), and local ISO days: the period must end on or after ``first_day`` and start on or
    before ``last_day`` ('' for no bound); ``conversations``, when not None, keeps the nodes of those
    conversation keys (L0s)."""

    level: int | None = None
    agent: str = ""
    conversation: str = ""
    first_day: str = ""
    last_day: str = ""
    conversations: frozenset[str] | None = None

    def where(self) -> tuple[str, list[object]]:
        """SQL conditions (each `` AND …`` on alias ``n`` of ``nodes``) and their parameters."""
        clauses, params = [], []  # type: tuple[list[str], list[object]]
        keys = None if self.conversations is None else keys_json(self.conversations)
        for clause, value in (("n.level = ?", self.level), ("n.agent = ?", self.agent),
                              ("n.conversation = ?", self.conversation), (f"n.conversation IN {KEYS_IN}", keys),
                              ("n.period_end >= ?", self.first_day), ("n.period_start <= ?", self.last_day)):
            if value is not None and value != "":
                clauses.append(clause)
                params.append(value)
        return "".join(f" AND {c}" for c in clauses), params


def ranked_summaries(conn: sqlite3.Connection, expr: str, filters: NodeFilter, limit: int, *,
                     newest: bool = False) -> dict[int, float]:
    """Node id → ``bm25(nodes_fts)`` of the ``limit`` summarized nodes matching FTS5 expression ``expr``
    and ``filters``, best first (lower is better), or the newest first (last message, else period end)
    when ``newest``. Raises StoreError on a database error."""
    where, params = filters.where()
    order = "COALESCE(n.last_ts, n.period_end) DESC" if newest else "bm25(nodes_fts)"
    sql = ("SELECT n.id, bm25(nodes_fts) FROM nodes_fts JOIN nodes n ON n.id = nodes_fts.rowid"
           f" WHERE nodes_fts MATCH ? AND n.summary != ''{where} ORDER BY {order} LIMIT ?")
    with translate_errors(conn):
        return {int(i): float(s) for i, s in conn.execute(sql, (expr, *params, limit))}


def summary_rows(conn: sqlite3.Connection, ids: list[int]) -> dict[int, tuple[Any, ...]]:
    """Node id → ``(key, level, agent, conversation, title, period_start, period_end, first_ts, last_ts,
    summary)`` for the stored ones among ``ids``. Raises StoreError on a database error."""
    if not ids:
        return {}
    sql = ("SELECT id, key, level, agent, conversation, title, period_start, period_end, first_ts, last_ts, summary"
           f" FROM nodes WHERE id IN ({','.join('?' * len(ids))})")
    with translate_errors(conn):
        return {int(row[0]): tuple(row[1:]) for row in conn.execute(sql, ids)}


def last_node_id(conn: sqlite3.Connection) -> int | None:
    """The highest node id (None when there is none): it moves when a node is added."""
    with translate_errors(conn):
        row = conn.execute("SELECT MAX(id) FROM nodes").fetchone()
    return None if row[0] is None else int(row[0])


def segment_days(conn: sqlite3.Connection, agent: str, conversation: str) -> list[str]:
    """The local ISO days of ``conversation``'s L0 segments (of ``agent``), through the segment index."""
    with translate_errors(conn):
        rows = conn.execute("SELECT period_start FROM nodes WHERE agent = ? AND conversation = ? AND level = 0",
                            (agent, conversation)).fetchall()
    return [str(r[0]) for r in rows]


_SUMMARIES = "SELECT key, level, agent, conversation, title, summary FROM nodes WHERE summary != ''"


def summary_count(conn: sqlite3.Connection) -> int:
    """How many nodes have a summary (0 without the tables)."""
    if not has_nodes(conn):
        return 0
    with translate_errors(conn):
        return int(conn.execute("SELECT COUNT(*) FROM nodes WHERE summary != ''").fetchone()[0])


def summaries(conn: sqlite3.Connection, keys: list[str] | None = None, *,
              chunk: int = 900) -> Iterator[tuple[str, int, str, str, str, str]]:
    """``(key, level, agent, conversation, title, summary)`` of the summarized nodes: every one by key when
    ``keys`` is None, else those among ``keys`` (``chunk`` keys at a time, in no particular order); none
    without the tables."""
    if not has_nodes(conn):
        return
    with translate_errors(conn):
        if keys is None:
            yield from conn.execute(f"{_SUMMARIES} ORDER BY key")
            return
        for start in range(0, len(keys), chunk):
            some = keys[start:start + chunk]
            yield from conn.execute(f"{_SUMMARIES} AND key IN ({','.join('?' * len(some))})", some)
