"""Compaction: rewrite the event log without the payloads of what was forgotten.

The only operation that rewrites history. Envelopes stay (seq, ``event_id``, type, time,
agent, source), so a re-import of the same export stays a no-op and seqs never move;
payloads become tombstones:

* a ``MessageRecorded`` the messages projection dropped because a ``Forgotten`` rule
  covers it: text ``""``, ``meta = {"forgotten": true}`` (the projection never stores a
  tombstone, so a rebuild after compaction equals the one before);
* a ``ConversationTitled`` of a conversation forgotten as a whole, or whose title a
  pattern rule (without a time bound) matches: title ``""``;
* a ``NodeSummarized`` written before a ``Forgotten`` event blanked its node, or that a
  later pattern rule matches (it may quote what was forgotten): title ``""``, text a
  tombstone naming that event (:mod:`tapestryd.operations.compact_summaries`), which blanks the
  node again on replay, so ``rebuild`` after compaction gives the summaries, titles and
  states it gave before.

:func:`compact_log` first writes a ``pre-compact-*`` backup, updates the rows in one
transaction (counting the compaction in the log's ``log.compactions`` checkpoint, which tells
sync to send the tombstones to the hub), then ``VACUUM`` and a truncating WAL checkpoint so the
old bytes leave the file. ``projections.db`` dropped the forgotten rows when the ``Forgotten`` events
were projected, but FTS5 keeps a deleted document's terms in its segments until they are merged:
every full-text index is merged (:func:`~tapestryd.projections.fts_options.optimize_all`) and the
file vacuumed the same way, so no byte of a forgotten word is left there either.
:func:`confirm_compaction` deletes the pre-compact backups and applies the same
tombstones (by ``event_id``) to every other backup, so no copy keeps what was forgotten.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from tapestryd.db import transaction, translate_errors
from tapestryd.errors import TapestryError
from tapestryd.events.codec import encode
from tapestryd.events.types import (
    ConversationTitled,
    Forgotten,
    MessageRecorded,
    NodeSummarized,
    StoredEvent,
)
from tapestryd.operations.backup import backup_log, list_backups
from tapestryd.operations.compact_summaries import (
    is_summary_tombstone,
    lost_leaves,
    summary_tombstones,
)
from tapestryd.operations.runtime import Runtime
from tapestryd.privacy import outbound
from tapestryd.projections.fts_options import optimize_all
from tapestryd.projections.forgetting import ForgetRule, compiled
from tapestryd.projections.messages_read import stored_message_keys

__all__ = ["COMPACTIONS", "CompactionPlan", "compact_log", "confirm_compaction", "is_tombstone", "plan_compaction",
           "squeeze", "tombstones"]

log = structlog.get_logger(__name__)

COMPACTIONS = "log.compactions"
"""The log's checkpoint counting compactions, saved with the rewrite: sync pushes the tombstones
to the hub when it moved since the last push."""


@dataclass
class CompactionPlan:
    """Tombstone payloads by seq (``rewrites``) and counts by event type."""

    rewrites: dict[int, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, event: StoredEvent, tombstone: Any) -> None:
        """Plan to replace ``event``'s payload by ``tombstone``'s."""
        self.rewrites[event.seq] = encode(tombstone)[2]
        self.counts[event.type] += 1


def plan_compaction(runtime: Runtime) -> CompactionPlan:
    """What compaction would rewrite; projections must have caught up with the log.

    Raises TapestryError when the projections lag (their rows decide what is forgotten).
    """
    runtime.projector.catch_up()
    if any(runtime.projector.lag().values()):
        raise TapestryError("projections are behind the log; run `tapestryctl rebuild` and try again")
    forgets = list(runtime.store.read(types=[Forgotten.type]))
    plan = CompactionPlan()
    if forgets:
        gone = _plan_messages(runtime, [ForgetRule.of(f.payload(Forgotten)) for f in forgets], plan)
        settings = runtime.settings
        lost = lost_leaves(gone, forgets, settings.timezone, settings.first_day_of_week)
        events = runtime.store.read(types=[NodeSummarized.type, Forgotten.type])
        for event, tombstone in summary_tombstones(events, lost, settings.first_day_of_week):
            plan.add(event, tombstone)
    return plan


def _plan_messages(runtime: Runtime, rules: list[ForgetRule], plan: CompactionPlan) -> list[StoredEvent]:
    """Plan message and title tombstones; returns every forgotten MessageRecorded (tombstones included)."""
    stored = stored_message_keys(runtime.projector.conn)
    whole = {r.conversation for r in rules if r.conversation and not (r.before or r.match)}
    gone = []
    for event in runtime.store.read(types=[MessageRecorded.type, ConversationTitled.type]):
        payload = event.event
        if isinstance(payload, ConversationTitled):
            if payload.title and (payload.conversation in whole or _title_matched(rules, payload)):
                plan.add(event, dataclasses.replace(payload, title=""))
        elif isinstance(payload, MessageRecorded) and payload.meta.get("forgotten"):
            gone.append(event)
        elif (isinstance(payload, MessageRecorded) and (payload.conversation, payload.message) not in stored
              and _plausible(rules, payload)):
            plan.add(event, dataclasses.replace(payload, text="", meta={"forgotten": True}))
            gone.append(event)
    return gone


def _title_matched(rules: list[ForgetRule], titled: ConversationTitled) -> bool:
    """Whether a pattern rule without a time bound forgets this title (as the projection judges it)."""
    title = outbound(titled.title)
    return any(r.match and not r.before and r.conversation in ("", titled.conversation)
               and compiled(r.match).search(title) for r in rules)


def _plausible(rules: list[ForgetRule], msg: MessageRecorded) -> bool:
    """A rule whose conversation and time bounds include the message (its regex was judged by the projection)."""
    return any((not r.conversation or r.conversation == msg.conversation) and (not r.before or msg.timestamp < r.before)
               for r in rules)


def compact_log(runtime: Runtime, *, dry_run: bool = False) -> dict[str, Any]:
    """Rewrite forgotten payloads as tombstones (see the module docstring); returns a report.

    The report holds ``rewritten`` (counts by type), ``backup`` (the pre-compact copy, or
    None on a dry run or when there was nothing to do) and ``bytes_before``/``bytes_after`` (the file and its WAL).
    """
    plan = plan_compaction(runtime)
    report: dict[str, Any] = {"dry_run": dry_run, "rewritten": dict(plan.counts), "backup": None,
                              "bytes_before": _log_bytes(runtime.paths.events_db)}
    if dry_run or not plan.rewrites:
        return {**report, "bytes_after": report["bytes_before"]}
    report["backup"] = str(backup_log(runtime.paths.events_db, runtime.paths.backups, label="pre-compact").path)
    store = runtime.store
    store.rewrite(plan.rewrites, {COMPACTIONS: store.checkpoint(COMPACTIONS) + 1})
    squeeze(store.conn)
    with transaction(runtime.projector.conn):
        optimize_all(runtime.projector.conn)  # a deleted document's terms leave the index's segments
    squeeze(runtime.projector.conn)
    log.info("log.compacted", rewritten=dict(plan.counts), backup=report["backup"])
    return {**report, "bytes_after": _log_bytes(runtime.paths.events_db)}


def _log_bytes(events_db: Path) -> int:
    """The log's bytes on disk: the file and its write-ahead log (where a running daemon's recent events wait)."""
    wal = events_db.with_name(events_db.name + "-wal")
    return events_db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def squeeze(conn: sqlite3.Connection) -> None:
    """Rebuild the file and empty the WAL, so freed pages holding old payloads are gone."""
    with translate_errors(conn):
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def confirm_compaction(runtime: Runtime) -> dict[str, Any]:
    """Delete pre-compact backups and tombstone the same events in every other backup.

    Returns ``{"deleted": [paths], "scrubbed": {path: rows rewritten}}``.
    """
    tombstones = _tombstone_payloads(runtime.store.conn)
    deleted, scrubbed = [], {}
    for backup in list_backups(runtime.paths.backups):
        if backup.label == "pre-compact":
            backup.path.unlink(missing_ok=True)
            deleted.append(str(backup.path))
        elif tombstones:
            scrubbed[str(backup.path)] = _scrub_file(backup.path, tombstones)
    log.info("log.compaction_confirmed", deleted=len(deleted), scrubbed=sum(scrubbed.values()))
    return {"deleted": deleted, "scrubbed": scrubbed}


def tombstones(conn: sqlite3.Connection) -> dict[str, tuple[int, str]]:
    """``event_id → (seq, payload)`` of every tombstoned event in the log (one pass over three types)."""
    found = {}
    with translate_errors(conn):
        for seq, eid, type_name, payload in conn.execute(
                "SELECT seq, event_id, type, payload FROM events WHERE type IN (?, ?, ?)",
                (MessageRecorded.type, ConversationTitled.type, NodeSummarized.type)):
            if is_tombstone(type_name, payload):
                found[eid] = (int(seq), payload)
    return found


def _tombstone_payloads(conn: sqlite3.Connection) -> dict[str, str]:
    """``event_id → payload`` of every tombstoned event in the live log."""
    return {eid: payload for eid, (_, payload) in tombstones(conn).items()}


def is_tombstone(type_name: str, payload: str) -> bool:
    """Whether ``payload`` (JSON) is what compaction leaves of an event of ``type_name``."""
    try:
        data = json.loads(payload)
    except ValueError:
        return False
    if not isinstance(data, dict):
        return False
    if type_name == MessageRecorded.type:
        return bool((data.get("meta") or {}).get("forgotten")) and data.get("text") == ""
    if type_name == ConversationTitled.type:
        return data.get("title") == ""
    if type_name != NodeSummarized.type:
        return False
    text = data.get("text") or ""
    return is_summary_tombstone(text) or (text == "" and data.get("title") == "")


def _scrub_file(path: Path, tombstones: dict[str, str]) -> int:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        changed = sum(conn.execute("UPDATE events SET payload = ? WHERE event_id = ? AND payload != ?",
                                   (p, eid, p)).rowcount for eid, p in tombstones.items())
        conn.execute("COMMIT")
        conn.execute("VACUUM")
    except sqlite3.Error as exc:
        raise TapestryError(f"cannot scrub backup {path}: {exc}") from exc
    finally:
        conn.close()
    return changed
