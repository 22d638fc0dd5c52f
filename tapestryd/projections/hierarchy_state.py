"""State upkeep of hierarchy nodes: dirty propagation, parent fingerprints, context staleness.

A node is

* ``dirty`` when its input fingerprint differs from the one its latest summary was made
  from (never summarized counts), or when any child is dirty (its inputs are not final);
* ``context_stale`` when it is not dirty but a node in its telescoping context changed
  its summary after this node was summarized;
* ``clean`` otherwise.

A state change walks up the parent chain until a parent's state does not change, so a
late message for a closed day dirties exactly its L0 → L4 chain, and a rebuilt summary
identical to the old one lets the chain fall back to clean (early cut-off).
"""

from __future__ import annotations

import sqlite3

from tapestryd.projections.hierarchy_keys import parent_fingerprint
from tapestryd.projections.hierarchy_read import NodeRow, context_dependents

__all__ = ["mark_context_stale", "refresh_parent", "refresh_state"]


def refresh_state(conn: sqlite3.Connection, key: str) -> None:
    """Recompute ``key``'s state and walk up while the state of a node changes."""
    while key:
        row = conn.execute(
            "SELECT fingerprint, summarized_fingerprint, context_stale, state, parent FROM nodes WHERE key = ?",
            (key,)).fetchone()
        if row is None:
            return
        fingerprint, summarized, stale, state, parent = row
        new = _state(conn, key, fingerprint != summarized, bool(stale))
        if new == state:
            return
        conn.execute("UPDATE nodes SET state = ? WHERE key = ?", (new, key))
        key = parent


def _state(conn: sqlite3.Connection, key: str, changed: bool, stale: bool) -> str:
    if changed or conn.execute("SELECT 1 FROM nodes WHERE parent = ? AND state = 'dirty' LIMIT 1",
                               (key,)).fetchone():
        return "dirty"
    return "context_stale" if stale else "clean"


def refresh_parent(conn: sqlite3.Connection, parent: str, level: int) -> None:
    """Recompute parent's fingerprint and child positions from its children, then its state."""
    if not parent:
        return
    rows = conn.execute("SELECT key, title, summary FROM nodes WHERE parent = ? ORDER BY key", (parent,)).fetchall()
    conn.execute("UPDATE nodes SET fingerprint = ? WHERE key = ?", (parent_fingerprint(level, rows), parent))
    ordered = conn.execute("SELECT key FROM nodes WHERE parent = ? ORDER BY period_start, first_ts, key",
                           (parent,)).fetchall()
    stored = dict(conn.execute("SELECT source, position FROM node_sources WHERE node = ? AND kind = 'node'", (parent,)))
    conn.executemany("UPDATE node_sources SET position = ? WHERE node = ? AND kind = 'node' AND source = ?",
                     [(i, parent, k) for i, (k,) in enumerate(ordered) if stored.get(k) != i])
    refresh_state(conn, parent)


def mark_context_stale(conn: sqlite3.Connection, node: NodeRow) -> None:
    """Flag the summarized nodes that read ``node`` as context, and refresh their state."""
    for key in context_dependents(conn, node):
        cur = conn.execute("UPDATE nodes SET context_stale = 1 WHERE key = ? AND summarized_fingerprint != ''"
                           " AND context_stale = 0", (key,))
        if cur.rowcount:
            refresh_state(conn, key)
