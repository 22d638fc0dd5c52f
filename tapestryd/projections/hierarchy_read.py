"""Read functions over the hierarchy's tables, shared by the summarizer, queries and checks.

Telescoping context, defined once here and used both to build prompts and to mark the
nodes a changed summary makes ``context_stale``:

* an L0 gets the conversation's last :data:`SEGMENT_CONTEXT` earlier segments and the
  dailies of the :data:`DAILY_CONTEXT_DAYS` previous local days;
* an L1, L2 or L3 gets its earlier siblings (the week's earlier dailies, the month's
  earlier weeklies, the year's earlier monthlies);
* an L4 gets every earlier yearly of its agent.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, fields
from datetime import date, timedelta
from typing import Any, Sequence

from tapestryd.db import in_chunks
from tapestryd.projections.hierarchy_schema import NODE_COLUMNS

__all__ = [
    "DAILY_CONTEXT_DAYS",
    "SEGMENT_CONTEXT",
    "NodeRow",
    "children",
    "context_dependents",
    "context_nodes",
    "get_node",
    "get_nodes",
    "has_dirty_child",
    "child_keys",
    "closed_day_count",
    "closed_days",
    "dirty_below",
    "message_sources",
    "node_table",
    "segment_message_ids",
    "todo_nodes",
]

SEGMENT_CONTEXT = 3
DAILY_CONTEXT_DAYS = 2
_SELECT = f"SELECT {', '.join(NODE_COLUMNS)} FROM nodes"


@dataclass(frozen=True)
class NodeRow:
    """One row of ``nodes`` (timestamps ISO UTC text, periods local ISO dates, usage JSON text)."""

    key: str
    level: int
    agent: str
    parent: str
    period_start: str
    period_end: str
    conversation: str
    title: str
    summary: str
    fingerprint: str
    summarized_fingerprint: str
    state: str
    closed: int
    message_count: int
    source_chars: int
    first_ts: str
    last_ts: str
    usage: str
    provider: str
    model: str
    mode: str
    prompt_version: str
    context_fingerprint: str
    context_stale: int
    summarized_seq: int
    versions: int

    @property
    def summarized(self) -> bool:
        """Whether any summary was recorded for this node."""
        return bool(self.summarized_fingerprint)

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON-ready data, usage decoded and flags as booleans."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data.update(usage=json.loads(self.usage or "{}"), closed=bool(self.closed),
                    context_stale=bool(self.context_stale))
        return data


def _rows(conn: sqlite3.Connection, where: str, params: Sequence[object] = ()) -> list[NodeRow]:
    return [NodeRow(*row) for row in conn.execute(f"{_SELECT} {where}", params)]


def get_node(conn: sqlite3.Connection, key: str) -> NodeRow | None:
    """The node with ``key``, or None."""
    found = _rows(conn, "WHERE key = ?", (key,))
    return found[0] if found else None


def get_nodes(conn: sqlite3.Connection, keys: Sequence[str]) -> list[NodeRow]:
    """The nodes among ``keys`` that exist, in the order given."""
    by_key = {}
    for chunk, marks in in_chunks(keys):
        by_key.update({n.key: n for n in _rows(conn, f"WHERE key IN ({marks})", chunk)})
    return [by_key[k] for k in keys if k in by_key]


def children(conn: sqlite3.Connection, key: str) -> list[NodeRow]:
    """A node's children in chronological order (period, then first message, then key)."""
    return _rows(conn, "WHERE parent = ? ORDER BY period_start, first_ts, key", (key,))


def has_dirty_child(conn: sqlite3.Connection, key: str) -> bool:
    """Whether any child of ``key`` is dirty (its inputs are not final yet)."""
    found = conn.execute("SELECT 1 FROM nodes WHERE parent = ? AND state = 'dirty' LIMIT 1", (key,)).fetchone()
    return found is not None


def segment_message_ids(conn: sqlite3.Connection, key: str) -> list[int]:
    """The message ids an L0 lists as its sources (in no particular order; the messages projection
    holds their times)."""
    return [int(r[0]) for r in conn.execute(
        "SELECT CAST(source AS INTEGER) FROM node_sources WHERE node = ? AND kind = 'message'", (key,))]


def message_sources(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """``(node key, message id)`` of every message source of every node."""
    return [(str(n), int(i)) for n, i in conn.execute(
        "SELECT node, CAST(source AS INTEGER) FROM node_sources WHERE kind = 'message'")]


def child_keys(conn: sqlite3.Connection, key: str) -> set[str]:
    """The keys of node ``key``'s children."""
    return {str(r[0]) for r in conn.execute("SELECT key FROM nodes WHERE parent = ?", (key,))}


def dirty_below(conn: sqlite3.Connection, key: str) -> list[str]:
    """Keys of the dirty nodes anywhere below ``key``, bottom-up as :func:`todo_nodes` orders them."""
    rows = conn.execute(
        "WITH RECURSIVE below(key) AS (SELECT key FROM nodes WHERE parent = ?"
        " UNION ALL SELECT n.key FROM nodes n JOIN below b ON n.parent = b.key)"
        " SELECT n.key FROM nodes n JOIN below b ON b.key = n.key WHERE n.state = 'dirty'"
        " ORDER BY n.period_end, n.level, n.period_start, n.key", (key,))
    return [str(r[0]) for r in rows]


def closed_day_count(conn: sqlite3.Connection, first: str, last: str) -> int:
    """How many local ISO days ``first``..``last`` (both included) the hierarchy has seen closed."""
    return int(conn.execute("SELECT COUNT(*) FROM closed_days WHERE agent = '' AND date BETWEEN ? AND ?",
                            (first, last)).fetchone()[0])


def closed_days(conn: sqlite3.Connection, first: str, last: str) -> set[str]:
    """The local ISO days ``first``..``last`` (both included) the hierarchy has seen closed."""
    return {str(r[0]) for r in conn.execute("SELECT date FROM closed_days WHERE agent = '' AND date BETWEEN ? AND ?",
                                            (first, last))}


def node_table(conn: sqlite3.Connection, columns: Sequence[str], *, agent: str = "") -> list[tuple[Any, ...]]:
    """``columns`` (names of ``nodes``' columns) of every node, of ``agent`` when given, in no order.

    Raises sqlite3.Error when the tables are missing (the caller translates it)."""
    if not set(columns) <= set(NODE_COLUMNS):
        raise ValueError(f"not columns of nodes: {sorted(set(columns) - set(NODE_COLUMNS))}")
    where, params = ("WHERE agent = ?", (agent,)) if agent else ("", ())
    return conn.execute(f"SELECT {', '.join(columns)} FROM nodes {where}", params).fetchall()


def context_nodes(conn: sqlite3.Connection, node: NodeRow) -> list[NodeRow]:
    """The nodes whose summaries are ``node``'s telescoping context, oldest first."""
    if node.level == 0:
        earlier = _rows(conn, "WHERE level = 0 AND agent = ? AND conversation = ? AND period_start < ?"
                              " ORDER BY period_start DESC LIMIT ?",
                        (node.agent, node.conversation, node.period_start, SEGMENT_CONTEXT))
        day = date.fromisoformat(node.period_start)
        dailies = [f"L1:{node.agent}:{(day - timedelta(days=n)).isoformat()}" for n in range(DAILY_CONTEXT_DAYS, 0, -1)]
        return get_nodes(conn, dailies) + earlier[::-1]
    if node.level == 4:
        return _rows(conn, "WHERE level = 4 AND agent = ? AND period_start < ? ORDER BY period_start",
                     (node.agent, node.period_start))
    return _rows(conn, "WHERE parent = ? AND period_start < ? ORDER BY period_start", (node.parent, node.period_start))


def context_dependents(conn: sqlite3.Connection, node: NodeRow) -> list[str]:
    """Keys of the nodes that take ``node``'s summary as context (the inverse of context_nodes)."""
    if node.level == 0:
        return [r[0] for r in conn.execute(
            "SELECT key FROM nodes WHERE level = 0 AND agent = ? AND conversation = ? AND period_start > ?"
            " ORDER BY period_start LIMIT ?", (node.agent, node.conversation, node.period_start, SEGMENT_CONTEXT))]
    later = _later_peers(conn, node)
    if node.level == 1:
        day = date.fromisoformat(node.period_start)
        last = (day + timedelta(days=DAILY_CONTEXT_DAYS)).isoformat()
        later += [r[0] for r in conn.execute(
            "SELECT key FROM nodes WHERE level = 0 AND agent = ? AND period_start > ? AND period_start <= ?",
            (node.agent, node.period_start, last))]
    return later


def _later_peers(conn: sqlite3.Connection, node: NodeRow) -> list[str]:
    if node.level == 4:
        sql, params = "WHERE level = 4 AND agent = ? AND period_start > ?", (node.agent, node.period_start)
    else:
        sql, params = "WHERE parent = ? AND period_start > ?", (node.parent, node.period_start)
    return [r[0] for r in conn.execute(f"SELECT key FROM nodes {sql}", params)]


def outdated_nodes(conn: sqlite3.Connection, provider: str, prompt_version: str) -> list[str]:
    """Keys of clean closed nodes that ``provider`` summarized with another prompt version, bottom-up.

    The order is :func:`todo_nodes`' (children and context before their readers).
    """
    rows = conn.execute("SELECT key FROM nodes WHERE state = 'clean' AND closed = 1 AND provider = ? AND "
                        "prompt_version != ? ORDER BY period_end, level, period_start, key", (provider, prompt_version))
    return [r[0] for r in rows]


def todo_nodes(conn: sqlite3.Connection, *, state: str = "dirty", until: str = "", agent: str = "",
               closed_only: bool = True) -> list[str]:
    """Keys of nodes in ``state`` bottom-up in chronological order.

    Order: period end, then level, then period start, then key, so every child and every
    context node comes before the nodes that read it. ``until`` (local ISO date) keeps
    periods ending on or before it; ``agent`` keeps one agent.
    """
    where, params = ["state = ?"], [state]  # type: list[str], list[object]
    if closed_only:
        where.append("closed = 1")
    if until:
        where.append("period_end <= ?")
        params.append(until)
    if agent:
        where.append("agent = ?")
        params.append(agent)
    sql = f"SELECT key FROM nodes WHERE {' AND '.join(where)} ORDER BY period_end, level, period_start, key"
    return [r[0] for r in conn.execute(sql, params)]
