"""The event log's schema, defined once: SQLModel models of ``events``, ``source_offsets`` and
``sync_checkpoints`` (SQLAlchemy tables underneath, in a metadata of their own).

The same models run on SQLite (``events.db``, the embedded default) and on PostgreSQL:
``LOG_METADATA.create_all(engine)`` creates them on either, and
:mod:`tapestryd.events.statements` compiles their DDL and the append path's statements for
the store's plain ``sqlite3`` connection. Integers that may grow past 2**31 (seq, offsets,
positions) are BIGINT on PostgreSQL and SQLite's 64-bit INTEGER; times are fixed-width ISO
UTC text (``format_utc``), so text order is time order on both.

Importing this module imports SQLModel (about half a CPU-second): the store imports it only
when it migrates or appends, so read-only answers never pay for it.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import registry
from sqlmodel import Field, SQLModel

__all__ = ["EVENTS", "EventRow", "LOG_METADATA", "LogModel", "SOURCE_OFFSETS", "SYNC_CHECKPOINTS", "SourceOffsetRow",
           "SyncCheckpointRow"]

_INT64 = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
"""BIGINT on PostgreSQL; INTEGER on SQLite (64-bit there, and what makes ``seq`` the rowid)."""


class LogModel(SQLModel, registry=registry()):
    """Base of the event log's tables (their own metadata, apart from any other models')."""


class EventRow(LogModel, table=True):
    """One event: the envelope in columns, the payload as JSON text.

    ``seq`` is handed out by the database, strictly increasing and never reused
    (``AUTOINCREMENT`` on SQLite, a BIGSERIAL on PostgreSQL); ``event_id`` is unique (the
    idempotency key); ``schema`` is the payload's schema version (the attribute is
    ``schema_version``: pydantic's models own the name ``schema``).
    """

    __tablename__ = "events"
    __table_args__ = (sa.Index("events_type_seq", "type", "seq"), {"sqlite_autoincrement": True})

    # nullable=True renders SQLite's ``seq INTEGER PRIMARY KEY AUTOINCREMENT`` as the log always
    # had it (a rowid is never NULL; a PostgreSQL primary key is NOT NULL whatever it says).
    seq: int | None = Field(default=None, sa_column=sa.Column(_INT64, primary_key=True, autoincrement=True,
                                                              nullable=True))
    event_id: str = Field(sa_column=sa.Column(sa.Text, nullable=False, unique=True))
    type: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    schema_version: int = Field(sa_column=sa.Column("schema", sa.Integer, nullable=False))
    occurred_at: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    recorded_at: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    agent: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    source: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    payload: str = Field(sa_column=sa.Column(sa.Text, nullable=False))
    # Last, with a default: the ``_add_origin`` migration adds it to an older log with ALTER TABLE.
    origin: str = Field(sa_column=sa.Column(sa.Text, nullable=False, server_default=""))


class SourceOffsetRow(LogModel, table=True):
    """How far a source file has been read: byte ``offset`` into the file at ``inode``/``size``."""

    __tablename__ = "source_offsets"

    path: str = Field(sa_column=sa.Column(sa.Text, primary_key=True, nullable=True))  # as SQLite's log had it
    offset: int = Field(sa_column=sa.Column(_INT64, nullable=False))
    inode: int = Field(sa_column=sa.Column(_INT64, nullable=False))
    size: int = Field(sa_column=sa.Column(_INT64, nullable=False))
    updated_at: str = Field(sa_column=sa.Column(sa.Text, nullable=False))


class SyncCheckpointRow(LogModel, table=True):
    """A named position (how far sync pushed or pulled), saved with the events it accounts for."""

    __tablename__ = "sync_checkpoints"

    name: str = Field(sa_column=sa.Column(sa.Text, primary_key=True, nullable=True))
    position: int = Field(sa_column=sa.Column(_INT64, nullable=False))
    updated_at: str = Field(sa_column=sa.Column(sa.Text, nullable=False))


LOG_METADATA = LogModel.metadata
# the models' Table objects from their metadata, typed (SQLModel does not declare __table__)
EVENTS = LOG_METADATA.tables["events"]
SOURCE_OFFSETS = LOG_METADATA.tables["source_offsets"]
SYNC_CHECKPOINTS = LOG_METADATA.tables["sync_checkpoints"]
