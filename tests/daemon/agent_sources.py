"""Writers of growing Codex CLI rollouts, Gemini CLI chats and OpenCode databases for the daemon tests."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from daemon_helpers import write_config

OPENCODE_SCHEMA = """
CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT NOT NULL, title TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
"""


def configure(home: Path, *, sweep: float = 1) -> tuple[Path, Path, Path]:
    """A test home watching Codex and Gemini roots and an OpenCode database in it: ``(codex, gemini, db)``."""
    codex, gemini, db = home / "codex-sessions", home / "gemini-tmp", home / "opencode" / "opencode.db"
    for folder in (codex, gemini / "a1b2" / "chats", db.parent):
        folder.mkdir(parents=True)
    write_config(home, roots=[], sweep=sweep,
                 extra=f'codex_roots = ["{codex}"]\ngemini_roots = ["{gemini}"]\nopencode_dbs = ["{db}"]\n')
    return codex, gemini, db


def codex_meta(session: str) -> bytes:
    """The first line of a rollout."""
    return _line("2026-03-04T10:00:00.000Z", "session_meta", {"id": session, "cwd": "/home/me/proj"})


def codex_message(text: str, *, role: str = "user", minute: int = 0) -> bytes:
    """A response_item message line."""
    block = "input_text" if role == "user" else "output_text"
    return _line(f"2026-03-04T10:{minute % 60:02d}:00.000Z", "response_item",
                 {"type": "message", "role": role, "content": [{"type": block, "text": text}]})


def gemini_header(session: str) -> bytes:
    """The header line of a Gemini CLI chat."""
    return json.dumps({"sessionId": session, "projectHash": "a1b2", "startTime": "2026-03-04T10:00:00.000Z"}).encode() \
        + b"\n"


def gemini_record(rid: str, text: str, *, kind: str = "user") -> bytes:
    """A message record line."""
    return json.dumps({"id": rid, "timestamp": "2026-03-04T10:00:05.000Z", "type": kind, "content": text}).encode() \
        + b"\n"


def opencode_db(db: Path) -> None:
    """An empty OpenCode database with one session, in WAL mode as OpenCode keeps it."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(OPENCODE_SCHEMA)
        conn.execute("INSERT INTO session VALUES ('ses_1', NULL, '/home/me/proj', 'Live', 1772618400000,"
                     " 1772618400000)")
    conn.close()


def opencode_message(conn: sqlite3.Connection, n: int, text: str) -> None:
    """Insert user message ``n`` with one text part (times grow with ``n``)."""
    at = 1772618400000 + n * 1000
    conn.execute("INSERT INTO message VALUES (?, 'ses_1', ?, ?, ?)",
                 (f"msg_{n:06d}", at, at, json.dumps({"role": "user", "time": {"created": at}})))
    conn.execute("INSERT INTO part VALUES (?, ?, 'ses_1', ?, ?, ?)",
                 (f"prt_{n:06d}", f"msg_{n:06d}", at, at, json.dumps({"type": "text", "text": text})))
    conn.commit()


def _line(ts: str, kind: str, payload: dict[str, object]) -> bytes:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}).encode() + b"\n"
