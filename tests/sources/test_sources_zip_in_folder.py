"""ZIPs met inside a folder (given to ``ingest FOLDER`` or dropped into the inbox) are treated like a ZIP
given directly: opened, exports imported, garbage reported naming it (tester report 4, item 8)."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from cli_runner import tapestryctl
from sources_helpers import CHATGPT, CLAUDE_AI, ingest
from structlog.testing import capture_logs

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.sources.inbox import import_inbox_file

GARBAGE = b"Salted__\x8f\x01 not a zip at all"


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def errors_of(receipt: dict) -> list[str]:
    return [e for f in receipt["files"] for e in f["errors"]]


def test_a_garbage_zip_in_a_folder_is_an_error_naming_it(store: EventStore, settings: Settings,
                                                         tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "bad.zip").write_bytes(GARBAGE)
    (folder / "empty.zip").write_bytes(b"")
    (folder / "x.json").write_bytes(CHATGPT.read_bytes())
    receipt = ingest(store, settings, folder)
    assert not receipt["failed"] and receipt["totals"]["messages_new"] > 0
    assert errors_of(receipt) == [(f"{folder / 'bad.zip'}: not a ZIP archive (it starts with 'Salted__\ufffd\\x01 "
                                   f"not a zip at all'); nothing to import"),
                                  f"{folder / 'empty.zip'}: not a ZIP archive (it is empty); nothing to import"]
    assert "not-an-export" not in receipt["totals"]["skipped"]


def test_a_garbage_zip_named_alone_says_it_is_not_a_zip(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(GARBAGE)
    receipt = ingest(store, settings, bad)
    assert receipt["failed"] and errors_of(receipt)[0].startswith(f"{bad}: not a ZIP archive (it starts with 'Salted__")


def test_zips_in_a_folder_are_opened_like_zips_given_directly(store: EventStore, settings: Settings,
                                                              tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    good = make_zip(folder / "export.zip", {"conversations.json": CLAUDE_AI.read_bytes(), "a.png": b"\x89PNG"})
    enc = make_zip(folder / "enc.zip", {"conversations.json": b"xxxxxxxxxx"})
    (folder / "cut.zip").write_bytes(b"PK\x03\x04 cut short")
    receipt = ingest(store, settings, folder)
    assert not receipt["failed"] and receipt["totals"]["messages_new"] == 4
    assert f"{good}!/conversations.json" in [f["path"] for f in receipt["files"]]
    errors = errors_of(receipt)
    assert errors[0].startswith(f"{folder / 'cut.zip'}: not a readable ZIP archive")
    assert errors[1].startswith(f"{enc}!/conversations.json: not a Claude Code session") and len(errors) == 2
    assert receipt["totals"]["skipped"]["not-an-export"] == 1  # the image beside the export in export.zip


def test_a_zip_of_images_in_a_folder_is_passed_over_as_one_file(store: EventStore, settings: Settings,
                                                                tmp_path: Path) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    make_zip(folder / "photos.zip", {"a.png": b"\x89PNG", "b.png": b"\x89PNG", "notes.txt": b"hi"})
    make_zip(folder / "nothing.zip", {})
    (folder / "x.json").write_bytes(CHATGPT.read_bytes())
    receipt = ingest(store, settings, folder)
    assert not receipt["failed"] and receipt["totals"]["errors"] == 0
    skipped = receipt["totals"]["skipped"]
    assert skipped["zip-without-export"] == 2 and "not-an-export" not in skipped
    (folder / "x.json").unlink()
    receipt = ingest(store, settings, folder)
    assert receipt["failed"] and errors_of(receipt) == [
        f"{folder}: the folder holds no export files (passed over 2 files: zip-without-export 2); nothing to import"]


def test_an_encrypted_member_says_so(store: EventStore, settings: Settings, tmp_path: Path) -> None:
    if shutil.which("zip") is None:
        pytest.skip("the zip command is not installed (needed to write a password-protected ZIP)")
    folder = tmp_path / "odd"
    folder.mkdir()
    (tmp_path / "conversations.json").write_bytes(b"xxxxxxxxxx")
    subprocess.run(["zip", "-q", "-j", "-P", "secret", str(folder / "enc.zip"), str(tmp_path / "conversations.json")],
                   check=True)
    receipt = ingest(store, settings, folder)
    assert errors_of(receipt) == [(f"{folder / 'enc.zip'}: member 'conversations.json' is encrypted "
                                   f"(password-protected); tapestry reads only ZIPs without a password")]


def test_the_inbox_reports_a_bad_zip_beside_a_good_export(store: EventStore, settings: Settings,
                                                          tmp_path: Path) -> None:
    drop = tmp_path / "inbox"
    sub = drop / "sub"
    sub.mkdir(parents=True)
    (sub / "x.json").write_bytes(CHATGPT.read_bytes())
    (sub / "bad.zip").write_bytes(GARBAGE)
    with capture_logs() as logs:
        outcome = import_inbox_file(store, sub, settings=settings)
    assert outcome.ok and Path(outcome.moved_to).parent.parent == drop / "processed"
    assert outcome.receipt is not None and outcome.receipt["messages"]["new"] > 0
    assert outcome.error.startswith(f"{sub / 'bad.zip'}: not a ZIP archive (it starts with")
    imported = next(e for e in logs if e["event"] == "inbox.imported")
    assert imported["log_level"] == "warning" and imported["errors"] == [outcome.error]


def test_the_inbox_files_a_folder_holding_only_a_bad_zip_under_failed(store: EventStore, settings: Settings,
                                                                       tmp_path: Path) -> None:
    drop = tmp_path / "inbox"
    (drop / "sub").mkdir(parents=True)
    (drop / "sub" / "bad.zip").write_bytes(GARBAGE)
    outcome = import_inbox_file(store, drop / "sub", settings=settings)
    assert not outcome.ok and (drop / "failed" / "sub" / "bad.zip").is_file()
    text = (drop / "failed" / "sub.error.txt").read_text()
    assert f"{drop / 'sub' / 'bad.zip'}: not a ZIP archive" in text


def test_cli_names_the_garbage_zip_of_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "bad.zip").write_bytes(GARBAGE)
    (folder / "x.json").write_bytes(CHATGPT.read_bytes())
    env = {"TAPESTRY_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = tapestryctl("ingest", str(folder), env=env)
    assert out.returncode == 0, out.stderr
    assert f"error: {folder / 'bad.zip'}: not a ZIP archive (it starts with 'Salted__" in out.stdout
    assert "1 error in 2 files" in out.stdout and "passed over" not in out.stdout
