"""Helpers and fixture paths shared by the importer tests (imported by name; tests/sources is on sys.path)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.sources.ingest import ingest_paths

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sources"
SESSION = FIXTURES / "claude-code" / "0a1b2c3d-0000-4000-8000-000000000001.jsonl"
SESSION_ID = "0a1b2c3d-0000-4000-8000-000000000001"
CHATGPT = FIXTURES / "chatgpt" / "conversations.json"
CLAUDE_AI = FIXTURES / "claude-ai" / "conversations.json"


def ingest(store: EventStore, settings: Settings, *paths: Path, **options: Any) -> dict[str, Any]:
    """Run the real ingest pipeline and return the receipt as a dict."""
    return ingest_paths(store, list(paths), settings=settings, **options).to_dict()


def rows(conn: sqlite3.Connection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """All rows of a query."""
    return conn.execute(sql, params).fetchall()
