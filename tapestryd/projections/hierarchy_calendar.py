"""The hierarchy's reads for the calendar, the tree and status: counts, titles and nodes by key range.

Node keys sort in time order within a level and agent, so a month costs a handful of
primary-key range scans whatever the size of the store. Periods are local ISO dates,
timestamps ISO UTC text. Each function raises StoreError on a database error; the caller
checks first that the tables exist (:func:`~tapestryd.projections.hierarchy_views.has_nodes`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from tapestryd.db import translate_errors

__all__ = ["CALENDAR_COLUMNS", "TREE_COLUMNS", "calendar_node", "child_nodes_and_messages", "day_segments",
           "level_state_counts", "period_keys", "period_rows", "segment_counts", "state_counts", "summarizer_usage",
           "titles_of", "tree_rows", "waiting_count"]

CALENDAR_COLUMNS = ("key", "level", "agent", "parent", "period_start", "period_end", "conversation", "title",
                    "summary", "state", "closed", "message_count", "first_ts", "last_ts", "provider", "model", "mode")
"""The columns of a node as the calendar shows it, in order."""

TREE_COLUMNS = ("key", "level", "agent", "parent", "period_start", "period_end", "conversation", "title", "state",
                "closed", "message_count", "mode", "provider")
"""The columns of a node as the tree shows it, in order."""

_CALENDAR = ", ".join(CALENDAR_COLUMNS)


def segment_counts(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[str, int, int]]:
    """``(local day, segments, messages)`` per day of the L0 nodes with ``low <= key < high``."""
    with translate_errors(conn):
        rows = conn.execute("SELECT period_start, COUNT(*), COALESCE(SUM(message_count), 0) FROM nodes"
                            " WHERE key >= ? AND key < ? GROUP BY period_start", (low, high)).fetchall()
    return [(str(d), int(n), int(m)) for d, n, m in rows]


def period_rows(conn: sqlite3.Connection, low: str, high: str) -> list[tuple[Any, ...]]:
    """``(period_start, title, summary, state)`` of the nodes with ``low <= key <= high``."""
    with translate_errors(conn):
        return conn.execute("SELECT period_start, title, summary, state FROM nodes WHERE key >= ? AND key <= ?",
                            (low, high)).fetchall()


def titles_of(conn: sqlite3.Connection, keys: list[str]) -> list[tuple[Any, ...]]:
    """``(agent, key, title, state)`` of the nodes among ``keys`` that exist."""
    with translate_errors(conn):
        return conn.execute(f"SELECT agent, key, title, state FROM nodes WHERE key IN ({', '.join('?' * len(keys))})",
                            keys).fetchall()


def day_segments(conn: sqlite3.Connection, low: str, high: str) -> list[dict[str, Any]]:
    """The nodes with ``low <= key < high`` (one agent's L0s of a day) as dicts of :data:`CALENDAR_COLUMNS`,
    by first message then key."""
    with translate_errors(conn):
        rows = conn.execute(f"SELECT {_CALENDAR} FROM nodes WHERE key >= ? AND key < ? ORDER BY first_ts, key",
                            (low, high)).fetchall()
    return [dict(zip(CALENDAR_COLUMNS, row)) for row in rows]


def calendar_node(conn: sqlite3.Connection, key: str) -> dict[str, Any] | None:
    """Node ``key`` as a dict of :data:`CALENDAR_COLUMNS`, or None."""
    with translate_errors(conn):
        row = conn.execute(f"SELECT {_CALENDAR} FROM nodes WHERE key = ?", (key,)).fetchone()
    return dict(zip(CALENDAR_COLUMNS, row)) if row else None


def child_nodes_and_messages(conn: sqlite3.Connection, key: str) -> tuple[list[dict[str, Any]], int]:
    """Node ``key``'s node sources that exist (dicts of :data:`CALENDAR_COLUMNS`, in position order) and
    how many message sources it has."""
    with translate_errors(conn):
        rows = conn.execute(
            f"SELECT s.kind, {', '.join('n.' + c for c in CALENDAR_COLUMNS)} FROM node_sources s"
            " LEFT JOIN nodes n ON n.key = s.source WHERE s.node = ? ORDER BY s.position", (key,)).fetchall()
    children = [dict(zip(CALENDAR_COLUMNS, row[1:])) for row in rows if row[0] == "node" and row[1] is not None]
    return children, sum(1 for row in rows if row[0] == "message")


def state_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """How many nodes are in each state (``clean``, ``dirty``, ``context_stale``)."""
    with translate_errors(conn):
        return dict(conn.execute("SELECT state, COUNT(*) FROM nodes GROUP BY state").fetchall())


def waiting_count(conn: sqlite3.Connection) -> int:
    """How many closed nodes are not clean (waiting for a summary)."""
    with translate_errors(conn):
        return int(conn.execute("SELECT COUNT(*) FROM nodes WHERE closed = 1 AND state != 'clean'").fetchone()[0])


def summarizer_usage(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Per provider and model: summaries, calls, tokens_in, tokens_out, in that order."""
    keys = ("provider", "model", "summaries", "calls", "tokens_in", "tokens_out")
    with translate_errors(conn):
        return [dict(zip(keys, row)) for row in conn.execute(
            f"SELECT {', '.join(keys)} FROM summarizer_usage ORDER BY provider, model")]


def level_state_counts(conn: sqlite3.Connection) -> list[tuple[int, str, int, int]]:
    """``(level, state, closed 0/1, nodes)`` for each combination present."""
    with translate_errors(conn):
        return conn.execute("SELECT level, state, closed, COUNT(*) FROM nodes GROUP BY level, state, closed").fetchall()


def tree_rows(conn: sqlite3.Connection, *, min_level: int, agent: str = "", start: str = "",
              end: str = "") -> list[dict[str, Any]]:
    """Nodes of levels ``min_level``..4 (of ``agent`` when given) overlapping local ISO days ``start``..``end``
    ('' for open), as dicts of :data:`TREE_COLUMNS`, by agent, level from the top, period, first message, key."""
    where, params = ["level >= ?"], [min_level]  # type: list[str], list[object]
    for clause, value in (("agent = ?", agent), ("period_end >= ?", start), ("period_start <= ?", end)):
        if value:
            where.append(clause)
            params.append(value)
    with translate_errors(conn):
        rows = conn.execute(f"SELECT {', '.join(TREE_COLUMNS)} FROM nodes WHERE {' AND '.join(where)}"
                            " ORDER BY agent, level DESC, period_start, first_ts, key", params).fetchall()
    return [dict(zip(TREE_COLUMNS, row)) for row in rows]


def period_keys(conn: sqlite3.Connection, level: int, start: str, *, agent: str = "",
                conversation: str = "") -> list[str]:
    """Keys, in order, of the nodes of ``level`` whose period starts on local ISO day ``start``; ``agent``
    keeps one agent, ``conversation`` the segments of a conversation whose key is it or ends with it."""
    sql = "SELECT key FROM nodes WHERE level = ? AND period_start = ?"
    params: list[object] = [level, start]
    if agent:
        sql, params = sql + " AND agent = ?", [*params, agent]
    if conversation:
        sql += " AND (conversation = ? OR conversation LIKE ?)"
        params += [conversation, f"%{conversation}"]
    with translate_errors(conn):
        return [str(r[0]) for r in conn.execute(sql + " ORDER BY key", params)]
