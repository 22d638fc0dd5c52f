"""A small source is read from disk once and parsed from memory; a large one is read again: same events."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sources_helpers import CHATGPT, CLAUDE_AI, FIXTURES, ingest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.sources import ingest as ingest_module


def _events(store: EventStore) -> list[tuple[str, str]]:
    return [(e.event_id, e.type) for e in store.read(after=0)]


@pytest.mark.parametrize("keep", [0, 8 << 20])
def test_kept_and_reread_sources_record_the_same_events(settings: Settings, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, keep: int) -> None:
    """Whatever KEEP_BYTES allows, a folder of exports and sessions gives the same receipt and events."""
    folder = tmp_path / "in"
    shutil.copytree(FIXTURES / "claude-code", folder / "claude-code")
    shutil.copy(CHATGPT, folder / "chatgpt.json")
    shutil.copy(CLAUDE_AI, folder / "claude-ai.json")
    baseline = EventStore(tmp_path / "baseline.db")
    expected = ingest(baseline, settings, folder)
    monkeypatch.setattr(ingest_module, "KEEP_BYTES", keep)
    store = EventStore(tmp_path / "events.db")
    receipt = ingest(store, settings, folder)
    assert receipt["totals"] == expected["totals"] and receipt["totals"]["messages_new"] > 0
    assert [(f["path"], f["sha256"]) for f in receipt["files"]] == [(f["path"], f["sha256"]) for f in expected["files"]]
    assert _events(store) == _events(baseline)
