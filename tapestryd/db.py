"""SQLite connections, transactions and named migrations.

Every database is one SQLite file in WAL mode. The event log uses ``synchronous=FULL``
(it is the only thing that must survive); projections use ``NORMAL`` (they can be rebuilt
from the log). Schema changes are named migration functions applied once, in order, and
recorded in a ``migrations`` table (the habit of simonw/llm's ``migrations.py``).

sqlite3 errors are translated to :class:`~tapestryd.errors.StoreError` at this boundary.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

from tapestryd.errors import DiskFullError, StoreError
from tapestryd.filemodes import private_file

__all__ = ["Migration", "connect", "in_chunks", "migrate", "transaction", "translate_errors"]

Migration = Callable[[sqlite3.Connection], None]

PROJECTION_CACHE_KIB = 64 * 1024
"""Page cache of a writable projections connection, KiB (SQLite's default is 2,000): a catch-up
batch's dirty pages then stay in memory until its commit instead of spilling to the WAL mid-way.
Pages are allocated as used, so a small database never holds that much."""


T = TypeVar("T")


def in_chunks(values: Sequence[T], size: int = 500) -> Iterator[tuple[Sequence[T], str]]:
    """``(chunk, "?,?,…")`` for each run of at most ``size`` of ``values``, in order: the chunk and
    the placeholders of its ``IN (…)`` list, so a long list stays under SQLite's limit on host
    parameters (999 before SQLite 3.32)."""
    for start in range(0, len(values), size):
        chunk = values[start:start + size]
        yield chunk, ",".join("?" * len(chunk))


def connect(path: Path, *, readonly: bool = False, durable: bool = True) -> sqlite3.Connection:
    """Open ``path`` in WAL mode (autocommit; use :func:`transaction` to group writes).

    ``readonly`` opens with ``mode=ro`` and never creates the file; a file it creates is
    mode 0600 whatever the umask. ``durable`` selects
    ``synchronous=FULL`` (else NORMAL, with a page cache of :data:`PROJECTION_CACHE_KIB`).
    Raises StoreError when the file cannot be opened.
    """
    try:
        conn = _open(path, readonly)
        conn.execute("PRAGMA busy_timeout = 10000")
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            if not durable:
                conn.execute(f"PRAGMA cache_size = -{PROJECTION_CACHE_KIB}")
        conn.execute("PRAGMA foreign_keys = ON")
        return conn
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"{path}: cannot open database: {exc}") from exc


def _open(path: Path, readonly: bool) -> sqlite3.Connection:
    if readonly:
        if not path.exists():
            raise sqlite3.OperationalError("no such file")
        return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None,
                               check_same_thread=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        private_file(path)  # SQLite would create it (and its -wal/-shm) with the umask's mode
    return sqlite3.connect(path, isolation_level=None, check_same_thread=False)


@contextmanager
def transaction(conn: sqlite3.Connection, *, immediate: bool = True) -> Iterator[sqlite3.Connection]:
    """Run the block in one transaction: commit on success, roll back on any exception.

    ``immediate`` takes the write lock at the start (``BEGIN IMMEDIATE``), so two writers
    never deadlock half-way. sqlite3 errors leave as StoreError.
    """
    with translate_errors(conn):
        conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    with translate_errors(conn):
        conn.execute("COMMIT")


@contextmanager
def translate_errors(conn: sqlite3.Connection | None = None) -> Iterator[None]:
    """Turn sqlite3 errors raised in the block into StoreError with a readable cause
    (DiskFullError, naming the database, when its file system is full)."""
    try:
        yield
    except sqlite3.Error as exc:
        name = _db_name(conn)
        if getattr(exc, "sqlite_errorcode", 0) & 0xFF == _SQLITE_FULL:
            raise DiskFullError(f"{name}: {_describe(exc)}", name) from exc
        raise StoreError(f"{name}: {_describe(exc)}") from exc


_SQLITE_FULL = 13  # https://sqlite.org/rescode.html#full (extended codes keep it in the low byte)


def _db_name(conn: sqlite3.Connection | None) -> str:
    if conn is None:
        return "database"
    try:
        row = conn.execute("PRAGMA database_list").fetchone()
        return str(row[2]) if row and row[2] else "database"
    except sqlite3.Error:
        return "database"


def _describe(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "full" in text:
        return f"disk full ({text})"
    if "readonly" in text or "read-only" in text:
        return f"read-only ({text})"
    return text


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> list[str]:
    """Apply each migration not yet recorded, in order, each in its own transaction.

    Returns the names applied now. A migration's name is its function's ``__name__``.
    """
    with translate_errors(conn):
        conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    applied = []
    for migration in migrations:
        if migration.__name__ in done:
            continue
        with transaction(conn):
            migration(conn)
            conn.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (migration.__name__,))
        applied.append(migration.__name__)
    return applied
