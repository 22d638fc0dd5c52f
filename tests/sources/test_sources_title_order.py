"""Importing an older export after a newer one keeps the newer title (the tester's v2, v1, v2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest
from sources_helpers import ingest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections


def _claude_ai(path: Path, title: str, updated: str) -> Path:
    message = {"uuid": "m1", "text": "hello", "content": [{"type": "text", "text": "hello"}], "sender": "human",
               "created_at": "2025-03-01T09:00:00Z"}
    path.write_text(json.dumps([{"uuid": "c1", "name": title, "created_at": "2025-03-01T09:00:00Z",
                                 "updated_at": updated, "chat_messages": [message]}]))
    return path


def _chatgpt(path: Path, title: str, updated: str) -> Path:
    epoch = {"2025-03-01": 1740819600.0, "2025-03-05": 1741197600.0}[updated[:10]]
    node = {"id": "n1", "parent": None, "children": [], "message": {
        "id": "n1", "author": {"role": "user"}, "create_time": 1740819600.0,
        "content": {"content_type": "text", "parts": ["hello"]}}}
    path.write_text(json.dumps([{"id": "c1", "title": title, "create_time": 1740819600.0, "update_time": epoch,
                                 "current_node": "n1", "mapping": {"n1": node}}]))
    return path


@pytest.mark.parametrize("write", [_claude_ai, _chatgpt], ids=["claude-ai", "chatgpt"])
def test_the_newest_exports_title_wins_whatever_the_order(store: EventStore, settings: Settings, tmp_path: Path,
                                                          write: Callable[[Path, str, str], Path]) -> None:
    old = write(tmp_path / "v1.json", "Old title", "2025-03-01T10:00:00Z")
    new = write(tmp_path / "v2.json", "New title", "2025-03-05T18:00:00Z")
    projector = Projector(store, paths_for(settings).projections_db, default_projections("UTC", 0))
    try:
        for export in (new, old, new):
            ingest(store, settings, export)
            projector.catch_up()
            assert [t for (t,) in projector.conn.execute("SELECT title FROM conversations")] == ["New title"]
    finally:
        projector.close()
