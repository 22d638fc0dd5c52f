"""A full data folder: the daemon stops ingesting, keeps its offsets, says so, and resumes by itself.

Uses a real 2 MiB tmpfs as the data folder (root only); skipped with the reason when
mounting is not possible here.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tapestryd.config import load_settings
from tapestryd.daemon.jobs import probe_storage
from tapestryd.daemon.service import Service


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs mounted for the test, unmounted after."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip() or 'not root'})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def _line(n: int) -> bytes:
    record = {"type": "user", "uuid": f"u{n}", "sessionId": "full", "timestamp": f"2026-03-04T10:{n % 60:02d}:00Z",
              "cwd": "/home/me/proj", "message": {"role": "user", "content": f"line {n} " + "words " * 300}}
    return json.dumps(record).encode() + b"\n"


def _wait(predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.05)
    raise AssertionError(f"condition not met within {timeout} s")


def _query(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
        except OSError:
            pass
    return filler


def test_full_disk_suspends_then_resumes_without_loss(home: Path, tmpfs: Path) -> None:
    """Lines written while the data folder is full are ingested exactly once after space returns.

    (A read-only remount cannot be tested this way: the kernel refuses ``remount,ro`` while
    the daemon holds files open for writing; a read-only folder fails the same append path.)
    """
    root = home / "claude-projects"
    (root / "proj").mkdir(parents=True)
    (home / "tapestry.toml").write_text(
        f'[general]\ntimezone = "UTC"\n[paths]\ndata_dir = "{tmpfs}"\n'
        f'[sources]\nwatched_roots = ["{root}"]\nsweep_interval = 3600\n')
    session = root / "proj" / "full.jsonl"
    session.write_bytes(b"".join(_line(n) for n in range(3)))
    service = Service(load_settings(home))
    service.start()
    events = tmpfs / "events.db"
    count = "SELECT COUNT(*) FROM events WHERE type = 'MessageRecorded'"
    try:
        _wait(lambda: _query(events, count)[0][0] == 3)
        offset = _query(events, "SELECT offset FROM source_offsets")[0][0]
        filler = _fill(tmpfs)
        with session.open("ab") as fh:
            fh.write(b"".join(_line(n) for n in range(3, 40)))
        _wait(lambda: service.state.storage.tripped)
        status = service.snapshot()["storage"]
        assert status["ok"] is False and status["reason"].startswith("tail:") and "full" in status["reason"]
        assert _query(events, "SELECT offset FROM source_offsets")[0][0] == offset
        probe_storage(service)
        assert service.state.storage.tripped  # still full: stays suspended
        filler.unlink()
        probe_storage(service)
        assert not service.state.storage.tripped
        _wait(lambda: _query(events, count)[0][0] == 40)
        keys = _query(events, "SELECT COUNT(DISTINCT event_id) FROM events WHERE type = 'MessageRecorded'")
        assert keys[0][0] == 40 and service.snapshot()["storage"]["ok"] is True
    finally:
        service.stop()
