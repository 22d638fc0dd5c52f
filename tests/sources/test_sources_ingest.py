"""The ingest pipeline: idempotent receipts, newer exports, ZIPs and bombs, bad input, rebuild, CLI."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from sources_helpers import CHATGPT, CLAUDE_AI, FIXTURES, SESSION, ingest, rows

from tapestryd.config import Settings
from tapestryd.errors import ArchiveError, ParseError
from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections
from tapestryd.sources.ingest import ingest_file, ingest_paths
from tapestryd.sources.parsers.archives import Archive


def test_receipt_has_the_documented_shape(store: EventStore, settings: Settings) -> None:
    """Exactly the keys the CLI renderer and the daemon read."""
    receipt = ingest(store, settings, CHATGPT)
    assert set(receipt) == {"files", "totals", "failed"}
    assert set(receipt["files"][0]) == {"path", "sha256", "parser", "agent", "conversations", "messages",
                                        "skipped", "errors"}
    assert set(receipt["totals"]) == {"files", "conversations_new", "conversations_known", "messages_new",
                                      "messages_known", "skipped", "errors"}
    entry = receipt["files"][0]
    assert (entry["parser"], entry["agent"], entry["conversations"]) == ("chatgpt", "chatgpt",
                                                                          {"new": 2, "updated": 0, "known": 0})


def test_receipt_events_make_a_reimport_add_nothing(store: EventStore, settings: Settings) -> None:
    """ImportReceived/ImportFinished ids come from the sha256: an identical file adds zero events."""
    ingest(store, settings, CHATGPT, CLAUDE_AI, SESSION)
    types = [e.type for e in store.read()]
    assert types.count("ImportReceived") == types.count("ImportFinished") == 3
    finished = [e.event for e in store.read(types=["ImportFinished"])]
    assert finished[0].counts["messages_new"] == 6 and finished[0].path == str(CHATGPT)
    before = store.count()
    assert ingest(store, settings, CHATGPT, CLAUDE_AI, SESSION)["totals"]["messages_known"] == 16
    assert store.count() == before


def test_agent_label_comes_from_the_option_or_the_parser(store: EventStore, settings: Settings) -> None:
    """--agent wins; otherwise the configured agent of the detected parser (claude → claude-ai)."""
    assert ingest(store, settings, CLAUDE_AI)["files"][0]["agent"] == "claude-ai"
    assert ingest(store, settings, SESSION, agent="work-laptop")["files"][0]["agent"] == "work-laptop"


def test_newer_export_adds_only_what_is_new(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """A superset export: the grown conversation is updated, the new one new, the rest known."""
    ingest(store, settings, CHATGPT)
    export = json.loads(CHATGPT.read_bytes())
    rope = export[0]["mapping"]
    rope["n6"]["children"] = ["n7"]
    rope["n7"] = {"id": "n7", "parent": "n6", "children": [], "message": {
        "id": "n7", "author": {"role": "user"}, "create_time": 1767226000.0,
        "content": {"content_type": "text", "parts": ["And for a four-strand braid?"]}, "recipient": "all"}}
    export[0]["current_node"] = "n7"
    export.append({**export[1], "id": "c-new", "conversation_id": "c-new", "title": "New one"})
    newer = tmp_path / "conversations.json"
    newer.write_text(json.dumps(export))
    before = store.count()
    entry = ingest(store, settings, newer)["files"][0]
    assert entry["conversations"] == {"new": 1, "updated": 1, "known": 1}
    assert entry["messages"] == {"new": 3, "known": 6}
    assert store.count() - before == 3 + 1 + 2  # messages, the new title, the two receipt events


def test_session_that_grew_adds_only_new_lines(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """A Claude Code session imported again after new lines were appended."""
    session = tmp_path / SESSION.name
    lines = SESSION.read_bytes().splitlines(keepends=True)
    session.write_bytes(b"".join(lines[:8]))
    assert ingest(store, settings, session)["files"][0]["messages"] == {"new": 3, "known": 0}
    session.write_bytes(b"".join(lines))
    assert ingest(store, settings, session)["files"][0]["messages"] == {"new": 3, "known": 3}


def make_zip(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_zip_export_is_read_in_place(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """Members stream from the ZIP; side files and images are passed over; nothing is extracted."""
    drop = tmp_path / "drop"
    drop.mkdir()
    archive = make_zip(drop / "export.zip", {
        "conversations.json": CLAUDE_AI.read_bytes(),
        "users.json": (FIXTURES / "claude-ai" / "users.json").read_bytes(),
        "../../escape/chatgpt.json": CHATGPT.read_bytes(),
        "images/photo.png": b"\x89PNG\r\n\x1a\n" + bytes(200),
    })
    receipt = ingest(store, settings, archive)
    paths = [f["path"] for f in receipt["files"]]
    assert paths == [f"{archive}!/conversations.json", f"{archive}!/../../escape/chatgpt.json"]
    assert receipt["totals"]["messages_new"] == 4 + 6
    assert receipt["totals"]["skipped"]["export-metadata"] == 1 and receipt["totals"]["skipped"]["not-an-export"] == 1
    assert [p.name for p in drop.rglob("*")] == ["export.zip"]
    assert not (tmp_path / "escape").exists() and not (drop.parent.parent / "escape").exists()


def test_ingest_file_merges_a_zip_into_one_receipt(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """The inbox's entry point: one receipt named after the ZIP."""
    archive = make_zip(tmp_path / "export.zip", {"a.json": CHATGPT.read_bytes(), "b.json": CLAUDE_AI.read_bytes()})
    receipt = ingest_file(store, archive, settings=settings)
    assert receipt.path == str(archive) and receipt.parser == "chatgpt,claude"
    assert receipt.messages == {"new": 10, "known": 0} and len(receipt.sha256) == 64
    assert receipt.to_dict()["failed"] is False


def test_zip_bomb_is_refused(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """A member claiming an absurd compression ratio refuses the archive, naming it."""
    bomb = make_zip(tmp_path / "bomb.zip", {"conversations.json": bytes(8 * 1024 * 1024)}, zipfile.ZIP_BZIP2)
    receipt = ingest(store, settings, bomb)
    assert receipt["failed"] and store.count() == 0
    error = receipt["files"][0]["errors"][0]
    assert error.startswith(f"{bomb}: refused") and "compression ratio" in error


def test_archive_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    """Declared sizes over 2 GiB are refused before anything is read."""
    archive = make_zip(tmp_path / "big.zip", {"conversations.json": CHATGPT.read_bytes()})
    data = bytearray(archive.read_bytes())
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, 3 * 1024**3)
    archive.write_bytes(bytes(data))
    with pytest.raises(ArchiveError, match="over the limit"):
        Archive(archive)
    with pytest.raises(ArchiveError, match="not a readable ZIP"):
        Archive(CHATGPT)


def test_bad_inputs_are_reported_and_stored_data_is_untouched(store: EventStore, settings: Settings,
                                                             tmp_path: Path) -> None:
    """Empty, unknown, truncated and non-UTF-8 files: errors with locations; earlier imports intact."""
    ingest(store, settings, SESSION)
    before = [(e.seq, e.event_id) for e in store.read()]
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    notes = tmp_path / "notes.txt"
    notes.write_text("Remember to buy rope.\n")
    garbled = tmp_path / "garbled.jsonl"
    line = (b'{"type":"user","sessionId":"g","uuid":"1","timestamp":"2026-01-01T00:00:00Z",'
            b'"message":{"content":"\xe9t\xe9"}}\n')
    garbled.write_bytes(line)
    receipt = ingest(store, settings, empty, notes, garbled)
    errors = [f["errors"][0] for f in receipt["files"]]
    assert errors[0] == f"{empty}: empty file: nothing to import"
    assert errors[1].startswith(f"{notes}: not a Claude Code session, ChatGPT export or Claude.ai export")
    column = line.index(b"\xe9") + 1
    assert errors[2] == f"{garbled}:line 1: bytes that are not UTF-8 at column {column}"
    assert receipt["failed"] and receipt["totals"]["errors"] == 3
    assert [(e.seq, e.event_id) for e in store.read()][: len(before)] == before


def test_failed_only_when_nothing_imports(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """A bad file next to a good one is an error line, not a failed ingest."""
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    receipt = ingest(store, settings, empty, CHATGPT)
    assert not receipt["failed"] and receipt["totals"]["errors"] == 1
    assert ingest(store, settings, CHATGPT)["failed"] is False


def test_forced_parser_and_unknown_parser(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    """--parser reads a file detection cannot place; an unknown parser name is refused up front."""
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"timestamp":"2026-01-01T00:00:00Z","type":"user","uuid":"o","message":{"content":"hi"}}\n')
    assert ingest(store, settings, odd)["failed"]
    assert ingest(store, settings, odd, parser="claude-code")["files"][0]["messages"]["new"] == 1
    with pytest.raises(ParseError, match="unknown parser 'mistral'"):
        ingest_paths(store, [odd], settings=settings, parser="mistral")


def test_progress_reports_bytes_read(store: EventStore, settings: Settings) -> None:
    """progress(done, total, name) climbs to the total size of every file."""
    calls: list[tuple[int, int, str]] = []
    ingest_paths(store, [CHATGPT, SESSION], settings=settings, progress=lambda *a: calls.append(a))
    total = CHATGPT.stat().st_size + SESSION.stat().st_size
    assert calls[-1] == (total, total, str(SESSION))
    assert [c[0] for c in calls] == sorted(c[0] for c in calls) and calls[0][2] == str(CHATGPT)


def test_lone_surrogates_are_stored_as_replacement_characters(store: EventStore, settings: Settings,
                                                              tmp_path: Path) -> None:
    """A \\ud800 escape (half an emoji) cannot be UTF-8: it is stored as U+FFFD, not a crash."""
    session = tmp_path / "s.jsonl"
    session.write_text('{"type":"user","sessionId":"s","uuid":"1","timestamp":"2026-01-01T00:00:00Z",'
                       '"message":{"content":"half \\ud83d emoji"}}\n')
    assert ingest(store, settings, session)["files"][0]["messages"]["new"] == 1
    assert [e.event.text for e in store.read(types=["MessageRecorded"])] == ["half \ufffd emoji"]


def dump(conn: Any) -> dict[str, list[tuple[Any, ...]]]:
    return {
        "conversations": rows(conn, "SELECT * FROM conversations ORDER BY key"),
        "messages": rows(conn, "SELECT * FROM messages ORDER BY id"),
        "fts": rows(conn, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'the' ORDER BY rowid"),
    }


def test_rebuild_equals_incremental(corpus: Path, store: EventStore, settings: Settings, projector: Projector) -> None:
    """Import file by file with catch-ups in between; a replay from scratch gives identical tables."""
    for path in [SESSION, CHATGPT, CLAUDE_AI, *sorted(corpus.rglob("*.json*"))]:
        ingest(store, settings, path)
        projector.catch_up(batch=7)
    incremental = dump(projector.conn)
    projector.close()
    db = paths_for(settings).projections_db
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    fresh = Projector(store, db, default_projections(settings.timezone, settings.first_day_of_week))
    fresh.catch_up()
    assert dump(fresh.conn) == incremental and len(incremental["messages"]) == 16 + 148
    fresh.close()


def ctl(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "tapestryd.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def test_tapestryctl_ingest_prints_a_receipt(home: Path, tmp_path: Path) -> None:
    """End to end in a real process: a text receipt, then all known, then a failed import exits 1."""
    first = ctl(home, "ingest", str(FIXTURES))
    assert first.returncode == 0, first.stderr
    assert "[chatgpt → chatgpt]" in first.stdout and "messages:      6 new, 0 already known" in first.stdout
    assert "total: 16 new messages, 0 already known, 0 errors in 3 files" in first.stdout
    again = ctl(home, "ingest", str(FIXTURES))
    assert "total: 0 new messages, 16 already known, 0 errors in 3 files" in again.stdout
    as_json = json.loads(ctl(home, "ingest", str(SESSION), "-f", "json").stdout)
    assert as_json["totals"]["messages_known"] == 6 and as_json["failed"] is False
    empty = tmp_path / "empty.json"
    empty.write_bytes(b"")
    failed = ctl(home, "ingest", str(empty))
    assert failed.returncode == 1 and "error: " in failed.stdout and "Traceback" not in failed.stderr
    assert json.loads(ctl(home, "stats", "-f", "json").stdout)["messages"] == 16
