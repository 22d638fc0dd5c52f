"""Fixture paths of the Codex CLI, Gemini CLI, OpenCode and Claude Code subagent tests, and readers of them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"
CODEX = AGENTS / "codex"
CODEX_PARENT = CODEX / "rollout-2026-03-02T09-00-00-11111111-2222-4333-8444-555555555555.jsonl"
CODEX_FORK = CODEX / "rollout-2026-03-03T14-00-00-99999999-8888-4777-8666-555555555555.jsonl"
GEMINI_JSONL = AGENTS / "gemini" / "session-2026-03-04T08-00-5e551000.jsonl"
GEMINI_JSON = AGENTS / "gemini" / "session-2025-11-20T19-00-0ld5e550.json"
OPENCODE_SQL = AGENTS / "opencode" / "opencode.sql"
SUBAGENT_PROJECT = AGENTS / "claude-subagents" / "-home-ada-kiln"


def records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def make_opencode_db(path: Path) -> Path:
    """An OpenCode database at ``path`` built from the fixture's SQL."""
    with sqlite3.connect(path) as conn:
        conn.executescript(OPENCODE_SQL.read_text())
    conn.close()
    return path


def messages(db: Path, agent: str) -> list[tuple[str, str, str, int]]:
    """``(conversation, role, text, sidechain)`` of one agent's messages in the projections, in id order."""
    with sqlite3.connect(db) as conn:
        found = conn.execute("SELECT conversation, role, text, sidechain FROM messages WHERE agent = ? ORDER BY id",
                             (agent,)).fetchall()
    conn.close()
    return found
