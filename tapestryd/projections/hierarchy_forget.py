"""The hierarchy's side of forgetting: nodes that held a forgotten message become dirty.

The messages projection (applied first) has already deleted what a ``Forgotten`` event
covers. Each L0 whose message sources no longer exist then:

* loses those sources, and its counts (``message_count``, ``source_chars``, and its
  ancestors' counts) are lowered;
* gets the Forgotten event folded into its digest, so its fingerprint differs from the
  one its summary was made from: it is dirty and is summarized again when the summarizer
  next runs;
* has its summary and title blanked at once, so the old summary (which may quote what
  was forgotten) is neither served nor searchable meanwhile; its parents' fingerprints
  change with it, so they are rebuilt too;
* has every ancestor's summary and title blanked as well (an L1 to L4 summary may quote
  the forgotten text) and its summarized fingerprint cleared, so each stays dirty until
  summarized again (even if its children's new summaries equal the old ones), and no forgotten text stays in summaries, summary search or
  context whether or not a daemon runs to summarize them again.

A pattern rule also blanks, with their ancestors, the summaries and titles it matches
(a word may reach a summary only through a conversation title); such an L0 is dirty too.

An L0 left without messages is deleted, and so is each ancestor left without children.

Deterministic on replay: the same events in the same order give the same rows.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from tapestryd.events.types import Forgotten, StoredEvent
from tapestryd.projections.forgetting import compiled
from tapestryd.projections.hierarchy_keys import add_to_digest, l0_fingerprint
from tapestryd.projections.hierarchy_state import refresh_parent, refresh_state

__all__ = ["forget_sources"]


def forget_sources(conn: sqlite3.Connection, event: StoredEvent) -> list[str]:
    """Apply a Forgotten event to the nodes (see the module docstring); returns the L0 keys touched."""
    lost: dict[str, list[str]] = defaultdict(list)
    for node, source in conn.execute(
            "SELECT node, source FROM node_sources WHERE kind = 'message'"
            " AND CAST(source AS INTEGER) NOT IN (SELECT id FROM messages)"):
        lost[node].append(source)
    for leaf, sources in sorted(lost.items()):
        _shrink(conn, leaf, sources, event.event_id)
    rule = event.event
    if isinstance(rule, Forgotten) and rule.match and not rule.before:
        return sorted(set(lost) | _blank_matching(conn, rule, event.event_id))
    return sorted(lost)


def _blank_matching(conn: sqlite3.Connection, rule: Forgotten, forgotten: str) -> set[str]:
    """Blank every summary or title the pattern matches (a word may reach a summary only
    through a conversation title), with its ancestors; an L0 gets the event in its digest so
    it is summarized again. Returns the L0 keys touched."""
    pattern = compiled(rule.match)
    scope, params = (" AND conversation = ?", (rule.conversation,)) if rule.conversation else ("", ())
    touched: set[str] = set()
    rows = conn.execute(f"SELECT key, level, digest, title, summary FROM nodes WHERE 1 = 1{scope}", params).fetchall()
    for key, level, digest, title, summary in rows:
        if not (pattern.search(title) or pattern.search(summary)):
            continue
        if level == 0:
            digest = add_to_digest(digest, forgotten, "forgotten")
            conn.execute("UPDATE nodes SET digest = ?, fingerprint = ? WHERE key = ?",
                         (digest, l0_fingerprint(digest), key))
            touched.add(key)
        _lower_ancestors(conn, key, 0, 0)
    return touched


def _shrink(conn: sqlite3.Connection, leaf: str, sources: list[str], forgotten: str) -> None:
    conn.executemany("DELETE FROM node_sources WHERE node = ? AND kind = 'message' AND source = ?",
                     [(leaf, s) for s in sources])
    count, chars = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(LENGTH(m.text)), 0) FROM node_sources s JOIN messages m"
        " ON m.id = CAST(s.source AS INTEGER) WHERE s.node = ? AND s.kind = 'message'", (leaf,)).fetchone()
    row = conn.execute("SELECT digest, message_count, source_chars, parent, level FROM nodes WHERE key = ?",
                       (leaf,)).fetchone()
    if row is None:
        return
    digest, old_count, old_chars, parent, _ = row
    if count == 0:
        _drop(conn, leaf)
        _lower_ancestors(conn, parent, old_count, old_chars)
        return
    digest = add_to_digest(digest, forgotten, "forgotten")
    conn.execute("UPDATE nodes SET digest = ?, fingerprint = ?, message_count = ?, source_chars = ?, summary = '',"
                 " title = '' WHERE key = ?", (digest, l0_fingerprint(digest), count, chars, leaf))
    refresh_state(conn, leaf)
    _lower_ancestors(conn, parent, old_count - count, old_chars - chars)


def _drop(conn: sqlite3.Connection, key: str) -> None:
    """Delete a node that holds nothing any more, and each ancestor it leaves without children."""
    while key:
        parent = conn.execute("SELECT parent FROM nodes WHERE key = ?", (key,)).fetchone()
        conn.execute("DELETE FROM node_sources WHERE node = ? OR (kind = 'node' AND source = ?)", (key, key))
        conn.execute("DELETE FROM nodes WHERE key = ?", (key,))
        key = parent[0] if parent else ""
        if conn.execute("SELECT 1 FROM nodes WHERE parent = ?", (key,)).fetchone():
            return


def _lower_ancestors(conn: sqlite3.Connection, key: str, messages: int, chars: int) -> None:
    while key:
        row = conn.execute("SELECT parent, level FROM nodes WHERE key = ?", (key,)).fetchone()
        if row is None:
            return
        conn.execute("UPDATE nodes SET message_count = MAX(0, message_count - ?), source_chars = MAX(0, source_chars - ?),"
                     " summary = '', title = '', summarized_fingerprint = '' WHERE key = ?", (messages, chars, key))
        refresh_parent(conn, key, row[1])
        key = row[0]
