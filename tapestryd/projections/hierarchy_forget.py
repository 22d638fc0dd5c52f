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
  summarized again (even if its children's new summaries equal the old ones), and no
  forgotten text stays in summaries, summary search or context whether or not a daemon runs to summarize them again.

A pattern rule also blanks, with their ancestors, the summaries and titles it matches
(a word may reach a summary only through a conversation title); such an L0 is dirty too.

An L0 left without messages is deleted, and so is each ancestor left without children;
the nearest ancestor left is blanked and recounted like any other.

``tapestryctl compact`` replaces the summaries a Forgotten event blanked by a tombstone
(:func:`tombstone_text`: :data:`TOMBSTONE` + ``:{forgotten seq}:{n}``). The messages they
came from are tombstones too, which the messages projection never stores, so on replay
that Forgotten event finds no lost sources and no matching text; it blanks instead every
node whose summary is one of its tombstones, as it blanked them before the compaction.

Deterministic on replay: the same events in the same order give the same rows.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

from tapestryd.events.types import Forgotten, StoredEvent
from tapestryd.projections.forgetting import compiled
from tapestryd.projections.hierarchy_keys import add_to_digest, l0_fingerprint
from tapestryd.projections.hierarchy_read import segment_message_ids
from tapestryd.projections.hierarchy_state import refresh_parent, refresh_state
from tapestryd.projections.messages_read import stored_ids, text_sizes

__all__ = ["TOMBSTONE", "forget_sources", "tombstone_text"]

TOMBSTONE = "\ufdd0forgotten"
"""Prefix of a compacted summary (U+FDD0 is a Unicode noncharacter, never in a real summary)."""


def tombstone_text(forgotten_seq: int, variant: int) -> str:
    """The text of a compacted summary that the Forgotten event at ``forgotten_seq`` blanks;
    ``variant`` numbers the distinct texts of one node, so equal summaries stay equal."""
    return f"{TOMBSTONE}:{forgotten_seq}:{variant}"


def forget_sources(conn: sqlite3.Connection, event: StoredEvent) -> list[str]:
    """Apply a Forgotten event to the nodes (see the module docstring); returns the L0 keys touched."""
    lost: dict[str, list[str]] = defaultdict(list)
    sources = conn.execute("SELECT node, source, CAST(source AS INTEGER) FROM node_sources WHERE kind = 'message'"
                           ).fetchall()
    stored = stored_ids(conn, (mid for _, _, mid in sources))
    for node, source, mid in sources:
        if mid not in stored:
            lost[node].append(source)
    for leaf, sources in sorted(lost.items()):
        _shrink(conn, leaf, sources, event.event_id)
    touched = set(lost) | _blank_tombstones(conn, event)
    rule = event.event
    if isinstance(rule, Forgotten) and rule.match and not rule.before:
        touched |= _blank_matching(conn, rule, event.event_id)
    return sorted(touched)


def _blank_tombstones(conn: sqlite3.Connection, event: StoredEvent) -> set[str]:
    """Blank the nodes whose summary is a compaction tombstone of this event, as the event
    blanked them before the compaction; returns the L0 keys touched."""
    rows = conn.execute("SELECT key, level, digest, parent FROM nodes WHERE summary LIKE ?",
                        (tombstone_text(event.seq, 0)[:-1] + "%",)).fetchall()
    return {key for key, level, digest, parent in rows if _blank(conn, key, level, digest, parent, event.event_id)}


def _blank_matching(conn: sqlite3.Connection, rule: Forgotten, forgotten: str) -> set[str]:
    """Blank every summary or title the pattern matches (a word may reach a summary only
    through a conversation title), with its ancestors. Returns the L0 keys touched."""
    pattern = compiled(rule.match)
    scope, params = (" AND conversation = ?", (rule.conversation,)) if rule.conversation else ("", ())
    rows = conn.execute(f"SELECT key, level, digest, parent, title, summary FROM nodes WHERE 1 = 1{scope}",
                        params).fetchall()
    return {key for key, level, digest, parent, title, summary in rows
            if (pattern.search(title) or pattern.search(summary))
            and _blank(conn, key, level, digest, parent, forgotten)}


def _blank(conn: sqlite3.Connection, key: str, level: int, digest: str, parent: str, forgotten: str) -> bool:
    """Blank one node's summary and title and its ancestors', each dirty until summarized again
    (an L0 gets the Forgotten event in its digest); returns whether the node is an L0."""
    if level != 0:
        _lower_ancestors(conn, key, 0, 0)
        return False
    digest = add_to_digest(digest, forgotten, "forgotten")
    conn.execute("UPDATE nodes SET digest = ?, fingerprint = ?, summary = '', title = '', summarized_fingerprint = ''"
                 " WHERE key = ?", (digest, l0_fingerprint(digest), key))
    refresh_state(conn, key)
    _lower_ancestors(conn, parent, 0, 0)
    return True


def _shrink(conn: sqlite3.Connection, leaf: str, sources: list[str], forgotten: str) -> None:
    conn.executemany("DELETE FROM node_sources WHERE node = ? AND kind = 'message' AND source = ?",
                     [(leaf, s) for s in sources])
    count, chars = text_sizes(conn, segment_message_ids(conn, leaf))
    row = conn.execute("SELECT digest, message_count, source_chars, parent, level FROM nodes WHERE key = ?",
                       (leaf,)).fetchone()
    if row is None:
        return
    digest, old_count, old_chars, parent, _ = row
    if count == 0:
        _lower_ancestors(conn, _drop(conn, leaf), old_count, old_chars)
        return
    digest = add_to_digest(digest, forgotten, "forgotten")
    conn.execute("UPDATE nodes SET digest = ?, fingerprint = ?, message_count = ?, source_chars = ?, summary = '',"
                 " title = '' WHERE key = ?", (digest, l0_fingerprint(digest), count, chars, leaf))
    refresh_state(conn, leaf)
    _lower_ancestors(conn, parent, old_count - count, old_chars - chars)


def _drop(conn: sqlite3.Connection, key: str) -> str:
    """Delete a node that holds nothing any more, and each ancestor it leaves without children;
    returns the key of the nearest ancestor left (``''`` when none is)."""
    while key:
        parent = conn.execute("SELECT parent FROM nodes WHERE key = ?", (key,)).fetchone()
        conn.execute("DELETE FROM node_sources WHERE node = ? OR (kind = 'node' AND source = ?)", (key, key))
        conn.execute("DELETE FROM nodes WHERE key = ?", (key,))
        key = parent[0] if parent else ""
        if conn.execute("SELECT 1 FROM nodes WHERE parent = ?", (key,)).fetchone():
            return key
    return ""


def _lower_ancestors(conn: sqlite3.Connection, key: str, messages: int, chars: int) -> None:
    while key:
        row = conn.execute("SELECT parent, level FROM nodes WHERE key = ?", (key,)).fetchone()
        if row is None:
            return
        conn.execute("UPDATE nodes SET message_count = MAX(0, message_count - ?),"
                     " source_chars = MAX(0, source_chars - ?), summary = '', title = '', summarized_fingerprint = ''"
                     " WHERE key = ?", (messages, chars, key))
        refresh_parent(conn, key, row[1])
        key = row[0]
