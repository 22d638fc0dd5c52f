"""SQL built from the event log's models (:mod:`tapestryd.events.models`): the DDL of the named
migrations and the SQLAlchemy Core statements of the append path.

On PostgreSQL (or on SQLite through an engine) these statements run through SQLAlchemy. The
SQLite store does not: SQLAlchemy's execution layer (a dict of parameters per row, result
processing) would cost more than the insert itself on a path that appends tens of thousands
of events a second, and importing SQLAlchemy and SQLModel costs about 0.6 CPU-s a process
(measured: 5 to 11 % of a 100 MB ChatGPT import). So the statements are compiled for SQLite
here, written into :mod:`tapestryd.events.sqlite_schema` (``python -m
tapestryd.events.statements``), and run by ``sqlite3`` as that text; a test compiles them
again and compares.
"""

from __future__ import annotations

import re
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.schema import CreateColumn, CreateIndex, CreateTable
from sqlalchemy.sql.dml import Insert

from tapestryd.events.models import EVENTS, SOURCE_OFFSETS, SYNC_CHECKPOINTS

__all__ = ["GENERATED", "add_column", "create_table", "insert_events", "render_sqlite_schema", "save_checkpoint",
           "save_offset", "write_sqlite_schema"]

_SQLITE = sqlite.dialect()


def create_table(table: sa.Table, dialect: Dialect = _SQLITE) -> list[str]:
    """``CREATE TABLE`` of one model's table and ``CREATE INDEX`` of each of its indexes, for ``dialect``."""
    statements = [str(CreateTable(table).compile(dialect=dialect)).strip()]
    statements += [str(CreateIndex(index).compile(dialect=dialect)) for index in sorted(table.indexes,
                                                                                        key=lambda i: str(i.name))]
    return statements


def add_column(table: sa.Table, name: str, dialect: Dialect = _SQLITE) -> str:
    """``ALTER TABLE … ADD COLUMN`` of the model's column ``name`` (type, default, NOT NULL as the model says)."""
    spec = CreateColumn(table.c[name]).compile(dialect=dialect)
    return f"ALTER TABLE {table.name} ADD COLUMN {spec}"


def _insert(dialect_name: str, table: sa.Table) -> sqlite.Insert | postgresql.Insert:
    """The dialect's INSERT construct (both offer ``ON CONFLICT``); ValueError for another dialect."""
    if dialect_name == "sqlite":
        return sqlite.insert(table)
    if dialect_name == "postgresql":
        return postgresql.insert(table)
    raise ValueError(f"the event log runs on sqlite or postgresql, not {dialect_name}")


def insert_events(dialect_name: str) -> Insert:
    """INSERT of events that does nothing for an ``event_id`` already stored (the log's idempotency)."""
    return _insert(dialect_name, EVENTS).on_conflict_do_nothing(index_elements=[EVENTS.c.event_id])


def save_offset(dialect_name: str) -> Insert:
    """INSERT of a source offset that replaces the stored one of the same path."""
    stmt = _insert(dialect_name, SOURCE_OFFSETS)
    return stmt.on_conflict_do_update(index_elements=[SOURCE_OFFSETS.c.path], set_={
        name: stmt.excluded[name] for name in ("offset", "inode", "size", "updated_at")})


def save_checkpoint(dialect_name: str) -> Insert:
    """INSERT of a checkpoint that replaces the stored position (and time) of the same name."""
    stmt = _insert(dialect_name, SYNC_CHECKPOINTS)
    return stmt.on_conflict_do_update(index_elements=[SYNC_CHECKPOINTS.c.name], set_={
        "position": stmt.excluded.position, "updated_at": stmt.excluded.updated_at})


GENERATED = Path(__file__).with_name("sqlite_schema.py")
"""The SQLite SQL of the models, written by :func:`write_sqlite_schema` (``python -m tapestryd.events.statements``)."""


def _positional(stmt: Insert, columns: tuple[str, ...]) -> str:
    """``stmt`` compiled for SQLite with its parameters in ``columns`` order (RuntimeError if SQLAlchemy
    orders them otherwise: the store's row tuples would land in the wrong columns)."""
    compiled = stmt.compile(dialect=_SQLITE, column_keys=list(columns))
    if tuple(compiled.positiontup or ()) != columns:
        raise RuntimeError(f"compiled parameters {compiled.positiontup} are not in the order {columns}")
    return str(compiled)


def render_sqlite_schema() -> str:
    """The text of :data:`GENERATED`: each table's DDL, the ``origin`` column's, the append path's statements
    (``?`` parameters in the orders their names state) and the column names reads select."""
    event_columns = tuple(column.name for column in EVENTS.columns)
    constants = {
        "CREATE_EVENTS": tuple(create_table(EVENTS)),
        "CREATE_SOURCE_OFFSETS": tuple(create_table(SOURCE_OFFSETS)),
        "CREATE_SYNC_CHECKPOINTS": tuple(create_table(SYNC_CHECKPOINTS)),
        "ADD_EVENTS_ORIGIN": add_column(EVENTS, "origin"),
        "EVENT_COLUMNS": event_columns,
        "INSERT_EVENT": _positional(insert_events("sqlite"), event_columns[1:]),
        "SAVE_OFFSET": _positional(save_offset("sqlite"), ("path", "offset", "inode", "size", "updated_at")),
        "SAVE_CHECKPOINT": _positional(save_checkpoint("sqlite"), ("name", "position", "updated_at")),
    }
    lines = [f'"""{_HEADER}"""', ""]
    for name, value in constants.items():
        if isinstance(value, str):
            lines.append(f"{name}: str = {_literal(value, 4)}")
        else:
            lines.append(f"{name}: tuple[str, ...] = (")
            lines.extend(f"    {_literal(item, 8)}," for item in value)
            lines.append(")")
    return "\n".join(lines) + "\n"


def _literal(sql: str, indent: int) -> str:
    """``sql`` (SQLAlchemy's line breaks, with the spaces around them, made one space) as a Python literal,
    split into adjacent literals of at most about 90 characters inside parentheses when longer."""
    words, chunks = re.sub(r"\s*\n\s*", " ", sql).split(" "), [""]
    for word in words:
        if chunks[-1] and len(chunks[-1]) + len(word) > 90:
            chunks.append("")
        chunks[-1] += word + " "
    chunks[-1] = chunks[-1][:-1]
    if len(chunks) == 1:
        return repr(chunks[0])
    pad = " " * indent
    return "(\n" + "\n".join(f"{pad}{chunk!r}" for chunk in chunks) + "\n" + " " * (indent - 4) + ")"


_HEADER = """The event log's SQL for SQLite, generated from its models by tapestryd/events/statements.py:
do not edit; after changing tapestryd/events/models.py run ``python -m tapestryd.events.statements``
(tests/events/test_log_schema.py fails until this file matches the models).

``INSERT_EVENT`` takes ``EVENT_COLUMNS[1:]`` in order (``seq`` is SQLite's); ``SAVE_OFFSET`` takes path,
offset, inode, size, updated_at; ``SAVE_CHECKPOINT`` name, position, updated_at.
"""


def write_sqlite_schema() -> Path:
    """Write :data:`GENERATED` from the models; returns its path."""
    GENERATED.write_text(render_sqlite_schema(), encoding="utf-8")
    return GENERATED


if __name__ == "__main__":
    print(write_sqlite_schema())
