"""Files named like exports that are not, ZIPs and folders holding no export, missing and odd paths,
and folders dropped into the inbox (tester report 3, items 8 and 9 and the ingest path checks)."""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

from cli_runner import tapestryctl
from sources_helpers import CHATGPT, SESSION, ingest
from waiting import wait_for

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.sources.inbox import InboxWatcher, SettleTracker, import_inbox_file, list_inbox


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def ctl(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run tapestryctl in this process (tests/cli_runner.py) against ``home``."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return tapestryctl(*args, env=env)


def test_export_names_are_told_from_side_files() -> None:
    from tapestryd.sources.ingest import export_named

    assert export_named("/d/conversations.json") and export_named("x.zip!/conversations-003.json")
    assert export_named("/h/.claude/projects/-home-me/abc.jsonl") and export_named("a.zip!/projects/p/s.jsonl")
    assert not export_named("/d/users.json") and not export_named("/d/projects.json")
    assert not export_named("/d/README") and not export_named("/d/notes/s.jsonl")


def test_a_zip_whose_conversations_json_is_garbage_fails_naming_it(store: EventStore, settings: Settings,
                                                                    tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "enc.zip", {"conversations.json": b"xxxxxxxxxx", "users.json": b"[]"})
    receipt = ingest(store, settings, archive)
    assert receipt["failed"] and receipt["totals"]["errors"] == 1
    error = receipt["files"][0]["errors"][0]
    assert error.startswith(f"{archive}!/conversations.json: not a Claude Code session") and "'xxxxxxxxxx'" in error


def test_a_zip_or_folder_holding_no_export_fails_saying_so(store: EventStore, settings: Settings,
                                                           tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "photos.zip", {"README.txt": b"hello", "a.png": b"\x89PNG"})
    empty = tmp_path / "emptydir"
    empty.mkdir()
    receipt = ingest(store, settings, archive)
    assert receipt["failed"]
    assert receipt["files"][0]["errors"] == [(f"{archive}: the ZIP archive holds no export files "
                                              f"(passed over 2 files: not-an-export 2); nothing to import")]
    receipt = ingest(store, settings, empty)
    assert receipt["failed"] and receipt["files"][0]["errors"] == [
        f"{empty}: the folder holds no export files; nothing to import"]


def test_side_files_in_a_folder_are_still_passed_over(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "conversations.json").write_bytes(CHATGPT.read_bytes())
    (folder / "projects.json").write_text("xxxx")
    (folder / "README").write_text("read me")
    (folder / "users.json").write_text('[{"email_address": "a@b.c"}]')
    receipt = ingest(store, settings, folder)
    assert not receipt["failed"] and receipt["totals"]["errors"] == 0
    assert receipt["totals"]["skipped"]["not-an-export"] == 2 and receipt["totals"]["skipped"]["export-metadata"] == 1


def test_an_export_of_no_conversations_is_not_an_error(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "none-yet.zip", {"conversations.json": b"[]\n"})
    receipt = ingest(store, settings, archive)
    assert not receipt["failed"] and receipt["totals"]["skipped"] == {"empty-export": 1}
    (tmp_path / "projects" / "p").mkdir(parents=True)
    (tmp_path / "projects" / "p" / "started.jsonl").write_bytes(b"")
    (tmp_path / "projects" / "p" / "s.jsonl").write_bytes(SESSION.read_bytes())
    receipt = ingest(store, settings, tmp_path / "projects")
    assert receipt["totals"]["errors"] == 0 and receipt["totals"]["skipped"]["empty-export"] == 1


def test_a_garbage_session_in_a_projects_folder_is_an_error(store: EventStore, settings: Settings,
                                                            tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-me"
    project.mkdir(parents=True)
    (project / "good.jsonl").write_bytes(SESSION.read_bytes())
    (project / "bad.jsonl").write_text("not json at all\n")
    receipt = ingest(store, settings, tmp_path / "projects")
    assert not receipt["failed"] and receipt["totals"]["errors"] == 1
    assert next(f["errors"] for f in receipt["files"] if f["errors"])[0].startswith(f"{project / 'bad.jsonl'}: not a")


def test_missing_and_odd_paths_are_errors_while_the_rest_imports(store: EventStore, settings: Settings,
                                                                 tmp_path: Path) -> None:
    missing = tmp_path / "chatgpt-export.zip"
    receipt = ingest(store, settings, CHATGPT, missing, Path("/dev/null"))
    assert not receipt["failed"] and receipt["totals"]["messages_new"] > 0
    errors = [e for f in receipt["files"] for e in f["errors"]]
    assert errors[0] == f"{missing}: no such file or folder"
    assert errors[1].startswith("/dev/null: not a regular file or folder")


def test_cli_imports_what_exists_and_exits_1_only_when_nothing_imported(tmp_path: Path) -> None:
    home, missing = tmp_path / "home", tmp_path / "missing.zip"
    some = ctl(home, "ingest", str(CHATGPT), str(missing))
    assert some.returncode == 0, some.stderr
    assert f"error: {missing}: no such file or folder" in some.stdout and "new messages" in some.stdout
    assert "[? → ?]" not in some.stdout and f"{missing}  [" not in some.stdout  # a path never read shows its error only
    odd = ctl(home, "ingest", "/dev/null")
    assert odd.returncode == 1 and "/dev/null: not a regular file or folder" in odd.stdout
    (tmp_path / "emptydir").mkdir()
    empty = ctl(home, "ingest", str(tmp_path / "emptydir"))
    assert empty.returncode == 1 and "the folder holds no export files" in empty.stdout
    garbage = make_zip(tmp_path / "enc.zip", {"conversations.json": b"xxxxxxxxxx"})
    bad = ctl(home, "ingest", str(garbage))
    assert bad.returncode == 1 and "enc.zip!/conversations.json: not a" in bad.stdout and "0 errors" not in bad.stdout


def test_the_inbox_files_a_garbage_zip_under_failed(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    drop = tmp_path / "inbox"
    drop.mkdir()
    archive = make_zip(drop / "enc.zip", {"conversations.json": b"xxxxxxxxxx"})
    outcome = import_inbox_file(store, archive, settings=settings)
    assert not outcome.ok and (drop / "failed" / "enc.zip").is_file() and not (drop / "processed").exists()
    assert "'xxxxxxxxxx'" in (drop / "failed" / "enc.zip.error.txt").read_text()


def test_a_folder_in_the_inbox_waits_until_quiet_then_imports_and_is_filed(store: EventStore, settings: Settings,
                                                                           tmp_path: Path) -> None:
    drop = tmp_path / "inbox"
    sub = drop / "sub"
    sub.mkdir(parents=True)
    (drop / "processed").mkdir()
    (sub / "x.json").write_bytes(CHATGPT.read_bytes())
    tracker = SettleTracker(settle=1.0)
    assert tracker.observe(list_inbox(drop), 0.0) == []
    (sub / "more").mkdir()
    (sub / "more" / "y.jsonl").write_bytes(SESSION.read_bytes())
    os.utime(sub / "more" / "y.jsonl", ns=(2**62, 2**62))
    assert tracker.observe(list_inbox(drop), 5.0) == []  # it changed: the wait starts again
    assert tracker.observe(list_inbox(drop), 6.5) == [str(sub)]
    outcome = import_inbox_file(store, sub, settings=settings)
    assert outcome.ok and outcome.receipt is not None and outcome.receipt["messages"]["new"] > 0
    assert not sub.exists() and Path(outcome.moved_to).is_dir()
    assert Path(outcome.moved_to).parent.parent == drop / "processed"


def test_a_folder_in_the_inbox_holding_no_export_is_filed_under_failed(store: EventStore, settings: Settings,
                                                                        tmp_path: Path) -> None:
    drop = tmp_path / "inbox"
    (drop / "pics").mkdir(parents=True)
    (drop / "pics" / "a.png").write_bytes(b"\x89PNG")
    outcome = import_inbox_file(store, drop / "pics", settings=settings)
    assert not outcome.ok and (drop / "failed" / "pics" / "a.png").is_file()
    assert "holds no export files" in (drop / "failed" / "pics.error.txt").read_text()


def test_the_inbox_watcher_hands_over_a_dropped_folder_once_quiet(tmp_path: Path) -> None:
    drop = tmp_path / "inbox"
    drop.mkdir()
    ready: list[Path] = []
    watcher = InboxWatcher(drop, ready.append, settle=0.3, rescan=0.2, polling=True)
    watcher.start()
    try:
        (drop / "sub").mkdir()
        (drop / "sub" / "x.json").write_bytes(CHATGPT.read_bytes())
        wait_for(lambda: ready)
    finally:
        watcher.stop()
    assert ready == [drop / "sub"]


def test_an_empty_folder_in_the_inbox_waits_until_something_is_in_it(tmp_path: Path) -> None:
    """A folder just made (mkdir, then a slow copy) is not a candidate until a file lands in it."""
    inbox = tmp_path / "inbox"
    (inbox / "slow").mkdir(parents=True)
    assert list_inbox(inbox) == {}
    (inbox / "slow" / "x.json").write_text("[]")
    assert list(list_inbox(inbox)) == [str(inbox / "slow")]
