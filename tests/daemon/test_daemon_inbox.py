"""The import inbox: drop files, find them imported and filed under processed/ or failed/."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from daemon_helpers import Daemon, wait_for

from tapestryd.config import load_settings
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.sources.inbox import SettleTracker
from tapestryd.sources.ingest import ingest_file


def corpus_files(corpus: Path) -> list[Path]:
    """Every export file of the shared corpus (not its notes)."""
    return sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))


def message_event_ids(events_db: Path) -> set[str]:
    """The ids of every MessageRecorded event in a log (read-only)."""
    conn = sqlite3.connect(f"file:{events_db}?mode=ro", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT event_id FROM events WHERE type = 'MessageRecorded'")}
    finally:
        conn.close()


def reference_ids(files: list[Path], home: Path) -> set[str]:
    """What importing ``files`` directly (no daemon) stores, in a scratch home."""
    home.mkdir()
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n')
    settings = load_settings(home)
    with Runtime.open(settings) as runtime:
        for path in files:
            ingest_file(runtime.store, path, settings=settings)
    return message_event_ids(paths_for(settings).events_db)


def test_every_corpus_file_dropped_in_the_inbox_is_imported_and_filed(daemon: Daemon, corpus: Path,
                                                                      tmp_path: Path) -> None:
    """The whole corpus (dropped before and after start) lands in processed/<today>/ and the log
    holds what a direct import holds; a broken file goes to failed/ beside its error file; a
    partial download is left alone."""
    files = corpus_files(corpus)
    inbox = paths_for(daemon.settings).inbox
    inbox.mkdir(parents=True)
    for path in files[::2]:  # half waits in the inbox before the daemon starts
        shutil.copy(path, inbox / path.name)
    daemon.start()
    for path in files[1::2]:
        shutil.copy(path, inbox / path.name)
    (inbox / "broken.json").write_text('{"mapping": {"a": ')
    (inbox / "export.zip.part").write_bytes(b"PK\x03\x04 still downloading")
    today = datetime.now(timezone.utc).date().isoformat()
    processed = inbox / "processed" / today
    wait_for(lambda: (inbox / "failed" / "broken.json.error.txt").exists()
             and processed.is_dir() and len(list(processed.iterdir())) == len(files))
    assert sorted(p.name for p in processed.iterdir()) == sorted(p.name for p in files)
    assert sorted(p.name for p in inbox.iterdir()) == ["export.zip.part", "failed", "processed"]
    error = (inbox / "failed" / "broken.json.error.txt").read_text()
    assert "broken.json" in error and "format" in error.lower()
    expected = reference_ids(files, tmp_path / "reference")
    assert message_event_ids(paths_for(daemon.settings).events_db) == expected
    wait_for(lambda: len(daemon.messages()) > 0)
    inbox_state = daemon.call("status")["daemon"]["inbox"]
    assert inbox_state["imported"] == len(files) and inbox_state["failed"] == 1


def test_dropping_the_same_export_twice_adds_nothing(daemon: Daemon, corpus: Path) -> None:
    """The second copy is filed beside the first (renamed) and the log does not grow."""
    export = corpus / "chatgpt" / "echomine-003_with_code.json"
    daemon.start()
    inbox = paths_for(daemon.settings).inbox
    shutil.copy(export, inbox / export.name)
    wait_for(lambda: daemon.call("status")["daemon"]["inbox"]["imported"] == 1)
    events = daemon.event_count("MessageRecorded") + daemon.event_count("ImportFinished")
    shutil.copy(export, inbox / export.name)
    wait_for(lambda: daemon.call("status")["daemon"]["inbox"]["imported"] == 2)
    assert daemon.event_count("MessageRecorded") + daemon.event_count("ImportFinished") == events
    filed = sorted(p.name for p in (inbox / "processed").rglob("*.json"))
    assert filed == ["echomine-003_with_code-2.json", "echomine-003_with_code.json"]


def test_a_file_is_complete_only_once_its_size_stops_changing() -> None:
    """The settle rule: handed out once unchanged for the settle time, and only once."""
    tracker = SettleTracker(settle=1.0)
    assert tracker.observe({"a": (10, 1)}, now=0.0) == []
    assert tracker.observe({"a": (20, 2)}, now=0.8) == []
    assert tracker.observe({"a": (20, 2)}, now=1.5) == []
    assert tracker.observe({"a": (20, 2)}, now=1.9) == ["a"]
    assert not tracker.waiting
    assert tracker.observe({}, now=3.0) == []


def test_a_folder_that_imports_with_a_bad_file_names_it_in_status(daemon: Daemon) -> None:
    """A dropped folder imports its good export; the garbage ZIP beside it is listed under status errors."""
    export = Path(__file__).resolve().parents[1] / "fixtures" / "sources" / "chatgpt" / "conversations.json"
    daemon.start()
    drop = paths_for(daemon.settings).inbox / "sub"
    drop.mkdir(parents=True)
    shutil.copy(export, drop / "x.json")
    (drop / "bad.zip").write_bytes(b"Salted__ not a zip at all")
    wait_for(lambda: daemon.call("status")["daemon"]["inbox"]["imported"] == 1)
    errors = [e["message"] for e in daemon.call("status")["daemon"]["errors"] if e["source"] == "inbox"]
    assert len(errors) == 1 and errors[0].startswith("sub: ") and "bad.zip: not a ZIP archive" in errors[0]
