"""A user's mistake is one line, not a traceback or an empty answer (bad search values, regular
expressions, an unwritable data dir); output never passes terminal controls through; a folder's
receipt names what it passed over; a same-second backup is the one kept (found by a new user)."""

from __future__ import annotations

import sqlite3
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from cli_runner import tapestryctl
from test_cli_core import seed

from tapestryd.operations.backup import list_backups, rotate

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"


def ctl(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run tapestryctl in this process (tests/cli_runner.py) against ``home``."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home), "TAPESTRY_FAST": "0"}
    return tapestryctl(*args, env=env)


def test_folder_receipt_names_the_files_it_passed_over(tmp_path: Path) -> None:
    voice = CORPUS / "claude-ai" / "echomine-voice_note.json"
    if not voice.is_file():
        pytest.skip(f"corpus file missing: {voice}")
    folder = tmp_path / "downloads"
    folder.mkdir()
    (folder / "export.json").write_bytes(voice.read_bytes())
    (folder / "notes.txt").write_text("shopping list\n")
    (folder / "blank.json").write_bytes(b"")
    out = ctl("ingest", str(folder), home=tmp_path / "home")
    assert out.returncode == 0, out.stderr
    assert "passed over 2 files" in out.stdout and "not-an-export 2" in out.stdout


def test_a_second_backup_in_the_same_second_is_the_one_kept(tmp_path: Path) -> None:
    log = tmp_path / "events.db"
    conn = sqlite3.connect(log)
    conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    now = datetime(2026, 3, 4, 9, 30, tzinfo=timezone.utc)
    first = rotate(log, tmp_path / "b", tz=ZoneInfo("UTC"), now=now)
    second = rotate(log, tmp_path / "b", tz=ZoneInfo("UTC"), now=now)
    kept = [b.path for b in list_backups(tmp_path / "b")]
    assert kept == [Path(second["backup"]["path"])]  # type: ignore[index]
    assert second["pruned"] == [first["backup"]["path"]]  # type: ignore[index]


def test_a_bad_search_level_is_named_without_blaming_sort(tmp_path: Path) -> None:
    voice = CORPUS / "claude-ai" / "echomine-voice_note.json"
    if not voice.is_file():
        pytest.skip(f"corpus file missing: {voice}")
    assert ctl("ingest", str(voice), home=tmp_path).returncode == 0
    out = ctl("search", "hello", "--level", "L9", home=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "level" in out.stderr and "'L9'" in out.stderr and "sort" not in out.stderr
    out = ctl("search", "hello", "--sort", "bogus", home=tmp_path)
    assert out.returncode == 1 and "'bogus'" in out.stderr and "level" not in out.stderr


def test_search_refuses_a_bad_role_limit_or_reversed_range(tmp_path: Path) -> None:
    """Values that can only be mistakes are named in a one-line error, not answered with nothing."""
    seed(tmp_path)
    for args, fragment in ((["--role", "bogus"], "role must be one of"), (["-n", "0"], "limit must be between"),
                           (["--since", "2025-01-01", "--until", "2020-01-01"], "must come after")):
        done = ctl("search", "braid", *args, home=tmp_path)
        assert done.returncode == 1 and fragment in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["ingest", "."], ["init"]])
def test_a_data_dir_that_cannot_be_written_is_one_line_not_a_traceback(tmp_path: Path, command: list[str]) -> None:
    """Write commands on a data dir below a regular file: exit 1, one line naming the path."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "file").write_text("not a folder")
    (home / "tapestry.toml").write_text(f'[paths]\ndata_dir = "{home / "file" / "data"}"\n')
    out = ctl(*command, home=home)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert f"error: {home / 'file' / 'data'}: Not a directory" in out.stderr.splitlines()


@pytest.mark.parametrize("args, said", [
    (["search", "a{99999999999}", "--regex"], "not a valid regular expression 'a{99999999999}'"),
    (["forget", "--match", "a{99999999999}", "--dry-run"], "--match 'a{99999999999}' is not a valid regular"),
    (["forget", "--match", "(", "--dry-run"], "at position 0"),
])
def test_regular_expressions_sqlite_or_python_refuse_are_one_line(tmp_path: Path, args: list[str], said: str) -> None:
    """A repetition count too large for Python's re, or an unbalanced group: one line, its position the user's own."""
    seed(tmp_path)
    out = ctl(*args, home=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr and said in out.stderr, out.stderr


def test_text_output_never_passes_terminal_controls_through(tmp_path: Path) -> None:
    """A stored message holding an escape sequence, a NUL and a bidi override prints them as
    escapes in text output (JSON escapes them by itself)."""
    from tapestryd.config import load_settings
    from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
    from tapestryd.operations.runtime import Runtime

    at = datetime(2025, 5, 1, 9, tzinfo=timezone.utc)
    with Runtime.open(load_settings(tmp_path)) as runtime:
        text = "heron \x1b[2J\x1b[31mcleared\x00 \u202eevil"
        runtime.store.append([NewEvent(event_id("esc"), MessageRecorded("chatgpt:c1", "m1", "user", text,
                                                                         format_utc(at)), at, "chatgpt", "f#1")])
        runtime.projector.catch_up()
    for args in (["search", "heron"], ["show", "chatgpt:c1"]):
        out = ctl(*args, home=tmp_path)
        assert out.returncode == 0, out.stderr
        assert "\x1b" not in out.stdout and "\x00" not in out.stdout and "\u202e" not in out.stdout
        assert "\\x1b[2J" in out.stdout and "\\u202e" in out.stdout
