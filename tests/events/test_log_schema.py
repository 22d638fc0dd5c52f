"""The event log's schema is defined once, by the SQLModel models: every events.db, new or migrated, has it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from test_event_origin import message, old_log

from tapestryd.events import EventStore
from tapestryd.events.models import EVENTS, LOG_METADATA
from tapestryd.events import sqlite_schema as sql
from tapestryd.events.statements import GENERATED, render_sqlite_schema

TABLES = ("events", "source_offsets", "sync_checkpoints")


def shape(path: Path) -> dict[str, object]:
    """Each log table's columns (name, type, NOT NULL, default, primary key) and indexes (columns, unique,
    how made), as SQLite reports them."""
    conn = sqlite3.connect(path)
    try:
        found: dict[str, object] = {}
        for table in TABLES:
            columns = [tuple(row[1:]) for row in conn.execute(f"PRAGMA table_info({table})")]
            # A rowid alias (INTEGER PRIMARY KEY) is never NULL, whatever NOT NULL says.
            columns = [(n, t, 0 if pk and t == "INTEGER" else nn, d, pk) for n, t, nn, d, pk in columns]
            indexes = sorted((tuple(r[0] for r in conn.execute(f"PRAGMA index_info({row[1]})")), row[2], row[3])
                             for row in conn.execute(f"PRAGMA index_list({table})"))
            found[table] = (columns, indexes)
        found["autoincrement"] = conn.execute("SELECT sql LIKE '%AUTOINCREMENT%' FROM sqlite_master "
                                              "WHERE name = 'events'").fetchone()[0]
        return found
    finally:
        conn.close()


def model_shape(tmp_path: Path) -> dict[str, object]:
    """The shape of a database SQLAlchemy creates from the models alone (``LOG_METADATA.create_all``)."""
    path = tmp_path / "from-models.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    LOG_METADATA.create_all(engine)
    engine.dispose()
    return shape(path)


def test_a_new_log_has_the_models_schema(tmp_path: Path) -> None:
    """The migrations of a new events.db create exactly the models' tables, columns and indexes."""
    EventStore(tmp_path / "events.db", machine="laptop").close()
    assert shape(tmp_path / "events.db") == model_shape(tmp_path)


def test_an_old_log_migrated_has_the_models_schema(tmp_path: Path) -> None:
    """A log written before origins and checkpoints, once migrated, has the same schema as a new one."""
    old_log(tmp_path / "events.db", 2)
    with EventStore(tmp_path / "events.db", machine="desk") as store:
        store.append([message(1)], checkpoints={"hub:pull": 1})
    assert shape(tmp_path / "events.db") == model_shape(tmp_path)


def test_the_generated_sqlite_schema_matches_the_models() -> None:
    """tapestryd/events/sqlite_schema.py is what the models compile to (else: python -m tapestryd.events.statements)."""
    assert GENERATED.read_text(encoding="utf-8") == render_sqlite_schema()


def test_appends_write_the_columns_in_the_order_the_store_builds_rows() -> None:
    """The store's row tuples and its reads follow this column order, origin last (an older log gains it last)."""
    assert [column.name for column in EVENTS.columns] == list(sql.EVENT_COLUMNS) == [
        "seq", "event_id", "type", "schema", "occurred_at", "recorded_at", "agent", "source", "payload", "origin"]
    assert sql.INSERT_EVENT.startswith(f"INSERT INTO events ({', '.join(sql.EVENT_COLUMNS[1:])}) VALUES (?")


def test_creating_and_appending_to_a_log_never_imports_sqlalchemy(tmp_path: Path) -> None:
    """The store runs the compiled SQL, so neither a new log nor an append pays for importing SQLAlchemy."""
    code = ("import sys; from pathlib import Path; from test_event_origin import message;"
            "from tapestryd.events import EventStore;"
            f"store = EventStore(Path({str(tmp_path / 'events.db')!r}), machine='m');"
            "store.append([message(1)], checkpoints={'hub:pull': 1}); store.close();"
            "print(sorted(m for m in sys.modules if m.startswith(('sqlalchemy', 'sqlmodel', 'pydantic'))))")
    here = Path(__file__).parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(here.parents[1]), str(here)])})
    assert out.stdout.strip() == "[]" and (tmp_path / "events.db").exists()
