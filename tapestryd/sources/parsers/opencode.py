"""OpenCode's database: ``~/.local/share/opencode/opencode.db`` (SQLite, read only).

Tables as written by OpenCode (``session.sql.ts``): ``session(id, parent_id, directory,
title, time_created, time_updated, ...)``, ``message(id, session_id, time_created,
time_updated, data)`` and ``part(id, message_id, session_id, time_created, time_updated,
data)``; ``data`` is JSON, times are epoch milliseconds. Columns an older database lacks
(``time_updated``, ``parent_id``, ``directory``; ``created_at`` for ``time_created``) are
read as their nearest kin or as null, so the whole database is read each time instead. A message's ``data`` holds its
``role`` (``user`` / ``assistant``), ``time.created`` / ``time.completed``, ``modelID``;
a part's ``data`` has a ``type``: ``text`` (with ``text``; ``synthetic`` ones are
injected by OpenCode, not said), ``reasoning``, ``tool``, ``file``, ``step-start``...

What becomes what: a message with text parts → one :class:`MessageRecorded` (key the
message id, text its non-synthetic text parts in part-id order, other part types counted
in ``skipped``), conversation ``opencode:<session id>``, ``meta.cwd`` its session's
directory, marked ``sidechain`` when its session has a parent (a subagent's); a session's
title → :class:`ConversationTitled`.
Parts are rewritten as a reply streams, so every event carries ``meta.replaces`` (the
last version wins) and its id hashes the message id and text (an unchanged message read
again adds nothing). An assistant message not yet completed (no ``time.completed``, no
``error``) waits (Skip ``in-progress``).

:func:`read_changes` reads what changed at or after a position (a ``time_updated`` in
ms) and the position to resume from, for the poller; :class:`OpenCodeParser` reads a
whole database for ``tapestryctl ingest``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, IO, Iterator

from tapestryd.events.types import ConversationTitled, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip

__all__ = ["SQLITE_MAGIC", "Changes", "OpenCodeParser", "open_readonly", "read_changes"]

SQLITE_MAGIC = b"SQLite format 3\x00"
_TABLES = {"session", "message", "part"}


@dataclass
class Changes:
    """What :func:`read_changes` found: the items in message order and the position to resume from (ms)."""

    items: list[Item] = field(default_factory=list)
    position: int = 0


class OpenCodeParser:
    """Reads a whole OpenCode database (``--parser opencode``)."""

    name = "opencode"

    def sniff(self, head: bytes) -> bool:
        """Whether ``head`` starts a SQLite database (the tables are checked when it is read)."""
        return head.startswith(SQLITE_MAGIC)

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Every item of the database behind ``stream`` (a file on disk, or a copy of a ZIP member)."""
        name = getattr(stream, "name", None)
        if isinstance(name, str) and os.path.isfile(name):
            yield from _parse_path(name, origin)
            return
        with tempfile.TemporaryDirectory(prefix="tapestry-opencode-") as folder:
            copy = os.path.join(folder, "opencode.db")
            with open(copy, "wb") as out:
                shutil.copyfileobj(stream, out)
            yield from _parse_path(copy, origin)


def _parse_path(path: str, origin: Origin) -> Iterator[Item]:
    try:
        with closing(open_readonly(path)) as conn:
            changes = read_changes(conn, origin, 0)
    except sqlite3.Error as exc:
        yield Problem(origin.path, f"cannot read the OpenCode database: {exc}")
        return
    yield from changes.items


def open_readonly(path: str) -> sqlite3.Connection:
    """A read-only connection to the database at ``path`` (raises sqlite3.Error when it cannot be opened)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    conn.execute("PRAGMA query_only = ON")
    return conn


def read_changes(conn: sqlite3.Connection, origin: Origin, since: int) -> Changes:
    """Items of the sessions and messages changed at or after ``since`` (ms) and the next position.

    The position is the newest ``time_updated`` read, held back to the oldest message
    still in progress, so that message is read again once it completes. A database
    without the ``session``, ``message`` and ``part`` tables gives one Problem.
    """
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not _TABLES <= tables:
        return Changes([Problem(origin.path, "not an OpenCode database (no session, message and part tables)")],
                       since)
    changes = Changes(position=since)
    sessions = _sessions(conn, since, origin, changes)
    held: list[int] = []
    created, updated = _column(conn, "message", "time_created", "created_at"), _time_updated(conn, "message")
    for row in conn.execute(
            f"SELECT id, session_id, {created}, {updated}, data FROM message WHERE {updated} >= ?"
            f" OR id IN (SELECT message_id FROM part WHERE {_time_updated(conn, 'part')} >= ?)"
            f" ORDER BY session_id, {created}, id", (since, since)):
        _message(conn, row, sessions, origin, changes, held)
    if held:
        changes.position = min(held)
    return changes


def _sessions(conn: sqlite3.Connection, since: int, origin: Origin, changes: Changes) -> dict[str, tuple[bool, str]]:
    """Every session's subagent flag (it has a parent) and directory; titles of the sessions changed since ``since``."""
    subagent: dict[str, tuple[bool, str]] = {}
    columns = ", ".join(_column(conn, "session", name) for name in ("parent_id", "directory", "title"))
    for sid, parent, directory, title, updated in conn.execute(
            f"SELECT id, {columns}, {_time_updated(conn, 'session')} FROM session"):
        subagent[sid] = (bool(parent), directory if isinstance(directory, str) else "")
        if updated is not None and updated >= since and isinstance(title, str) and title.strip():
            ts = _instant(updated)
            changes.items.append(NewEvent(event_id("opencode", sid, "title", title.strip()),
                                          ConversationTitled(f"opencode:{sid}", title.strip(), format_utc(ts)),
                                          ts, origin.agent, f"{origin.path}#session {sid}"))
            changes.position = max(changes.position, int(updated))
    return subagent


def _message(conn: sqlite3.Connection, row: tuple[Any, ...], sessions: dict[str, tuple[bool, str]], origin: Origin,
             changes: Changes, held: list[int]) -> None:
    mid, sid, created, updated, raw = row
    where = f"{origin.path}#message {mid}"
    changes.position = max(changes.position, int(updated or 0))
    data = _json(raw)
    if not isinstance(data, dict) or data.get("role") not in ("user", "assistant"):
        changes.items.append(Problem(where, "message data has no role user or assistant"))
        return
    times: dict[str, Any] = data["time"] if isinstance(data.get("time"), dict) else {}
    if data["role"] == "assistant" and not times.get("completed") and not data.get("error"):
        held.append(int(updated or 0))
        changes.items.append(Skip("in-progress", where))
        return
    text, kinds, newest = _parts(conn, mid)
    changes.position = max(changes.position, newest)
    if not text.strip():
        changes.items.extend(Skip(kind, where) for kind in kinds or {"empty": 1})
        return
    ts = _instant(times.get("created") if isinstance(times.get("created"), (int, float)) else created)
    subagent, directory = sessions.get(sid, (False, ""))
    meta: dict[str, Any] = {"replaces": True}
    if directory:
        meta["cwd"] = directory
    if subagent:
        meta["sidechain"] = True
    model = data["modelID"] if isinstance(data.get("modelID"), str) else ""
    msg = MessageRecorded(conversation=f"opencode:{sid}", message=mid, role=data["role"], text=text,
                          timestamp=format_utc(ts), model=model, session=sid, skipped=kinds, meta=meta)
    changes.items.append(NewEvent(event_id("opencode", mid, text), msg, ts, origin.agent, where))


def _parts(conn: sqlite3.Connection, mid: str) -> tuple[str, dict[str, int], int]:
    """The message's visible text, its skipped part kinds and the newest part's ``time_updated``."""
    texts: list[str] = []
    kinds: dict[str, int] = {}
    newest = 0
    for updated, raw in conn.execute(f"SELECT {_time_updated(conn, 'part')}, data FROM part WHERE message_id = ?"
                                     " ORDER BY id", (mid,)):
        newest = max(newest, int(updated or 0))
        part = _json(raw)
        part = part if isinstance(part, dict) else {}
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str) and not part.get("synthetic") \
                and not part.get("ignored"):
            texts.append(part["text"])
        else:
            name = "synthetic" if kind == "text" else kind if isinstance(kind, str) else "unknown"
            kinds[name] = kinds.get(name, 0) + 1
    return "\n\n".join(t for t in texts if t), kinds, newest


def _column(conn: sqlite3.Connection, table: str, *names: str) -> str:
    """The first of ``names`` that ``table`` has (a fixed name, safe in SQL), else ``NULL``."""
    have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    return next((name for name in names if name in have), "NULL")


def _time_updated(conn: sqlite3.Connection, table: str) -> str:
    """``table``'s change time column, else its creation time, else 0 (every row counts as changed)."""
    column = _column(conn, table, "time_updated", "updated_at", "time_created", "created_at")
    return "0" if column == "NULL" else column


def _json(raw: Any) -> Any:
    try:
        return json.loads(raw) if isinstance(raw, (str, bytes)) else None
    except ValueError:
        return None


def _instant(ms: Any) -> datetime:
    """Epoch milliseconds as an aware UTC datetime (0 for a missing value)."""
    return datetime.fromtimestamp((ms or 0) / 1000, timezone.utc)
