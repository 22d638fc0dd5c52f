"""Structural checks of the hierarchy and the health grade they add up to.

Each check is an SQL query over the hierarchy's tables that lists offending keys (empty means it
passes); ``sources_resolve`` also asks the messages projection which message sources it holds
(:func:`~tapestryd.projections.messages_read.stored_ids`):

=================  =========================================================================
check              fails for
=================  =========================================================================
parent_links       a node whose parent is missing, of the wrong level or agent, or whose
                   period does not lie inside its parent's; an L4 with a parent
orphans            a node with no sources (an L0 without messages, a parent without children)
sources_resolve    a source that names a missing node or message, or a child listed under a
                   node that is not its parent
dailies            a day with segments but no daily node
duplicates         a message in two segments, or a node listed as a child twice
empty_content      a summarized node that is not waiting for a new summary (not dirty) and has
                   an empty title or summary
=================  =========================================================================

Grade: ``F`` for broken links, unresolved sources or duplicates; ``D`` for orphans or
missing dailies; ``C`` for empty content; ``B`` when all pass but closed nodes wait to be
summarized or refreshed; ``A`` when all pass and nothing closed waits.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from tapestryd.projections.messages_read import stored_ids

__all__ = ["CHECKS", "Check", "grade", "run_checks"]

CHECKS: dict[str, str] = {
    "parent_links": """
        SELECT c.key FROM nodes c LEFT JOIN nodes p ON p.key = c.parent
        WHERE c.level < 4 AND (p.key IS NULL OR p.level != c.level + 1 OR p.agent != c.agent
              OR c.period_start < p.period_start OR c.period_end > p.period_end)
        UNION ALL SELECT key FROM nodes WHERE level = 4 AND parent != ''""",
    "orphans": """
        SELECT n.key FROM nodes n WHERE NOT EXISTS (SELECT 1 FROM node_sources s WHERE s.node = n.key)""",
    "sources_resolve": """
        SELECT s.node || ' -> ' || s.source FROM node_sources s LEFT JOIN nodes c ON c.key = s.source
        WHERE s.kind = 'node' AND (c.key IS NULL OR c.parent != s.node)""",
    "dailies": """
        SELECT DISTINCT 'L1:' || n.agent || ':' || n.period_start FROM nodes n
        WHERE n.level = 0
        AND NOT EXISTS (SELECT 1 FROM nodes d WHERE d.key = 'L1:' || n.agent || ':' || n.period_start)""",
    "duplicates": """
        SELECT 'message ' || source FROM node_sources WHERE kind = 'message' GROUP BY source HAVING COUNT(*) > 1
        UNION ALL SELECT source FROM node_sources WHERE kind = 'node' GROUP BY source HAVING COUNT(*) > 1""",
    "empty_content": """
        SELECT key FROM nodes WHERE summarized_fingerprint != '' AND state != 'dirty'
        AND (TRIM(title) = '' OR TRIM(summary) = '')""",
}
_OTHER_KINDS = "SELECT node || ' -> ' || source FROM node_sources WHERE kind NOT IN ('node', 'message')"
_SEVERITY = {"parent_links": "F", "sources_resolve": "F", "duplicates": "F", "orphans": "D", "dailies": "D",
             "empty_content": "C"}


@dataclass(frozen=True)
class Check:
    """One check's result: how many offenders and up to five of them."""

    name: str
    failures: int
    examples: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Whether nothing offends."""
        return self.failures == 0

    def to_dict(self) -> dict[str, object]:
        """``{"name", "ok", "failures", "examples"}``."""
        return {"name": self.name, "ok": self.ok, "failures": self.failures, "examples": list(self.examples)}


def run_checks(conn: sqlite3.Connection) -> list[Check]:
    """Every check of :data:`CHECKS`, in order."""
    results = []
    for name, sql in CHECKS.items():
        rows = [str(r[0]) for r in conn.execute(sql)]
        if name == "sources_resolve":  # then messages not held, then sources of no known kind
            rows += _unresolved_messages(conn) + [str(r[0]) for r in conn.execute(_OTHER_KINDS)]
        results.append(Check(name, len(rows), tuple(rows[:5])))
    return results


def _unresolved_messages(conn: sqlite3.Connection) -> list[str]:
    """``node -> message source`` for each message source whose message the messages projection does not hold."""
    sources = conn.execute("SELECT node, source, CAST(source AS INTEGER) FROM node_sources WHERE kind = 'message'"
                           ).fetchall()
    stored = stored_ids(conn, (mid for _, _, mid in sources))
    return [f"{node} -> message {source}" for node, source, mid in sources if mid not in stored]


def grade(checks: list[Check], waiting: int) -> str:
    """The health grade (see the module docstring); ``waiting`` counts closed nodes not clean."""
    failed = {_SEVERITY[c.name] for c in checks if not c.ok}
    for letter in ("F", "D", "C"):
        if letter in failed:
            return letter
    return "B" if waiting else "A"
