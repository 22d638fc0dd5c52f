"""Read functions over the summary hierarchy's ``nodes`` and ``node_sources`` tables.

The hierarchy projection owns the tables; this module only reads them, and answers
"nothing" when they do not exist yet (a home where the hierarchy never ran). Node keys
(``L0:{agent}:{YYYY-MM-DD}:{conversation}``, ``L1:{agent}:{YYYY-MM-DD}``,
``L2:{agent}:{YYYY-MM-DD}w``, ``L3:{agent}:{YYYY-MM}``, ``L4:{agent}:{YYYY}``) sort in
time order within a level and agent, so ranges of periods are ranges of the primary key
and need no other index.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from tapestryd.db import translate_errors

__all__ = ["NODE_COLUMNS", "children", "get_node", "has_nodes", "is_node_key", "node_agents", "node_sources",
           "nodes_by_keys", "nodes_in_key_range"]

NODE_COLUMNS = ("key", "level", "agent", "parent", "period_start", "period_end", "conversation", "title",
                "summary", "state", "message_count", "first_ts", "last_ts")
_SELECT = f"SELECT {', '.join(NODE_COLUMNS)} FROM nodes"
_KEY = re.compile(r"^L([0-4]):[^:]+:\d{4}")


def is_node_key(ref: str) -> bool:
    """Whether ``ref`` looks like a node key (``L0:`` … ``L4:`` followed by agent and period)."""
    return bool(_KEY.match(ref))


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


def node_sources(conn: sqlite3.Connection, key: str) -> list[dict[str, Any]]:
    """The sources of node ``key`` in position order: ``{source, kind, position}`` each.

    A source of kind ``node`` also carries the child's ``title`` and ``level``; a message
    source carries ``conversation``, ``message_key``, ``role``, ``ts`` and ``text`` when it
    resolves (by message id) in the messages projection.
    """
    if not has_nodes(conn):
        return []
    with translate_errors(conn):
        rows = conn.execute("SELECT source, kind, position FROM node_sources WHERE node = ? ORDER BY position",
                            (key,)).fetchall()
    return [_resolve_source(conn, str(source), str(kind), int(position or 0)) for source, kind, position in rows]


def _resolve_source(conn: sqlite3.Connection, source: str, kind: str, position: int) -> dict[str, Any]:
    item: dict[str, Any] = {"source": source, "kind": kind, "position": position}
    if is_node_key(source):
        child = get_node(conn, source)
        if child is not None:
            item.update(title=child["title"], level=child["level"], state=child["state"])
        return item
    row = _message_row(conn, source)
    if row is not None:
        item.update(zip(("id", "conversation", "message_key", "role", "ts", "text"), row))
    return item


def _message_row(conn: sqlite3.Connection, source: str) -> tuple[Any, ...] | None:
    columns = "SELECT id, conversation, message_key, role, ts, text FROM messages"
    row: tuple[Any, ...] | None
    with translate_errors(conn):
        if source.isdigit():
            row = conn.execute(f"{columns} WHERE id = ?", (int(source),)).fetchone()
        else:
            conversation, _, message_key = source.rpartition("/")
            row = conn.execute(f"{columns} WHERE conversation = ? AND message_key = ?",
                               (conversation, message_key)).fetchone()
    return row
