"""Importing an unchanged file again is answered from its receipt (file sha256), without parsing it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from sources_helpers import CHATGPT, ingest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.sources import ingest as ingest_module


def refuse_parsing(name: str) -> Any:
    raise AssertionError(f"the {name} parser ran on a file whose receipt is in the log")


def test_an_unchanged_file_is_answered_from_its_receipt(tmp_path: Path, store: EventStore, settings: Settings,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Everything is known, nothing is appended, no parser runs; a copy elsewhere names its own path."""
    first = ingest(store, settings, CHATGPT)["files"][0]
    count = store.count()
    monkeypatch.setattr(ingest_module, "get_parser", refuse_parsing)
    copy = tmp_path / "elsewhere" / "conversations.json"
    copy.parent.mkdir()
    shutil.copy(CHATGPT, copy)
    again = ingest(store, settings, copy)["files"][0]
    assert store.count() == count
    assert again["messages"] == {"new": 0, "known": first["messages"]["new"]}
    assert again["conversations"]["known"] == sum(first["conversations"].values())
    assert (again["path"], again["parser"], again["skipped"]) == (str(copy), "chatgpt", first["skipped"])


def test_a_receipt_keeps_its_errors_and_a_changed_file_is_parsed(tmp_path: Path, store: EventStore,
                                                                 settings: Settings,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The errors of the first import are reported again at the new path; one changed byte means a new read."""
    path = tmp_path / "projects" / "p" / "s.jsonl"
    path.parent.mkdir(parents=True)
    good = {"type": "user", "sessionId": "s", "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"content": "hello"}}
    path.write_text(json.dumps(good) + "\n{broken\n")
    first = ingest(store, settings, path)
    moved = tmp_path / "projects" / "q" / "s.jsonl"
    moved.parent.mkdir()
    shutil.copy(path, moved)
    real = ingest_module.get_parser
    monkeypatch.setattr(ingest_module, "get_parser", refuse_parsing)
    again = ingest(store, settings, moved)
    assert again["files"][0]["errors"] == [e.replace(str(path), str(moved)) for e in first["files"][0]["errors"]]
    assert again["totals"]["errors"] == 1 and not again["failed"]
    monkeypatch.setattr(ingest_module, "get_parser", real)
    moved.write_text(json.dumps(good) + "\n")
    assert ingest(store, settings, moved)["totals"]["errors"] == 0
