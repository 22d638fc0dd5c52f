"""The hierarchy projection: nodes L0 → L4 with fingerprints, states and summaries.

Built from ``MessageRecorded`` (through the messages projection's rows, which the runner
applies first), ``DayClosed`` and ``NodeSummarized``. Node keys and fingerprints are
described in :mod:`tapestryd.projections.hierarchy_keys`; states (clean, dirty,
context_stale) in :mod:`tapestryd.projections.hierarchy_state`; telescoping context in
:mod:`tapestryd.projections.hierarchy_read`.

Tables it owns (in ``projections.db``):

* ``nodes``: one row per node. ``id`` (integer, the FTS rowid), ``key`` (unique node key),
  ``level`` (0–4), ``agent``, ``parent`` (key; ``''`` for L4), ``period_start`` and
  ``period_end`` (local ISO dates, inclusive), ``conversation`` (L0 only, else ``''``),
  ``title``, ``summary`` (of the latest NodeSummarized), ``fingerprint`` (current input
  fingerprint), ``summarized_fingerprint`` (the one the latest summary was made from),
  ``state`` (``clean`` | ``dirty`` | ``context_stale``), ``closed`` (1 once the period's last
  day closed), ``message_count`` and ``source_chars`` (messages and characters of message
  text under the node), ``first_ts`` / ``last_ts`` (ISO UTC of its first and last message),
  ``usage`` (JSON ``{calls, tokens_in, tokens_out}`` of the latest summary), ``provider``,
  ``model``, ``mode`` (``context`` | ``catchup``), ``prompt_version``,
  ``context_fingerprint``, ``context_stale`` (flag), ``digest`` (L0's running digest),
  ``summarized_seq`` (log seq of the latest summary) and ``versions`` (summaries applied).
* ``node_sources(node, source, kind, position)``: a parent's children (``kind='node'``,
  ``source`` a node key, ``position`` chronological 0..n-1) and an L0's messages
  (``kind='message'``, ``source`` the ``messages.id`` as text, ``position`` the log seq of
  the message's first part).
* ``nodes_fts``: external-content FTS5 over ``nodes.title`` and ``nodes.summary``
  (``rowid = nodes.id``), kept in step by this projection's inserts and by update and
  delete triggers; rank with ``bm25(nodes_fts)``.
* ``closed_days(agent, date)``: local days closed in this projection's timezone (agent
  ``''`` closes the day for every agent).
* ``summarizer_usage(provider, model, summaries, calls, tokens_in, tokens_out)``: totals
  over every NodeSummarized applied.

A message belongs to the local day of its first part's timestamp, so a reply streamed
over midnight stays in one segment.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import date
from typing import Sequence

from tapestryd.clock import local_date
from tapestryd.events.types import DayClosed, Forgotten, MessageRecorded, NodeSummarized, StoredEvent, parse_utc
from tapestryd.lazylog import get_logger
from tapestryd.projections.hierarchy_forget import forget_sources
from tapestryd.projections.hierarchy_keys import NodeId, add_to_digest, chain_of, l0_fingerprint, parent_fingerprint
from tapestryd.projections.hierarchy_read import get_node
from tapestryd.projections.hierarchy_schema import SCHEMA, TABLES
from tapestryd.projections.hierarchy_state import mark_context_stale, refresh_parent, refresh_state
from tapestryd.projections.messages_read import MessageAt, message_row, message_rows_of

__all__ = ["HierarchyProjection"]

log = get_logger(__name__)


class HierarchyProjection:
    """Summary nodes per agent over local periods of ``timezone`` (see the module docstring).

    ``first_day_of_week`` is 0 for Monday … 6 for Sunday. It reads the message rows the messages
    projection, applied before it, stored for each event through that projection's read functions.
    """

    name = "hierarchy"
    types: tuple[str, ...] = (MessageRecorded.type, DayClosed.type, NodeSummarized.type, Forgotten.type)

    def __init__(self, timezone: str, first_day_of_week: int) -> None:
        from zoneinfo import ZoneInfo

        self.timezone = timezone
        self.tz = ZoneInfo(timezone)
        self.first_day_of_week = first_day_of_week

    def create(self, conn: sqlite3.Connection) -> None:
        """Create the tables, indexes, FTS5 table and triggers if missing."""
        for statement in SCHEMA:
            conn.execute(statement)

    def clear(self, conn: sqlite3.Connection) -> None:
        """Delete every row it owns (the FTS index is emptied with it)."""
        for table in TABLES:
            conn.execute(f"DELETE FROM {table}")
        conn.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('delete-all')")

    def batch_safe(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> bool:
        """Always: no other projection reads the hierarchy's rows."""
        return True

    def apply_batch(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> None:
        """Apply ``events`` in order, the rows equal to ``apply``'s one by one.

        Message counts are summed per node in memory and each node written once: before a
        node is inserted (child positions are ordered by the siblings' first message),
        before any other event, and at the end.
        """
        counts = _Counts()
        rows = message_rows_of(conn, [e.event for e in events if isinstance(e.event, MessageRecorded)])
        for event in events:
            payload = event.event
            if isinstance(payload, MessageRecorded):
                self._record(conn, event, payload, counts, rows.get((payload.conversation, payload.message)))
            else:
                counts.write(conn)
                self.apply(conn, event)
        counts.write(conn)

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        """Apply a message, a closed day or a summary."""
        payload = event.event
        if isinstance(payload, MessageRecorded):
            counts = _Counts()
            self._record(conn, event, payload, counts, message_row(conn, payload))
            counts.write(conn)
        elif isinstance(payload, DayClosed):
            self._close(conn, payload)
        elif isinstance(payload, NodeSummarized):
            self._summarized(conn, event, payload)
        elif isinstance(payload, Forgotten):
            forget_sources(conn, event)  # nodes that held forgotten messages become dirty

    def _record(self, conn: sqlite3.Connection, event: StoredEvent, msg: MessageRecorded, counts: _Counts,
                row: MessageAt | None) -> None:
        """File the message whose stored row is ``row`` (None: not stored) under its L0 (created with its
        chain when new); its counts go to ``counts``."""
        if row is None:
            return
        message_id, ts, first_seq = row
        try:
            day = local_date(parse_utc(ts), self.tz)
        except ValueError:
            log.warning("hierarchy.message_skipped", seq=event.seq, reason=f"timestamp {ts!r} is not ISO 8601")
            return
        chain = chain_of(event.agent, day, msg.conversation, self.first_day_of_week)
        leaf = chain[0].key
        found = counts.held(leaf) or conn.execute("SELECT digest, state FROM nodes WHERE key = ?", (leaf,)).fetchone()
        if found is None:
            counts.write(conn)
            self._ensure_chain(conn, chain, ts)
        digest, state = found or ("", "dirty")
        new = conn.execute("INSERT OR IGNORE INTO node_sources VALUES (?, ?, 'message', ?)",
                           (leaf, str(message_id), first_seq)).rowcount
        digest = add_to_digest(digest, event.event_id, msg.role, msg.timestamp, msg.text)
        counts.add(chain, digest, state, new, len(msg.text), ts)
        if state != "dirty":
            counts.write(conn)
            refresh_state(conn, leaf)

    def _ensure_chain(self, conn: sqlite3.Connection, chain: tuple[NodeId, ...], ts: str) -> None:
        """Insert the chain's missing nodes top down, each linked to its parent (whose positions it changes)."""
        above = [node.key for node in chain[1:]]
        found = conn.execute(f"SELECT COUNT(*) FROM nodes WHERE key IN ({', '.join('?' * len(above))})",
                             above).fetchone()[0]
        for index in range(0 if found == len(above) else len(chain) - 1, -1, -1):  # all above there: the L0 alone
            node = chain[index]
            parent = chain[index + 1] if index + 1 < len(chain) else None
            if self._insert(conn, node, parent.key if parent else "", ts) and parent is not None:
                conn.execute("INSERT INTO node_sources VALUES (?, ?, 'node', 0)", (parent.key, node.key))
                refresh_parent(conn, parent.key, parent.level)

    def _insert(self, conn: sqlite3.Connection, node: NodeId, parent: str, ts: str) -> bool:
        end = node.period.end.isoformat()
        closed = conn.execute("SELECT 1 FROM closed_days WHERE date = ? AND agent IN ('', ?)",
                              (end, node.agent)).fetchone() is not None
        fingerprint = l0_fingerprint("") if node.level == 0 else parent_fingerprint(node.level, [])
        cur = conn.execute(
            "INSERT OR IGNORE INTO nodes (key, level, agent, parent, period_start, period_end, conversation,"
            " fingerprint, closed, first_ts, last_ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (node.key, node.level, node.agent, parent, node.period.start.isoformat(), end, node.conversation,
             fingerprint, int(closed), ts, ts))
        if cur.rowcount != 1:
            return False
        conn.execute("INSERT INTO nodes_fts(rowid, title, summary) VALUES (?, '', '')", (cur.lastrowid,))
        return True

    def _close(self, conn: sqlite3.Connection, closed: DayClosed) -> None:
        try:
            day = date.fromisoformat(closed.date).isoformat()
        except ValueError:
            log.warning("hierarchy.day_close_skipped", date=closed.date, reason="not an ISO date")
            return
        if closed.timezone != self.timezone:
            return
        conn.execute("INSERT OR IGNORE INTO closed_days VALUES (?, ?)", (closed.agent, day))
        where, params = ("", (day,)) if not closed.agent else (" AND agent = ?", (day, closed.agent))
        conn.execute(f"UPDATE nodes SET closed = 1 WHERE period_end = ?{where}", params)

    def _summarized(self, conn: sqlite3.Connection, event: StoredEvent, done: NodeSummarized) -> None:
        before = get_node(conn, done.node)
        if before is None:
            return
        conn.execute(
            "UPDATE nodes SET title = ?, summary = ?, summarized_fingerprint = ?, provider = ?, model = ?, mode = ?,"
            " usage = ?, prompt_version = ?, context_fingerprint = ?, context_stale = 0, summarized_seq = ?,"
            " versions = versions + 1 WHERE key = ?",
            (done.title, done.text, done.fingerprint, done.provider, done.model, done.mode, _usage_json(done.usage),
             done.prompt_version, done.context_fingerprint, event.seq, done.node))
        self._count_usage(conn, done)
        if (done.title, done.text) != (before.title, before.summary):
            refresh_parent(conn, before.parent, before.level + 1)
            mark_context_stale(conn, before)
        refresh_state(conn, done.node)

    @staticmethod
    def _count_usage(conn: sqlite3.Connection, done: NodeSummarized) -> None:
        usage = done.usage
        conn.execute(
            "INSERT INTO summarizer_usage VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT(provider, model) DO UPDATE SET"
            " summaries = summaries + 1, calls = calls + excluded.calls, tokens_in = tokens_in + excluded.tokens_in,"
            " tokens_out = tokens_out + excluded.tokens_out",
            (done.provider, done.model, int(usage.get("calls", 0)), int(usage.get("tokens_in", 0)),
             int(usage.get("tokens_out", 0))))


_COUNTS = ("message_count = message_count + ?, source_chars = source_chars + ?, first_ts = MIN(first_ts, ?),"
           " last_ts = MAX(last_ts, ?)")


class _Counts:
    """Message counts not yet written, held per L0: ``leaves`` maps an L0 key to its new digest,
    its state as read before these counts, its chain (L0 → L4) and the :class:`_Sums` to add to
    every node of the chain."""

    __slots__ = ("leaves",)

    def __init__(self) -> None:
        self.leaves: dict[str, tuple[str, str, tuple[NodeId, ...], _Sums]] = {}

    def held(self, leaf: str) -> tuple[str, str] | None:
        """``(digest, state)`` of L0 ``leaf`` when counts are held for it (its row is behind), else None."""
        held = self.leaves.get(leaf)
        return (held[0], held[1]) if held is not None else None

    def add(self, chain: tuple[NodeId, ...], digest: str, state: str, new: int, chars: int, ts: str) -> None:
        """Add one message (``new``: 1 when it was filed now, 0 for a later part) under ``chain``'s L0."""
        held = self.leaves.get(chain[0].key)
        if held is None:
            self.leaves[chain[0].key] = (digest, state, chain, _Sums(new, chars, ts, ts))
            return
        sums = held[3]
        self.leaves[chain[0].key] = (digest, state, chain, sums)
        sums.fold(new, chars, ts, ts)

    def write(self, conn: sqlite3.Connection) -> None:
        """Write every held count (an L0's digest and fingerprint with them), one row per node, and forget them.

        One single-row UPDATE per node: a multi-row statement opens a statement journal, at
        which FTS5 writes every FTS table's pending terms to disk.
        """
        if not self.leaves:
            return
        above: dict[str, _Sums] = {}
        for _, _, chain, sums in self.leaves.values():
            for node in chain[1:]:
                held = above.get(node.key)
                if held is None:
                    above[node.key] = _Sums(*sums.row())
                else:
                    held.fold(*sums.row())
        conn.executemany(f"UPDATE nodes SET digest = ?, fingerprint = ?, {_COUNTS} WHERE key = ?",
                         [(digest, l0_fingerprint(digest), *sums.row(), key)
                          for key, (digest, _, _, sums) in self.leaves.items()])
        conn.executemany(f"UPDATE nodes SET {_COUNTS} WHERE key = ?",
                         [(*sums.row(), key) for key, sums in above.items()])
        self.leaves.clear()


@dataclass(slots=True)
class _Sums:
    """What to add to a node's row: ``messages`` and ``chars`` (characters) to add, and the span
    ``first``..``last`` (ISO UTC timestamps) to widen its own to."""

    messages: int
    chars: int
    first: str
    last: str

    def fold(self, messages: int, chars: int, first: str, last: str) -> None:
        """Add ``messages`` and ``chars`` and widen the span to ``first``..``last``."""
        self.messages += messages
        self.chars += chars
        self.first, self.last = min(self.first, first), max(self.last, last)

    def row(self) -> tuple[int, int, str, str]:
        """The four values in the order of :data:`_COUNTS`' parameters."""
        return self.messages, self.chars, self.first, self.last


def _usage_json(usage: dict[str, int]) -> str:
    return json.dumps({k: int(usage.get(k, 0)) for k in ("calls", "tokens_in", "tokens_out")}, separators=(",", ":"))
