"""Backfills of an upgraded file: the messages projection's derived tables filled a chunk at a time.

A file made by an older version lacks some of the tables the messages projection derives
from its stored messages (speaker names, blocks, windows), or holds windows
made with another cut. Writing them for every message when the file is opened held the
daemon's socket closed for 16 s at 100k messages, 11 min at 1M. Instead
:meth:`~tapestryd.projections.messages.MessagesProjection.create` makes the empty tables and
:func:`plan` records what each part must still write; :func:`step` then writes one chunk of
:data:`CHUNK` messages of the first pending part in its caller's transaction (the daemon's
writer runs one step per task, so live capture interleaves), and search meanwhile ranks
with what is written so far.

Table it owns (in ``projections.db``, kept by
:class:`~tapestryd.projections.messages.MessagesProjection`):

* ``messages_backfill(part, after, done, total)``: one row per part still to write
  (:data:`PARTS`): the messages up to id ``after`` are written, ``done`` of about ``total``
  (the messages stored when it was planned, raised as it goes). Committed with each chunk,
  so a restart or a kill resumes after the last chunk committed; the row goes when the
  part reaches the last stored message.

Each part writes the messages of id ``(after, last]`` the way its flush writes new ones, and
skips or replaces what the flush wrote meanwhile, so the end is the index a rebuild gives:
speaker names are written again (idempotent), windows already indexed (a
new message's neighbours) are skipped, and blocks file no new message at a flush while
their part is pending (:func:`pending`): this walk files every message in id order, as a
replay does.

Not here: ``messages_unsplit`` (:mod:`tapestryd.projections.unsplit`) decides which messages a
search of unsplit text matches at all, not how they rank, so a file made before it still gets
it in one scan when it is opened (a Python ``isascii`` test per message).
"""

from __future__ import annotations

import sqlite3
from typing import Callable

__all__ = ["CHUNK", "PARTS", "clear", "create_table", "pending", "plan", "progress", "step"]

PARTS = ("speaker names", "blocks", "windows")
"""The parts, in the order they run; :func:`_writer` gives each one's ``fn(conn, after, last)``."""

CHUNK = 2000
"""Messages one :func:`step` writes: about 0.2 s of windows on one core, so a query or a tailed turn waits
on the writer at most that long."""

_SCHEMA = """CREATE TABLE IF NOT EXISTS messages_backfill (
    part TEXT PRIMARY KEY, after INTEGER NOT NULL, done INTEGER NOT NULL, total INTEGER NOT NULL)"""


def create_table(conn: sqlite3.Connection) -> None:
    """Create ``messages_backfill`` if missing."""
    conn.execute(_SCHEMA)


def plan(conn: sqlite3.Connection, part: str) -> None:
    """Record that ``part`` (a key of :data:`PARTS`) must write every stored message, from the first;
    nothing when no message is stored (a new file)."""
    total = int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    if total:
        conn.execute("INSERT OR REPLACE INTO messages_backfill (part, after, done, total) VALUES (?, 0, 0, ?)",
                     (part, total))


def clear(conn: sqlite3.Connection) -> None:
    """Forget every pending part (the messages are being deleted; a replay writes everything)."""
    conn.execute("DELETE FROM messages_backfill")


def pending(conn: sqlite3.Connection, part: str) -> bool:
    """Whether ``part`` has messages still to write."""
    return conn.execute("SELECT 1 FROM messages_backfill WHERE part = ?", (part,)).fetchone() is not None


def progress(conn: sqlite3.Connection) -> dict[str, tuple[int, int]]:
    """``{part: (messages written, of about how many)}`` of the pending parts, in :data:`PARTS` order; empty
    when none is pending or the file has no ``messages_backfill`` (a read-only connection to an older file)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages_backfill'"
                    ).fetchone() is None:
        return {}
    rows = {part: (int(done), int(total)) for part, done, total
            in conn.execute("SELECT part, done, total FROM messages_backfill")}
    return {part: rows[part] for part in PARTS if part in rows}


def unplanned(conn: sqlite3.Connection) -> bool:
    """Whether the file holds messages but no ``messages_backfill``: made by an older version and not opened
    by a writer of this one since, so its upgrade is not even planned (a read-only connection sees it so)."""
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                               " AND name IN ('messages', 'messages_backfill')")}
    return tables == {"messages"} and conn.execute("SELECT 1 FROM messages LIMIT 1").fetchone() is not None


def step(conn: sqlite3.Connection, limit: int | None = None) -> bool:
    """Write the next ``limit`` messages (default :data:`CHUNK`, read at each call) of the first pending part,
    in the caller's transaction; returns whether a part is still pending after it (False: the file is fully
    upgraded)."""
    rows = dict(conn.execute("SELECT part, after FROM messages_backfill"))
    part = next((p for p in PARTS if p in rows), None)
    if part is None:
        return False
    after = int(rows[part])
    ids = [int(i) for (i,) in conn.execute("SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?",
                                           (after, limit or CHUNK))]
    if not ids:
        conn.execute("DELETE FROM messages_backfill WHERE part = ?", (part,))
        return len(rows) > 1
    _writer(part)(conn, after, ids[-1])
    conn.execute("UPDATE messages_backfill SET after = ?, done = done + ?, total = max(total, done + ?)"
                 " WHERE part = ?", (ids[-1], len(ids), len(ids), part))
    return True


def _writer(part: str) -> Callable[[sqlite3.Connection, int, int], int]:
    """The function writing ``part``'s messages of id ``(after, last]``, its module imported now: status reads
    :func:`progress` on every read command without the daemon, which needs none of them (about 11 ms)."""
    from tapestryd.projections import blocks, speaker_names, windows

    return {"speaker names": speaker_names.backfill, "blocks": blocks.backfill, "windows": windows.backfill}[part]
