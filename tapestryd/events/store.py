"""The append-only event log: one SQLite file (``events.db``) in WAL mode, ``synchronous=FULL``.

Its tables are the SQLModel models of :mod:`tapestryd.events.models`: the named migrations
run their DDL and appends run their Core statements, both compiled for SQLite ahead of time
(:mod:`tapestryd.events.sqlite_schema`, written by :mod:`tapestryd.events.statements` and
checked against the models by a test) and run on this module's ``sqlite3`` connection, so
no reader or writer of ``events.db`` imports SQLAlchemy.

* ``seq`` is assigned by SQLite (``INTEGER PRIMARY KEY AUTOINCREMENT``): strictly
  increasing, never reused, even after compaction deletes rows.
* ``event_id`` is unique: appending a known key is a no-op (``ON CONFLICT DO NOTHING``),
  which is what makes every import idempotent.
* A batch is appended in one transaction, together with the source offsets (file path →
  byte offset, inode, size) of the bytes it was read from, so a crash can neither lose nor
  repeat a line, and with named checkpoints (``sync_checkpoints``: how far sync copied,
  say), so what was copied and how far it got commit together.
* ``origin`` names the machine that captured each event: the store's ``machine`` unless
  the event says otherwise (one copied from another machine's log keeps its own).
* :meth:`EventStore.read` streams events after a seq in order, in bounded batches.
"""

from __future__ import annotations

import socket
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Iterator, Mapping, NamedTuple, Sequence

from tapestryd.db import Migration, connect, migrate, transaction, translate_errors
from tapestryd.errors import StoreError
from tapestryd.events import sqlite_schema as sql
from tapestryd.events.codec import decode, encode
from tapestryd.events.types import ConversationTitled, MessageRecorded, NewEvent, StoredEvent, format_utc

__all__ = ["AppendResult", "EventStore", "RawEvent", "SourceOffset", "default_machine"]


def default_machine() -> str:
    """This machine's name when ``[sync] machine`` is not set: its host name."""
    return socket.gethostname() or "localhost"


@dataclass(frozen=True)
class SourceOffset:
    """How far a source file has been read: byte ``offset`` into the file at ``inode``/``size``."""

    path: str
    offset: int
    inode: int = 0
    size: int = 0


class RawEvent(NamedTuple):
    """A stored row as it is: its payload JSON text not decoded (:meth:`EventStore.read_rows`)."""

    seq: int
    event_id: str
    type: str
    schema: int
    occurred_at: str
    recorded_at: str
    agent: str
    source: str
    payload: str
    origin: str


@dataclass(frozen=True)
class AppendResult:
    """Per appended event, its new seq or None when its event_id was already stored."""

    seqs: tuple[int | None, ...]

    @property
    def new(self) -> int:
        """How many events were stored now."""
        return sum(1 for s in self.seqs if s is not None)

    @property
    def known(self) -> int:
        """How many events were already in the log (no-ops)."""
        return sum(1 for s in self.seqs if s is None)


def _create_events(conn: sqlite3.Connection) -> None:
    _run(conn, sql.CREATE_EVENTS)


def _create_source_offsets(conn: sqlite3.Connection) -> None:
    _run(conn, sql.CREATE_SOURCE_OFFSETS)


def _add_origin(machine: str) -> Migration:
    """The migration adding ``events.origin`` (a log created from today's model has it already); the rows
    already stored were captured by ``machine``."""
    def _add_origin(conn: sqlite3.Connection) -> None:
        if "origin" not in {row[1] for row in conn.execute("PRAGMA table_info(events)")}:
            conn.execute(sql.ADD_EVENTS_ORIGIN)
            conn.execute("UPDATE events SET origin = ?", (machine,))
    return _add_origin


def _create_sync_checkpoints(conn: sqlite3.Connection) -> None:
    _run(conn, sql.CREATE_SYNC_CHECKPOINTS)


def _run(conn: sqlite3.Connection, ddl: Sequence[str]) -> None:
    for statement in ddl:
        conn.execute(statement)


def migrations(machine: str) -> list[Migration]:
    """The event log's named migrations in order (their DDL compiled from :mod:`tapestryd.events.models`);
    ``machine`` names the origin of the events stored before ``_add_origin``."""
    return [_create_events, _create_source_offsets, _add_origin(machine), _create_sync_checkpoints]


_NO_CHECKPOINTS: Mapping[str, int] = MappingProxyType({})
CACHE_KIB = 64 << 10
"""Page cache of a writing store, in KiB (SQLite's default is 2 MiB). The ``event_id`` index
takes random keys, so a batch dirties leaf pages all over it; with the index cached,
appending the 111,000 events of the 200 MB ChatGPT bench export took ~2.2 instead of ~2.4
CPU-s (interleaved runs)."""
_ID_CHUNK = 500
"""Event ids per ``IN (...)`` lookup (SQLite allows 32,766 variables; smaller chunks plan as fast)."""


def _row(new: NewEvent, recorded: str, machine: str) -> tuple[object, ...]:
    """The columns ``EVENT_COLUMNS[1:]`` of :mod:`~tapestryd.events.sqlite_schema` of one new event, in that order."""
    type_name, schema, payload = encode(new.event)
    if new.recorded_at is not None:
        recorded = format_utc(new.recorded_at)
    return (new.event_id, type_name, schema, format_utc(new.occurred_at), recorded, new.agent, new.source, payload,
            new.origin or machine)


_COLUMNS = ", ".join(sql.EVENT_COLUMNS[:-1])
"""The columns reads select but the last, ``origin`` (which ``_read_old_schema`` may stand in for)."""


class EventStore:
    """The event log in one SQLite file.

    ``machine`` is this machine's name (``[sync] machine``; default :func:`default_machine`):
    the origin of an event appended without one, and of the events a log stored before it
    recorded origins (the ``_add_origin`` migration). Raises StoreError when the file cannot
    be opened or written (disk full, read-only). A read-only store (``readonly=True``) never
    creates or migrates the file; reading a log not migrated yet, it answers as the
    migration would (origin ``machine``, no checkpoints).
    """

    def __init__(self, path: Path, *, readonly: bool = False, machine: str | None = None) -> None:
        self.path = path
        self.readonly = readonly
        self.machine = machine or default_machine()
        self.conn = connect(path, readonly=readonly, durable=True)
        self._origin, self._has_checkpoints = "origin", True  # the origin column's SQL; see _read_old_schema
        if not readonly:
            migrate(self.conn, migrations(self.machine))
            with translate_errors(self.conn):
                self.conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        else:
            self._read_old_schema()

    def _read_old_schema(self) -> None:
        """Answer for a log older than ``origin`` and ``sync_checkpoints`` as their migrations would."""
        with translate_errors(self.conn):
            columns = {row[1] for row in self.conn.execute("PRAGMA table_info(events)")}
            tables = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if columns and "origin" not in columns:
            self._origin = "'{}'".format(self.machine.replace("'", "''"))
        self._has_checkpoints = "sync_checkpoints" in tables

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.conn.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def append(self, events: Sequence[NewEvent], offsets: Iterable[SourceOffset] = (),
               checkpoints: Mapping[str, int] = _NO_CHECKPOINTS) -> AppendResult:
        """Append a batch and record source offsets and checkpoints, all in one transaction.

        Events whose event_id is already stored, or came earlier in the batch, are skipped
        (their seq is None): the same message imported on two machines is stored once. An
        event keeps its ``origin`` and ``recorded_at`` when it has them (one copied from
        another log), else gets this store's machine and the time now. ``checkpoints``
        (name → position, an integer) replace the stored positions of those names. Raises
        StoreError (nothing of the batch is stored) when the write fails.
        """
        recorded = format_utc(datetime.now(timezone.utc))
        with transaction(self.conn):
            seqs = self._insert_many(events, recorded)
            for off in offsets:
                self._save_offset(off, recorded)
            for name, position in checkpoints.items():
                self._save_checkpoint(name, position, recorded)
        return AppendResult(seqs)

    def _insert_many(self, events: Sequence[NewEvent], recorded: str) -> tuple[int | None, ...]:
        """Insert the events not stored yet with one ``executemany``, inside the caller's transaction.

        The INSERT is the models' Core statement compiled for SQLite
        (:mod:`~tapestryd.events.sqlite_schema`), run by ``sqlite3`` itself: SQLAlchemy's
        execution layer would cost more than the insert on this path.

        The known ids are looked up first; the rest get consecutive seqs after the table's
        AUTOINCREMENT counter (``sqlite_sequence``), which the insert count and the new
        maximum confirm (StoreError otherwise, rolling the batch back).
        """
        known = self._known_ids([e.event_id for e in events])
        fresh = [False] * len(events)
        for i, new in enumerate(events):
            if new.event_id not in known:
                known.add(new.event_id)
                fresh[i] = True
        machine = self.machine
        rows = [_row(new, recorded, machine) for new, is_new in zip(events, fresh) if is_new]
        base = self._sequence()
        before = self.conn.total_changes
        with translate_errors(self.conn):
            self.conn.executemany(sql.INSERT_EVENT, rows)
        stored = self.conn.total_changes - before
        if stored != len(rows) or (rows and self._sequence() != base + len(rows)):
            raise StoreError(f"{self.path}: an append stored {stored} of {len(rows)} new events; nothing of the batch"
                             " was kept")
        seq = iter(range(base + 1, base + len(rows) + 1))
        return tuple(next(seq) if is_new else None for is_new in fresh)

    def _known_ids(self, ids: list[str]) -> set[str]:
        """Which of ``ids`` are stored, asked in chunks below SQLite's variable limit."""
        known: set[str] = set()
        with translate_errors(self.conn):
            for start in range(0, len(ids), _ID_CHUNK):
                chunk = ids[start:start + _ID_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self.conn.execute(f"SELECT event_id FROM events WHERE event_id IN ({marks})", chunk)
                known.update(r[0] for r in rows)
        return known

    def _sequence(self) -> int:
        """The last seq AUTOINCREMENT handed out (0 before the first insert)."""
        with translate_errors(self.conn):
            row = self.conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()
        return int(row[0]) if row else 0

    def _save_offset(self, off: SourceOffset, recorded: str) -> None:
        self.conn.execute(sql.SAVE_OFFSET, (off.path, off.offset, off.inode, off.size, recorded))

    def _save_checkpoint(self, name: str, position: int, recorded: str) -> None:
        with translate_errors(self.conn):
            self.conn.execute(sql.SAVE_CHECKPOINT, (name, int(position), recorded))

    def checkpoint(self, name: str) -> int:
        """The position stored under checkpoint ``name`` (0 when it was never saved)."""
        if not self._has_checkpoints:
            return 0
        with translate_errors(self.conn):
            row = self.conn.execute("SELECT position FROM sync_checkpoints WHERE name = ?", (name,)).fetchone()
        return int(row[0]) if row else 0

    def checkpoints(self) -> dict[str, tuple[int, str]]:
        """Every stored checkpoint: name → (position, when it was saved as ISO UTC text)."""
        if not self._has_checkpoints:
            return {}
        with translate_errors(self.conn):
            rows = self.conn.execute("SELECT name, position, updated_at FROM sync_checkpoints").fetchall()
        return {str(r[0]): (int(r[1]), str(r[2])) for r in rows}

    def rewrite(self, payloads: Mapping[int, str] | Mapping[str, str],
                checkpoints: Mapping[str, int] = _NO_CHECKPOINTS) -> int:
        """Replace stored payloads and save ``checkpoints``, in one transaction; returns how many rows changed.

        A key of ``payloads`` is a seq (int) or an event id (str); one the log does not hold is
        passed over. Only compaction uses this: a payload becomes its tombstone (here, or on
        another machine whose tombstones sync brings). Raises StoreError (nothing changed) when
        the write fails.
        """
        recorded = format_utc(datetime.now(timezone.utc))
        changed = 0
        with transaction(self.conn), translate_errors(self.conn):
            for key, payload in payloads.items():
                column = "seq" if isinstance(key, int) else "event_id"
                changed += self.conn.execute(f"UPDATE events SET payload = ? WHERE {column} = ? AND payload != ?",
                                             (payload, key, payload)).rowcount
            for name, position in checkpoints.items():
                self._save_checkpoint(name, position, recorded)
        return changed

    def save_offsets(self, offsets: Iterable[SourceOffset]) -> None:
        """Record offsets alone (a file whose new bytes held no events)."""
        self.append((), offsets)

    def offset(self, path: str) -> SourceOffset | None:
        """The stored offset of one source file, or None if it was never read."""
        with translate_errors(self.conn):
            row = self.conn.execute("SELECT path, offset, inode, size FROM source_offsets WHERE path = ?",
                                    (path,)).fetchone()
        return SourceOffset(*row) if row else None

    def offsets(self) -> dict[str, SourceOffset]:
        """Every stored source offset by path."""
        with translate_errors(self.conn):
            rows = self.conn.execute("SELECT path, offset, inode, size FROM source_offsets").fetchall()
        return {r[0]: SourceOffset(*r) for r in rows}

    def last_seq(self) -> int:
        """The highest seq stored (0 for an empty log)."""
        with translate_errors(self.conn):
            return int(self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0])

    def count(self, *, after: int = 0, origin: str | None = None) -> int:
        """How many events the log holds after seq ``after`` (captured on ``origin`` only, when given)."""
        where, params = self._filter((), None, origin)
        with translate_errors(self.conn):
            return int(self.conn.execute(f"SELECT COUNT(*) FROM events WHERE seq > ?{where}",
                                         (after, *params)).fetchone()[0])

    def origins(self) -> dict[str, int]:
        """How many events each machine captured: origin → events, most first (ties by name)."""
        with translate_errors(self.conn):
            rows = self.conn.execute(f"SELECT {self._origin}, COUNT(*) FROM events GROUP BY 1").fetchall()
        return dict(sorted(((str(o), int(n)) for o, n in rows), key=lambda item: (-item[1], item[0])))

    def find(self, event_id: str) -> StoredEvent | None:
        """The stored event of this idempotency key, None when it is not in the log."""
        with translate_errors(self.conn):
            row = self.conn.execute(f"SELECT {self._columns} FROM events WHERE event_id = ?", (event_id,)).fetchone()
        return self._decode(row) if row is not None else None

    def contains(self, event_id: str) -> bool:
        """Whether an event with this idempotency key is stored."""
        with translate_errors(self.conn):
            return self.conn.execute("SELECT 1 FROM events WHERE event_id = ?", (event_id,)).fetchone() is not None

    def sources_of(self, conversation: str) -> set[str]:
        """The ``source`` of every message and title event of ``conversation`` (``path:offset`` for a file).

        One pass over those two event types (it reads each payload's ``conversation``).
        """
        with translate_errors(self.conn):
            rows = self.conn.execute("SELECT DISTINCT source FROM events WHERE type IN (?, ?) "
                                     "AND json_extract(payload, '$.conversation') = ?",
                                     (MessageRecorded.type, ConversationTitled.type, conversation)).fetchall()
        return {str(row[0]) for row in rows}

    def read(self, after: int = 0, *, types: Sequence[str] = (), batch: int = 2000,
             until: int | None = None, origin: str | None = None) -> Iterator[StoredEvent]:
        """Stream events with ``after < seq <= until`` in seq order, ``batch`` rows per query.

        ``types`` keeps only those type names, ``origin`` only the events captured on that
        machine. Raises StoreError naming the seq of a row whose payload does not decode.
        """
        where, params = self._filter(types, until, origin)
        while True:
            with translate_errors(self.conn):
                rows = self.conn.execute(
                    f"SELECT {self._columns} FROM events WHERE seq > ?{where} ORDER BY seq LIMIT ?",
                    (after, *params, batch),
                ).fetchall()
            yield from (self._decode(row) for row in rows)
            if len(rows) < batch:
                return
            after = rows[-1][0]

    def read_rows(self, after: int, *, until: int, origin: str, limit: int) -> list[RawEvent]:
        """Up to ``limit`` rows of machine ``origin`` with ``after < seq <= until``, in seq order, as stored
        (the payload JSON text not decoded: what sync seals and sends as it is)."""
        where, params = self._filter((), until, origin)
        with translate_errors(self.conn):
            rows = self.conn.execute(f"SELECT {self._columns} FROM events WHERE seq > ?{where} ORDER BY seq LIMIT ?",
                                     (after, *params, limit)).fetchall()
        return [RawEvent(*row) for row in rows]

    def at(self, seqs: Sequence[int]) -> list[StoredEvent]:
        """The stored events of ``seqs`` in seq order (a seq not in the log is left out).

        Raises StoreError naming the seq of a row whose payload does not decode.
        """
        found: list[tuple[Any, ...]] = []
        with translate_errors(self.conn):
            for start in range(0, len(seqs), _ID_CHUNK):
                chunk = list(seqs[start:start + _ID_CHUNK])
                found.extend(self.conn.execute(
                    f"SELECT {self._columns} FROM events WHERE seq IN ({','.join('?' * len(chunk))})", chunk))
        return [self._decode(row) for row in sorted(found, key=lambda row: int(row[0]))]

    def _filter(self, types: Sequence[str], until: int | None, origin: str | None) -> tuple[str, list[object]]:
        where, params = "", []  # type: tuple[str, list[object]]
        if types:
            where += f" AND type IN ({', '.join('?' * len(types))})"
            params.extend(types)
        if until is not None:
            where += " AND seq <= ?"
            params.append(until)
        if origin is not None:
            where += f" AND {self._origin} = ?"
            params.append(origin)
        return where, params

    @property
    def _columns(self) -> str:
        return f"{_COLUMNS}, {self._origin}"

    def _decode(self, row: tuple[Any, ...]) -> StoredEvent:
        seq, eid, type_name, schema, occurred, recorded, agent, source, payload, origin = row
        try:
            event = decode(str(type_name), int(schema), str(payload))
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"{self.path}: event seq {seq} ({type_name}) does not decode: {exc}") from exc
        return StoredEvent(int(seq), str(eid), event, str(occurred), str(recorded), str(agent),
                           str(source), str(origin))
