"""Node keys as users type them, and a node's sources resolved across the two projections.

Node keys (``L0:{agent}:{YYYY-MM-DD}:{conversation}``, ``L1:{agent}:{YYYY-MM-DD}``,
``L2:{agent}:{YYYY-MM-DD}w``, ``L3:{agent}:{YYYY-MM}``, ``L4:{agent}:{YYYY}``) sort in
time order within a level and agent. The rows come from the hierarchy's reads
(:mod:`tapestryd.projections.hierarchy_views`) and the messages projection's
(:mod:`tapestryd.projections.messages_read`).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from tapestryd.projections.hierarchy_views import get_node, source_rows
from tapestryd.projections.messages_read import message_by_source

__all__ = ["is_node_key", "node_sources"]

_KEY = re.compile(r"^L([0-4]):[^:]+:\d{4}")


def is_node_key(ref: str) -> bool:
    """Whether ``ref`` looks like a node key (``L0:`` … ``L4:`` followed by agent and period)."""
    return bool(_KEY.match(ref))


def node_sources(conn: sqlite3.Connection, key: str) -> list[dict[str, Any]]:
    """The sources of node ``key`` in position order: ``{source, kind, position}`` each.

    A source of kind ``node`` also carries the child's ``title`` and ``level``; a message
    source carries ``conversation``, ``message_key``, ``role``, ``ts`` and ``text`` when it
    resolves (by message id) in the messages projection.
    """
    return [_resolve_source(conn, source, kind, position) for source, kind, position in source_rows(conn, key)]


def _resolve_source(conn: sqlite3.Connection, source: str, kind: str, position: int) -> dict[str, Any]:
    item: dict[str, Any] = {"source": source, "kind": kind, "position": position}
    if is_node_key(source):
        child = get_node(conn, source)
        if child is not None:
            item.update(title=child["title"], level=child["level"], state=child["state"])
        return item
    row = message_by_source(conn, source)
    if row is not None:
        item.update(zip(("id", "conversation", "message_key", "role", "ts", "text"), row))
    return item
