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

from tapestryd.projections.hierarchy_read import message_sources, node_table
from tapestryd.projections.messages_read import timed_messages

__all__ = ["EvalNode", "Tree", "load_tree"]

_COLUMNS = ("key", "level", "agent", "parent", "period_start", "period_end", "conversation", "title", "summary",
            "provider", "model", "mode")


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
    nodes = {row[0]: EvalNode(*row) for row in node_table(conn, _COLUMNS, agent=agent)}
    messages: dict[str, list[str]] = {key: [] for key, node in nodes.items() if node.level == 0}
    sources = [(key, mid) for key, mid in message_sources(conn) if key in messages]
    found = timed_messages(conn, sorted({mid for _, mid in sources}))
    timed = {mid: (rank, text) for rank, (mid, _, _, text) in enumerate(found)}  # rank: place in (ts, id) order
    for key, mid in sorted(((k, m) for k, m in sources if m in timed), key=lambda s: (s[0], timed[s[1]][0])):
        messages[key].append(timed[mid][1])
    return Tree(nodes, messages)
