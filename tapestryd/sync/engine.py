"""One sync round: push this machine's events to the hub, pull the others', and the same for tombstones.

Push (:func:`push`): the events this machine captured (``origin`` = its name) after its push
checkpoint are sealed and inserted into the hub (``ON CONFLICT (event_id) DO NOTHING``), and
the checkpoint moves in the same PostgreSQL transaction. The round starts from the lower of
the hub's checkpoint and this log's own record of it (``sync.pushed``, written after the hub
commits), so a log restored from a backup, or two machines given the same name, re-push
(no-ops) instead of skipping events.

Pull (:func:`pull`): hub rows after ``sync.pulled`` (a ``hub_seq``) are opened and appended
to the local log with the checkpoint in the same SQLite transaction. A row sealed with
another key, one that does not open or decode (a field of the wrong type included, see
:mod:`tapestryd.sync.shape`), or one of a type or a schema version this version does not
know is reported (:class:`Skipped`) and passed over; nothing local changes for it.

Tombstones: after ``compact``, the tombstoned payloads (:func:`push_forgotten`) replace the
hub's sealed payloads of those events and are listed in ``hub_forgotten``; other machines
rewrite their own copies of those events (:func:`pull_forgotten`), checkpoint
``sync.forgotten`` in the same transaction.

Both directions are idempotent by event id, so a SIGKILL at any point neither loses nor
doubles an event: what committed is covered by a checkpoint, what did not is copied again.
Every hub call runs on the caller's thread; every local write goes through ``write`` (in the
daemon: the writer thread, so capture is never held up by a slow hub).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Sequence, TypeVar

from tapestryd.errors import SyncError
from tapestryd.events.codec import EVENT_TYPES, decode, encode
from tapestryd.events.store import AppendResult, EventStore, RawEvent
from tapestryd.events.types import NewEvent, StoredEvent, UnknownEvent, parse_utc
from tapestryd.sync.crypto import Opened, Sealed, Sealer
from tapestryd.sync.hub import Hub, HubRow
from tapestryd.sync.shape import wrong_field

__all__ = ["BATCH", "PULLED", "PUSHED", "FORGOTTEN", "FORGOTTEN_PUSHED", "Skipped", "Transfer", "Write", "pull",
           "pull_forgotten", "push", "push_forgotten"]

T = TypeVar("T")
Write = Callable[[Callable[[EventStore], T]], T]
"""Runs ``fn(store)`` where the log may be written (the writer thread in the daemon) and returns its result."""

BATCH = 2000
PUSHED = "sync.pushed"
PULLED = "sync.pulled"
FORGOTTEN = "sync.forgotten"
FORGOTTEN_PUSHED = "sync.forgotten_pushed"
MAX_REPORTED = 20


@dataclass(frozen=True)
class Skipped:
    """A hub row that was passed over: its position, event id and why."""

    seq: int
    event_id: str
    reason: str


@dataclass
class Transfer:
    """What one direction of a round did: rows seen, events new on the other side, rows skipped."""

    seen: int = 0
    new: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    skipped_count: int = 0
    new_types: dict[str, int] = field(default_factory=dict)

    def skip(self, row: HubRow, reason: str) -> None:
        """Count a skipped row (the first :data:`MAX_REPORTED` are kept with their reason)."""
        self.skipped_count += 1
        if len(self.skipped) < MAX_REPORTED:
            self.skipped.append(Skipped(row.seq, row.event_id, reason))

    def to_json(self) -> dict[str, Any]:
        """``{"seen", "new", "skipped", "skipped_rows": [{seq, event_id, reason}], "new_types": {type: n}}``."""
        return {"seen": self.seen, "new": self.new, "skipped": self.skipped_count,
                "skipped_rows": [vars(s) for s in self.skipped], "new_types": dict(self.new_types)}


def _save(store: EventStore, *, checkpoints: dict[str, int]) -> None:
    store.append((), checkpoints=checkpoints)


def _append(store: EventStore, *, news: list[NewEvent], checkpoints: dict[str, int]) -> AppendResult:
    return store.append(news, checkpoints=checkpoints)


def _rewrite(store: EventStore, *, payloads: dict[str, str], checkpoints: dict[str, int]) -> int:
    return store.rewrite(payloads, checkpoints)


def _seal(sealer: Sealer, row: RawEvent) -> dict[str, Any]:
    """The ``hub_events`` row of a local row."""
    sealed = sealer.seal(row.event_id, row.origin, row.type, row.schema, row.occurred_at,
                         Opened(row.agent, row.source, row.payload, row.recorded_at))
    return {"event_id": row.event_id, "origin": row.origin, "type": row.type, "schema": row.schema,
            "occurred_at": row.occurred_at, "key_id": sealed.key_id, "nonce": sealed.nonce,
            "ciphertext": sealed.ciphertext}


def _raw(event: StoredEvent) -> RawEvent:
    """A decoded event as its stored row (its payload encoded again)."""
    type_name, schema, payload = encode(event.event)
    return RawEvent(event.seq, event.event_id, type_name, schema, event.occurred_at, event.recorded_at, event.agent,
                    event.source, payload, event.origin)


def push(hub: Hub, sealer: Sealer, store: EventStore, machine: str, write: Write[Any], *,
         batch: int = BATCH, stop: Callable[[], bool] = lambda: False) -> Transfer:
    """Copy this machine's events the hub lacks to it (see the module docstring).

    ``store`` is read on this thread (a read-only connection in the daemon). ``stop()`` is
    asked between batches. Raises SyncError when the hub fails; what committed stays.
    """
    done = Transfer()
    start = min(hub.pushed(machine), store.checkpoint(PUSHED))
    upto = store.last_seq()
    while start < upto and not stop():
        rows = store.read_rows(start, until=upto, origin=machine, limit=batch)
        end = rows[-1].seq if len(rows) >= batch else upto
        done.seen += len(rows)
        done.new += hub.push(machine, [_seal(sealer, row) for row in rows], end)
        write(partial(_save, checkpoints={PUSHED: end}))
        start = end
    return done


def _open(sealer: Sealer, row: HubRow, done: Transfer) -> tuple[Opened, Any] | None:
    """The opened secret part and decoded event of a hub row, or None (counted as skipped)."""
    known = EVENT_TYPES.get(row.type)
    if known is not None and row.schema > known.schema:
        done.skip(row, f"{row.type} schema {row.schema} is newer than this version's {known.schema} "
                       "(from a newer tapestryd?)")
        return None
    try:
        opened = sealer.open(row.event_id, row.origin, row.type, row.schema, row.occurred_at,
                             Sealed(row.key_id, bytes(row.nonce), bytes(row.ciphertext)))
        event = decode(row.type, row.schema, opened.payload)
    except SyncError as exc:
        done.skip(row, exc.message)
        return None
    except (ValueError, TypeError, KeyError, RecursionError) as exc:
        done.skip(row, f"payload does not decode: {type(exc).__name__}: {exc}")
        return None
    if isinstance(event, UnknownEvent):
        done.skip(row, f"unknown event type {row.type!r} (from a newer tapestryd?)")
        return None
    wrong = wrong_field(event)
    if wrong:
        done.skip(row, f"payload does not decode: {wrong}")
        return None
    return opened, event


def _new_event(row: HubRow, opened: Opened, event: Any) -> NewEvent | None:
    try:
        occurred = parse_utc(row.occurred_at)
        recorded = parse_utc(opened.recorded_at) if opened.recorded_at else None
    except ValueError:
        return None
    return NewEvent(row.event_id, event, occurred, opened.agent, opened.source, row.origin, recorded)


def pull(hub: Hub, sealer: Sealer, store: EventStore, machine: str, write: Write[Any], *, batch: int = BATCH,
         stop: Callable[[], bool] = lambda: False) -> Transfer:
    """Append the hub's events this log lacks (see the module docstring); returns what it did.

    This machine's own rows are left on the hub (they came from this log) unless the log may
    lack some: its first pull from this hub (a new or wiped log), or the hub knows more of its
    events than the log holds (a log restored from an older backup). Raises SyncError when the
    hub fails; what was appended stays, with its checkpoint.
    """
    done = Transfer()
    start = store.checkpoint(PULLED)
    others_only = start > 0 and hub.pushed(machine) <= store.last_seq()
    while not stop():
        head, rows = hub.rows_after(start, batch, skip_origin=machine if others_only else None)
        if not rows:
            if head > start:  # only this machine's own rows were left: pass over them
                write(partial(_save, checkpoints={PULLED: head}))
            break
        news: list[NewEvent] = []
        for row in rows:
            if store.contains(row.event_id):  # this log has it (pulled before a crash, or its own): no decryption
                continue
            opened = _open(sealer, row, done)
            if opened is None:
                continue
            new = _new_event(row, *opened)
            if new is None:
                done.skip(row, f"occurred_at {row.occurred_at!r} is not an ISO time")
                continue
            news.append(new)
        end = rows[-1].seq if len(rows) >= batch else head
        result: AppendResult = write(partial(_append, news=news, checkpoints={PULLED: end}))
        done.seen += len(rows)
        done.new += result.new
        for new, seq in zip(news, result.seqs):
            if seq is not None:
                done.new_types[new.event.type] = done.new_types.get(new.event.type, 0) + 1
        start = end
        if len(rows) < batch:
            break
    return done


def push_forgotten(hub: Hub, sealer: Sealer, machine: str, tombstones: Sequence[StoredEvent], generation: int,
                   write: Write[Any]) -> int:
    """Replace the hub's payloads of ``tombstones`` (the local events compaction rewrote) and record them
    as forgotten; then save compaction ``generation`` as pushed (``sync.forgotten_pushed``). Returns how
    many tombstones were new on the hub. Raises SyncError when the hub fails (the next round redoes it)."""
    rows = [_seal(sealer, _raw(event)) for event in tombstones]
    new = 0
    for start in range(0, len(rows), BATCH):
        new += hub.forget(machine, rows[start:start + BATCH])
    write(partial(_save, checkpoints={FORGOTTEN_PUSHED: generation}))
    return new


def pull_forgotten(hub: Hub, sealer: Sealer, store: EventStore, write: Write[Any],
                   is_tombstone: Callable[[str, str], bool], *, batch: int = BATCH) -> Transfer:
    """Rewrite this log's copies of events another machine compacted away, with ``sync.forgotten`` in the
    same transaction. A row whose payload ``is_tombstone(type, payload)`` denies is skipped: sync
    only ever blanks what was forgotten. ``new`` counts the local rows rewritten."""
    done = Transfer()
    start = store.checkpoint(FORGOTTEN)
    while True:
        rows = hub.forgotten_after(start, batch)
        if not rows:
            break
        payloads: dict[str, str] = {}
        for row in rows:
            opened = _open(sealer, row, done)
            if opened is None:
                continue
            if not is_tombstone(row.type, opened[0].payload):
                done.skip(row, "listed as forgotten, but its payload is not a tombstone")
                continue
            payloads[row.event_id] = opened[0].payload
        end = rows[-1].seq
        done.new += int(write(partial(_rewrite, payloads=payloads, checkpoints={FORGOTTEN: end})))
        done.seen += len(rows)
        start = end
        if len(rows) < batch:
            break
    return done
