"""An inbox file whose import meets a defect is filed under failed/ with the reason, never retried for good."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.sources import inbox


def test_a_crashing_import_files_the_export_as_failed(store: EventStore, settings: Settings, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    drop = tmp_path / "inbox"
    drop.mkdir()
    export = drop / "export.json"
    export.write_text("[]")

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise OverflowError("date value out of range")

    monkeypatch.setattr(inbox, "ingest_file", crash)
    outcome = inbox.import_inbox_file(store, export, settings=settings)
    assert not outcome.ok and not export.exists()
    error = (drop / "failed" / "export.json.error.txt").read_text()
    assert "internal error while importing: OverflowError: date value out of range" in error
