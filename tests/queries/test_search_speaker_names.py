"""A question that names a person ranks that person's turns first: the two sides of a Claude.ai
conversation call each other by name, and a name learned from a newer export names the turns an
older export brought."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tapestryd.config import Settings
from tapestryd.operations.runtime import Runtime
from tapestryd.queries.reader import Reader
from tapestryd.queries.rerank import KEYWORD_RANKER
from tapestryd.queries.search import SearchFilters, search
from tapestryd.sources.ingest import ingest_paths

NOW = datetime(2026, 5, 10, 12, 0, tzinfo=timezone.utc)
TURNS = [("n1", "human", "How was your week? I spent mine fixing the bike."),
         ("n2", "assistant", "Busy! I finally adopted a grey cat from the shelter on Rua Nova."),
         ("n3", "human", "Thanks, Nadia! My sister adopted a cat last year too."),
         ("n4", "assistant", "Ha, they are everywhere, Tomas!")]


def _export(path: Path, turns: list[tuple[str, str, str]]) -> Path:
    """A Claude.ai ``conversations.json`` (the export's documented shape) holding ``turns``, a minute apart."""
    messages = [{"uuid": key, "text": text, "content": [{"type": "text", "text": text}], "sender": sender,
                 "created_at": f"2026-05-03T10:0{i}:00.000000Z", "attachments": [], "files": []}
                for i, (key, sender, text) in enumerate(turns)]
    conversation = {"uuid": "week", "name": "Weekly catch-up", "created_at": "2026-05-03T10:00:00.000000Z",
                    "updated_at": messages[-1]["created_at"], "account": {"uuid": "acc-1"}, "chat_messages": messages}
    path.write_text(json.dumps([conversation]))
    return path


def _ingest(settings: Settings, path: Path) -> None:
    with Runtime.open(settings) as runtime:
        ingest_paths(runtime.store, [path], settings=settings)
        runtime.projector.catch_up()


def _first(settings: Settings, query: str, **ranker: Any) -> str:
    with Reader.open(settings) as reader:
        hits = search(reader, query, SearchFilters(), now=NOW, ranker=replace(KEYWORD_RANKER, **ranker))["hits"]
    return str(hits[0]["message_uuid"])


def test_a_question_naming_someone_finds_their_turn_first(settings: Settings, tmp_path: Path) -> None:
    """Nadia adopted the cat (n2); Tomas's turn holds her name and the words (n3) but is his."""
    _ingest(settings, _export(tmp_path / "conversations.json", TURNS))
    assert _first(settings, "When did Nadia adopt a cat?") == "n2"
    assert _first(settings, "When did Nadia adopt a cat?", speaker=0.0) == "n3"  # the step is what moves it


def test_a_name_heard_in_a_newer_export_names_the_turns_of_an_older_one(settings: Settings, tmp_path: Path) -> None:
    """The first export names no one; the newer one adds the turns where they call each other by name."""
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    _ingest(settings, _export(tmp_path / "old" / "conversations.json", TURNS[:2]))
    _ingest(settings, _export(tmp_path / "new" / "conversations.json", TURNS))
    assert _first(settings, "When did Nadia adopt a cat?") == "n2"
