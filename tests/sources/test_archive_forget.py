"""Forget reaches the raw archive: a conversation's files go whole, --before/--match lines go, and stay out."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import pytest
from cli_runner import tapestryctl

from tapestryd.config import Settings
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.events.store import EventStore
from tapestryd.events.types import Forgotten, NewEvent
from tapestryd.paths import paths_for
from tapestryd.privacy import EXCLUSION_MARKERS, forgotten_id
from tapestryd.sources.archive import ArchiveHook, ArchiveStore, archive_for, follow_forgotten
from tapestryd.sources.screen import Screen
from tapestryd.sources.tailer import Tailer


def line(session: str, n: int, text: str, *, ts: str = "2026-03-04T10:00:00Z", tool: str = "") -> bytes:
    """A Claude Code record; ``tool`` adds a tool call whose input holds that text (not message text)."""
    content: list[dict[str, object]] = [{"type": "text", "text": text}]
    if tool:
        content.append({"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": tool}})
    record = {"type": "assistant", "uuid": f"{session}-{n}", "sessionId": session, "timestamp": ts,
              "message": {"role": "assistant", "content": content}}
    return json.dumps(record).encode() + b"\n"


@pytest.fixture
def tailer(runtime: Runtime, archive: ArchiveHook, settings: Settings) -> Tailer:
    return Tailer(runtime.store, agent="claude-code", screen=Screen(runtime.store, settings.privacy), archive=archive)


@pytest.fixture
def folder(home: Path) -> Path:
    path = home / "claude-projects" / "-home-me-proj"
    path.mkdir(parents=True)
    return path


def forget(rt: Runtime, **args: object) -> dict[str, object]:
    return run_json("forget", rt, args)


def kept(settings: Settings, path: Path) -> bytes | None:
    """The newest archived bytes of ``path`` (None when it has no version holding bytes)."""
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        versions = [f for f in db.versions(str(path)) if f.state in ("current", "replaced")]
        return b"".join(db.read(versions[-1].id)) if versions else None


def grow(tailer: Tailer, path: Path, *lines: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(b"".join(lines))
    tailer.tail(str(path))


def test_forgetting_a_conversation_drops_its_files_and_keeps_them_out(settings: Settings, runtime: Runtime,
                                                                      tailer: Tailer, folder: Path) -> None:
    """Its transcript (tool calls included) leaves the archive; later appends are not captured; others stay."""
    one, two = folder / "s1.jsonl", folder / "s2.jsonl"
    grow(tailer, one, line("s1", 1, "the lawyer called", tool="cat custody.txt"), line("s1", 2, "noted"))
    grow(tailer, two, line("s2", 1, "refactor the parser"))
    preview = forget(runtime, conversation="claude-code:s1", dry_run=True)
    assert preview["archive"] == {"events": 0, "dropped": 1, "rewritten": 0, "lines": 0}
    assert kept(settings, one) == one.read_bytes()
    result = forget(runtime, conversation="claude-code:s1")
    assert result["archive"] == {"events": 1, "dropped": 1, "rewritten": 0, "lines": 0}
    assert kept(settings, one) is None and kept(settings, two) == two.read_bytes()
    grow(tailer, one, line("s1", 3, "one more thing"))
    assert kept(settings, one) is None
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        assert [f.path for f in db.listing()] == [str(two)]


def test_forget_match_removes_matching_lines_even_in_tool_input_and_escapes(settings: Settings, runtime: Runtime,
                                                                            tailer: Tailer, folder: Path) -> None:
    """Whole records go (JSON escapes undone before matching); the rest stays byte for byte, and stays filtered."""
    path = folder / "s1.jsonl"
    keep = [line("s1", 1, "plain words"), line("s1", 3, "more plain words")]
    drop = [line("s1", 2, "ok", tool="grep -r Zürich-Account ."), line("s1", 4, "the zürich-account number")]
    assert b"\\u00fc" in drop[0]  # json.dumps escaped the u-umlaut: raw bytes alone would not match
    grow(tailer, path, keep[0], drop[0], keep[1], drop[1])
    result = forget(runtime, match="zürich-account")
    assert result["archive"]["rewritten"] == 1 and result["archive"]["lines"] == 2
    assert kept(settings, path) == keep[0] + keep[1]
    grow(tailer, path, line("s1", 5, "ZÜRICH-ACCOUNT again"), line("s1", 6, "fine"))
    assert kept(settings, path) == keep[0] + keep[1] + line("s1", 6, "fine")
    late = line("s1", 7, "and zürich-account once more")
    grow(tailer, path, late[:20])  # while a rule is in force, half a line waits to be judged whole
    assert kept(settings, path) == keep[0] + keep[1] + line("s1", 6, "fine")
    grow(tailer, path, late[20:])
    assert kept(settings, path) == keep[0] + keep[1] + line("s1", 6, "fine")
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        assert db.listing()[0].edited and db.listing()[0].consumed == path.stat().st_size


def test_forget_before_removes_older_lines_and_untimed_lines_follow_the_next(settings: Settings, runtime: Runtime,
                                                                           tailer: Tailer, folder: Path) -> None:
    """A line without a timestamp (a title) takes the time of the next line that has one."""
    path = folder / "s1.jsonl"
    title = b'{"type": "summary", "summary": "Old talk", "leafUuid": "x"}\n'
    old = line("s1", 1, "old words", ts="2025-01-05T10:00:00Z")
    new = [b'{"type": "summary", "summary": "New talk", "leafUuid": "y"}\n',
           line("s1", 2, "new words", ts="2025-03-05T10:00:00Z")]
    grow(tailer, path, title, old, *new)
    result = forget(runtime, before="2025-02-01")
    assert result["archive"]["lines"] == 2
    assert kept(settings, path) == b"".join(new)


def test_an_exclusion_marker_drops_the_session_from_the_archive(settings: Settings, tailer: Tailer,
                                                                folder: Path) -> None:
    """The screen's Forgotten event (marker arriving late) is followed at the end of the tail pass."""
    path = folder / "s1.jsonl"
    grow(tailer, path, line("s1", 1, "early words"))
    assert kept(settings, path) == path.read_bytes()
    grow(tailer, path, line("s1", 2, f"please {EXCLUSION_MARKERS[1]}"))
    assert kept(settings, path) is None


def test_each_forgotten_event_is_applied_once(settings: Settings, runtime: Runtime, tailer: Tailer,
                                              folder: Path) -> None:
    """The archive's checkpoint moves with each event; forgetting the same rule again is a no-op."""
    path = folder / "s1.jsonl"
    grow(tailer, path, line("s1", 1, "a lantern"), line("s1", 2, "a kettle"))
    assert forget(runtime, match="lantern")["archive"]["events"] == 1
    again = forget(runtime, match="lantern")
    assert again["already_forgotten"] and again["archive"] == {"events": 0, "dropped": 0, "rewritten": 0, "lines": 0}
    assert kept(settings, path) == line("s1", 2, "a kettle")


def test_the_forget_command_says_what_left_the_archive(settings: Settings, home: Path, folder: Path) -> None:
    """`tapestryctl forget --match` (no daemon: run here) reports the archive's share, first as a dry run."""
    path = folder / "s1.jsonl"
    path.write_bytes(line("s1", 1, "a heron") + line("s1", 2, "an egret"))
    with Runtime.open(settings) as rt:
        hook = archive_for(settings)
        Tailer(rt.store, agent="claude-code", archive=hook).tail(str(path))
        assert hook is not None
        hook.close()
    env = {**os.environ, "TAPESTRY_HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    dry = tapestryctl("forget", "--match", "heron", "--dry-run", env=env)
    assert "raw archive: would drop 0 file versions and remove 1 lines from 1" in dry.stdout, dry.stderr
    assert kept(settings, path) == path.read_bytes()
    done = tapestryctl("forget", "--match", "heron", env=env)
    assert done.returncode == 0, done.stderr
    assert "raw archive: 0 file versions dropped, 1 lines removed from 1" in done.stdout
    assert kept(settings, path) == line("s1", 2, "an egret")


def test_a_log_restored_from_a_backup_is_followed_again_from_the_start(settings: Settings, runtime: Runtime,
                                                                       tailer: Tailer, archive: ArchiveHook,
                                                                       folder: Path, tmp_path: Path) -> None:
    """After a restore the checkpoint's seq names another event: the archive re-reads every Forgotten
    event (re-applying one removes nothing more) instead of skipping the restored log's."""
    path = folder / "s1.jsonl"
    grow(tailer, path, line("s1", 1, "a lantern"), line("s1", 2, "a kettle"), line("s1", 3, "a heron"))
    forget(runtime, match="kettle")
    with EventStore(tmp_path / "restored.db") as restored:
        rule = Forgotten(match="(?i)lantern")
        restored.append([NewEvent(forgotten_id(match=rule.match), rule, datetime.now(timezone.utc), agent="",
                                  source="tapestryctl:forget")])
        done = follow_forgotten(archive.archive.store, restored)
    assert (done.events, done.lines) == (1, 1)
    assert kept(settings, path) == line("s1", 3, "a heron")
