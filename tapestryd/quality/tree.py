"""The summary hierarchy as the evaluation sees it: nodes, parent links and raw source texts.

Read from the hierarchy projection (tables ``nodes`` and ``node_sources``, see
:mod:`tapestryd.projections.hierarchy`) and the messages projection, on a read-only
connection. A node's *source* is the raw text of every message under it: an L0's own
messages (its ``node_sources`` of kind ``message``), and for a higher node the messages of
every L0 below it. Compression is always measured against that raw text, never against
the children's summaries.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

__all__ = ["EvalNode", "Tree", "load_tree"]

_COLUMNS = "key, level, agent, parent, period_start, period_end, conversation, title, summary, provider, model, mode"


@dataclass(frozen=True)
class EvalNode:
    """One node: key, level (0–4), agent, parent key ('' at the top), local period, summary."""

    key: str
    level: int
    agent: str
    parent: str
    period_start: str
    period_end: str
    conversation: str = ""
    title: str = ""
    summary: str = ""
    provider: str = ""
    model: str = ""
    mode: str = ""


@dataclass
class Tree:
    """Nodes by key and each L0's message texts in time order."""

    nodes: dict[str, EvalNode]
    messages: dict[str, list[str]] = field(default_factory=dict)

    def at_level(self, level: int) -> list[EvalNode]:
        """The nodes of one level in key order."""
        return sorted((n for n in self.nodes.values() if n.level == level), key=lambda n: n.key)

    def ancestor(self, key: str, level: int) -> str:
        """The key of ``key``'s ancestor (or itself) at ``level``; '' when there is none."""
        node = self.nodes.get(key)
        while node is not None and node.level < level:
            node = self.nodes.get(node.parent)
        return node.key if node is not None and node.level == level else ""

    def leaves_by_ancestor(self, level: int) -> dict[str, list[str]]:
        """For each node of ``level``, the L0 keys under it in key order."""
        grouped: dict[str, list[str]] = {}
        for leaf in sorted(self.messages):
            above = self.ancestor(leaf, level)
            if above:
                grouped.setdefault(above, []).append(leaf)
        return grouped


def load_tree(conn: sqlite3.Connection, *, agent: str = "") -> Tree:
    """Every node (of ``agent`` when given) and the message texts of each L0.

    ``conn`` is a connection to ``projections.db``; raises sqlite3.Error when the
    hierarchy tables are missing (the caller translates it).
    """
    where, params = ("WHERE agent = ?", (agent,)) if agent else ("", ())
    nodes = {row[0]: EvalNode(*row) for row in conn.execute(f"SELECT {_COLUMNS} FROM nodes {where}", params)}
    messages: dict[str, list[str]] = {key: [] for key, node in nodes.items() if node.level == 0}
    rows = conn.execute(
        "SELECT s.node, m.text FROM node_sources s JOIN messages m ON m.id = CAST(s.source AS INTEGER)"
        " WHERE s.kind = 'message' ORDER BY s.node, m.ts, m.id")
    for node_key, text in rows:
        if node_key in messages:
            messages[node_key].append(text)
    return Tree(nodes, messages)
