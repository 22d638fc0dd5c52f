"""The PostgreSQL hub: its schema (SQLModel models) and the statements sync runs on it.

Tables (their own SQLModel registry, so they never mix with the local log's models):

* ``hub_events``: one row per event any machine pushed. ``hub_seq`` (bigserial) orders
  them for pulling; ``event_id`` is unique (a second push of it is a no-op); ``origin``,
  ``type``, ``schema`` and ``occurred_at`` are the envelope in clear; ``key_id``, ``nonce``
  and ``ciphertext`` hold agent, source and payload sealed (:mod:`tapestryd.sync.crypto`).
* ``hub_machines``: per machine, the seq of its own log up to which it pushed
  (``pushed_seq``), committed in the same transaction as the rows it pushed.
* ``hub_forgotten``: a tombstone per event whose payload a machine compacted away
  (``forget`` then ``compact``); ``forgotten_seq`` orders them for pulling, and the event's
  row in ``hub_events`` holds the sealed tombstone instead of what was forgotten.
* ``hub_meta``: the schema version (a hub made by a newer version is refused), the hub's
  random identity (a machine moved to another hub starts its pull checkpoints over) and the
  id of the key its events are sealed with (a machine holding another key is refused).

Every push takes a transaction-level advisory lock first, so ``hub_seq`` values are
committed in the order they were handed out: a puller that has seen seq N has seen every
committed row below N, and never skips a row committed late.

Connections time out (connect 10 s, statement 30 s, TCP unacknowledged 30 s): a hub that is
down, slow or unreachable costs a sync round at most that long and raises SyncError.
"""

from __future__ import annotations

import secrets
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

from tapestryd.errors import SyncError

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection, Engine

__all__ = ["HUB_SCHEMA", "Hub", "HubEvent", "HubForgotten", "HubMachine", "HubMeta", "HubRow", "Timeouts"]

HUB_SCHEMA = 1
_LOCK_KEY = 0x7461_7065_7374_7279 & 0x7FFF_FFFF_FFFF_FFFF  # "tapestry": the hub's one advisory lock


class HubModel(SQLModel, registry=registry()):
    """Base of the hub's tables (a metadata of their own)."""


class HubEvent(HubModel, table=True):
    """One pushed event: envelope in clear, the rest sealed."""

    __tablename__ = "hub_events"

    hub_seq: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, primary_key=True,
                                                                  autoincrement=True))
    event_id: str = Field(sa_column=sa.Column(sa.Text, nullable=False, unique=True))
    origin: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    type: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    schema_version: int = Field(sa_column=sa.Column("schema", sa.Integer, nullable=False))
    occurred_at: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    key_id: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    nonce: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False))
    ciphertext: bytes = Field(sa_column=sa.Column(sa.LargeBinary, nullable=False))
    pushed_at: datetime | None = Field(default=None, sa_column=sa.Column(
        sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()))


class HubMachine(HubModel, table=True):
    """A machine's push checkpoint: the seq of its own log up to which its events are on the hub."""

    __tablename__ = "hub_machines"

    machine: str = Field(sa_column=sa.Column(sa.Text, primary_key=True))
    pushed_seq: int = Field(sa_column=sa.Column(sa.BigInteger, nullable=False))
    updated_at: datetime | None = Field(default=None, sa_column=sa.Column(
        sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()))


class HubForgotten(HubModel, table=True):
    """A tombstone: the event whose payload was compacted away, in the order they arrived."""

    __tablename__ = "hub_forgotten"

    forgotten_seq: int | None = Field(default=None, sa_column=sa.Column(sa.BigInteger, primary_key=True,
                                                                        autoincrement=True))
    event_id: str = Field(sa_column=sa.Column(sa.Text, nullable=False, unique=True))
    machine: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    at: datetime | None = Field(default=None, sa_column=sa.Column(
        sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()))


class HubMeta(HubModel, table=True):
    """Facts about the hub itself (``schema``: its schema version)."""

    __tablename__ = "hub_meta"

    name: str = Field(sa_column=sa.Column(sa.Text, primary_key=True))
    value: str = Field(sa_column=sa.Column(sa.Text, nullable=False))


_TABLES = HubModel.metadata.tables  # the models' Table objects, typed (SQLModel does not declare __table__)
_EVENTS = _TABLES["hub_events"]
_MACHINES = _TABLES["hub_machines"]
_FORGOTTEN = _TABLES["hub_forgotten"]
_META = _TABLES["hub_meta"]
_ROW_COLUMNS = (_EVENTS.c.hub_seq, _EVENTS.c.event_id, _EVENTS.c.origin, _EVENTS.c.type, _EVENTS.c.schema,
                _EVENTS.c.occurred_at, _EVENTS.c.key_id, _EVENTS.c.nonce, _EVENTS.c.ciphertext)


_COPIED = ("event_id", "origin", "type", "schema", "occurred_at", "key_id", "nonce", "ciphertext")
_STAGE_DDL = sa.text("CREATE TEMPORARY TABLE IF NOT EXISTS hub_stage (ord integer, event_id text, origin text,"
                     " type text, schema integer, occurred_at text, key_id text, nonce bytea, ciphertext bytea)"
                     " ON COMMIT DELETE ROWS")


@dataclass(frozen=True)
class HubRow:
    """One row of ``hub_events`` as pulled (``seq`` is ``hub_seq``, or ``forgotten_seq`` for a tombstone)."""

    seq: int
    event_id: str
    origin: str
    type: str
    schema: int
    occurred_at: str
    key_id: str
    nonce: bytes
    ciphertext: bytes


@dataclass(frozen=True)
class Timeouts:
    """Seconds a hub may take: to connect, to answer one statement, to acknowledge sent data."""

    connect: float = 10.0
    statement: float = 30.0
    network: float = 30.0


def _engine(url: str, timeouts: Timeouts) -> Engine:
    """An engine on psycopg 3 with the timeouts set; raises SyncError for a URL that is not PostgreSQL's."""
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError as exc:
        raise SyncError(f"[sync] url is not a database URL: {exc}") from exc
    if parsed.get_backend_name() != "postgresql":
        raise SyncError(f"[sync] url must be a postgresql:// URL, not {parsed.drivername}://")
    args: dict[str, Any] = {
        "connect_timeout": max(1, int(timeouts.connect)),
        "options": f"-c statement_timeout={int(timeouts.statement * 1000)} -c lock_timeout="
                   f"{int(timeouts.statement * 1000)} -c idle_in_transaction_session_timeout=60000",
        "keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
        "tcp_user_timeout": int(timeouts.network * 1000),
        "application_name": "tapestryd-sync",
    }
    return sa.create_engine(parsed.set(drivername="postgresql+psycopg"), connect_args=args, pool_pre_ping=True,
                            pool_size=2, max_overflow=0)


class Hub:
    """A connection pool to one hub; every method raises SyncError when the hub fails or is unreachable."""

    def __init__(self, url: str, *, timeouts: Timeouts | None = None) -> None:
        self.engine = _engine(url, timeouts or Timeouts())
        self.where = self.engine.url.render_as_string(hide_password=True)
        self._ready = False
        self.identity = 0
        self.key_id: str | None = None

    def close(self) -> None:
        """Close the pool's connections."""
        self.engine.dispose()

    def __enter__(self) -> Hub:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _begin(self, *, locked: bool = False) -> Iterator[Connection]:
        """A transaction on the hub (with the hub's advisory lock when ``locked``); errors become SyncError."""
        try:
            with self.engine.begin() as conn:
                if locked:
                    conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_LOCK_KEY)))
                yield conn
        except sa.exc.DBAPIError as exc:
            raise SyncError(f"hub {self.where}: {_reason(exc)}") from exc

    def ensure_schema(self) -> None:
        """Create the hub's tables if missing; raises SyncError for a hub of a newer schema."""
        if self._ready:
            return
        with self._begin(locked=True) as conn:
            HubModel.metadata.create_all(conn, checkfirst=True)
            for name, value in (("schema", str(HUB_SCHEMA)), ("id", str(secrets.randbits(62) + 1))):
                conn.execute(pg.insert(_META).values(name=name, value=value)
                             .on_conflict_do_nothing(index_elements=["name"]))
            meta: dict[str, str] = {str(k): str(v) for k, v in conn.execute(sa.select(_META.c.name, _META.c.value))}
        found = int(meta["schema"])
        self.identity = int(meta["id"])
        self.key_id = meta.get("key_id")
        if found > HUB_SCHEMA:
            raise SyncError(f"hub {self.where} has schema {found}, newer than this version's {HUB_SCHEMA}:"
                            " upgrade tapestryd on this machine")
        self._ready = True

    def claim_key(self, key_id: str) -> None:
        """Check that the hub's events are sealed with key ``key_id`` (the first machine to ask sets it).

        Raises SyncError naming both key ids when the hub was set up with another key.
        """
        self.ensure_schema()
        if self.key_id is None:
            with self._begin(locked=True) as conn:
                conn.execute(pg.insert(_META).values(name="key_id", value=key_id)
                             .on_conflict_do_nothing(index_elements=["name"]))
                self.key_id = conn.execute(sa.select(_META.c.value).where(_META.c.name == "key_id")).scalar_one()
        if self.key_id != key_id:
            raise SyncError(f"hub {self.where} holds events sealed with key {self.key_id}, and this machine's key is"
                            f" {key_id}: run `tapestryctl sync init --key <passphrase>` with the passphrase"
                            " `sync init` showed on the first machine")

    def pushed(self, machine: str) -> int:
        """The seq up to which ``machine`` pushed its own events (0 when it never pushed)."""
        self.ensure_schema()
        with self._begin() as conn:
            found = conn.execute(sa.select(_MACHINES.c.pushed_seq).where(_MACHINES.c.machine == machine)).scalar()
        return int(found or 0)

    def push(self, machine: str, rows: Sequence[dict[str, Any]], pushed_seq: int) -> int:
        """Insert ``rows`` (``hub_events`` columns) unless their event_id is there, and set the
        machine's checkpoint to ``pushed_seq``, in one transaction. Returns how many rows were new."""
        self.ensure_schema()
        with self._begin(locked=True) as conn:
            new = self._copy_in(conn, rows) if rows else 0
            stmt = pg.insert(_MACHINES).values(machine=machine, pushed_seq=pushed_seq)
            conn.execute(stmt.on_conflict_do_update(index_elements=["machine"], set_={
                "pushed_seq": stmt.excluded.pushed_seq, "updated_at": sa.func.now()}))
        return new

    @staticmethod
    def _copy_in(conn: Connection, rows: Sequence[dict[str, Any]]) -> int:
        """COPY ``rows`` into a session-temporary table, then insert those the hub lacks in their order.

        COPY is several times faster than a multi-row INSERT here (psycopg parses no statement
        per row); ``INSERT ... SELECT ... ON CONFLICT DO NOTHING`` keeps the idempotence.
        """
        conn.execute(_STAGE_DDL)
        raw = conn.connection.driver_connection
        assert raw is not None
        with raw.cursor() as cursor:
            with cursor.copy(f"COPY hub_stage (ord, {', '.join(_COPIED)}) FROM STDIN") as copy:
                for n, row in enumerate(rows):
                    copy.write_row((n, *(row[c] for c in _COPIED)))
        staged = sa.table("hub_stage", sa.column("ord"), *(sa.column(c) for c in _COPIED))
        inserted = conn.execute(pg.insert(_EVENTS).from_select(
            list(_COPIED), sa.select(*(staged.c[c] for c in _COPIED)).order_by(staged.c.ord))
            .on_conflict_do_nothing(index_elements=["event_id"]).returning(_EVENTS.c.hub_seq))
        return len(inserted.fetchall())

    def rows_after(self, seq: int, limit: int, *, skip_origin: str | None = None) -> tuple[int, list[HubRow]]:
        """The hub's head (highest ``hub_seq``) and up to ``limit`` rows with ``seq < hub_seq <= head``, in
        hub_seq order, leaving out those of origin ``skip_origin``. Every row up to the head has
        committed (pushes commit in hub_seq order), so a puller may move its checkpoint to the head
        when fewer than ``limit`` rows came."""
        self.ensure_schema()
        with self._begin() as conn:
            head = int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(_EVENTS.c.hub_seq), 0))).scalar_one())
            query = sa.select(*_ROW_COLUMNS).where(_EVENTS.c.hub_seq > seq, _EVENTS.c.hub_seq <= head)
            if skip_origin is not None:
                query = query.where(_EVENTS.c.origin != skip_origin)
            found = conn.execute(query.order_by(_EVENTS.c.hub_seq).limit(limit)).all()
        return head, [HubRow(*row) for row in found]

    def head(self) -> int:
        """The highest ``hub_seq`` (0 for an empty hub)."""
        self.ensure_schema()
        with self._begin() as conn:
            return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(_EVENTS.c.hub_seq), 0))).scalar_one())

    def forget(self, machine: str, rows: Sequence[dict[str, Any]]) -> int:
        """Replace the sealed payload of each event in ``rows`` (``event_id``, ``key_id``, ``nonce``,
        ``ciphertext``) by its tombstone and record it in ``hub_forgotten``, once per event, in one
        transaction. An event the hub does not hold is skipped (its tombstone travels as the event).
        Returns how many tombstones were new."""
        self.ensure_schema()
        new = 0
        with self._begin(locked=True) as conn:
            for row in rows:
                inserted = conn.execute(
                    pg.insert(_FORGOTTEN).from_select(
                        ["event_id", "machine"],
                        sa.select(_EVENTS.c.event_id, sa.literal(machine)).where(_EVENTS.c.event_id == row["event_id"]))
                    .on_conflict_do_nothing(index_elements=["event_id"]).returning(_FORGOTTEN.c.forgotten_seq)).first()
                if inserted is None:
                    continue
                conn.execute(_EVENTS.update().where(_EVENTS.c.event_id == row["event_id"]).values(
                    key_id=row["key_id"], nonce=row["nonce"], ciphertext=row["ciphertext"]))
                new += 1
        return new

    def forgotten_after(self, seq: int, limit: int) -> list[HubRow]:
        """Up to ``limit`` tombstones with ``forgotten_seq > seq`` joined to their (rewritten) event rows."""
        self.ensure_schema()
        columns = (_FORGOTTEN.c.forgotten_seq, *_ROW_COLUMNS[1:])
        with self._begin() as conn:
            found = conn.execute(sa.select(*columns).select_from(
                _FORGOTTEN.join(_EVENTS, _EVENTS.c.event_id == _FORGOTTEN.c.event_id))
                .where(_FORGOTTEN.c.forgotten_seq > seq).order_by(_FORGOTTEN.c.forgotten_seq).limit(limit)).all()
        return [HubRow(*row) for row in found]

    def forgotten_head(self) -> int:
        """The highest ``forgotten_seq`` (0 when nothing was compacted)."""
        self.ensure_schema()
        with self._begin() as conn:
            return int(conn.execute(sa.select(sa.func.coalesce(sa.func.max(_FORGOTTEN.c.forgotten_seq), 0)))
                       .scalar_one())


def _reason(exc: sa.exc.DBAPIError) -> str:
    """The driver's first line of an error, without SQL or parameters."""
    text = str(exc.orig) if exc.orig is not None else str(exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc.orig).__name__
