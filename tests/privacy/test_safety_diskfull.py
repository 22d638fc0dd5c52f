"""A full data folder: the daemon stops ingesting, keeps its offsets, says so, and resumes by itself.

Uses a real 2 MiB tmpfs as the data folder (root only); skipped with the reason when
mounting is not possible here.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from waiting import wait_for

from tapestryd.config import load_settings
from tapestryd.daemon.jobs import probe_storage
from tapestryd.daemon.service import Service


@pytest.fixture
def tmpfs(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A tmpfs (2 MiB, or the size the test's indirect parameter gives) mounted for the test, unmounted after."""
    mount = tmp_path / "small"
    mount.mkdir()
    size = getattr(request, "param", "2m")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True)
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


def _wait(predicate: Callable[[], Any]) -> Any:
    return wait_for(predicate)


def _query(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as fh:  # unbuffered: nothing is left to flush (and fail) at close
        try:
            while True:
                fh.write(b"\0" * 65536)
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


def _export(path: Path, conversations: int, turns: int) -> Path:
    """A ChatGPT conversations.json of varied prose (about 2.4 KB a message)."""
    rng = random.Random(7)
    vocabulary = [f"{a}{b}" for a in ("lan", "har", "kes", "mor", "vel", "tor", "qui", "sab") for b in
                  ("tern", "bour", "trel", "ning", "vet", "ridge", "llow", "ble", "ster", "dor")]

    def node(i: int, parent: str | None, child: str | None, role: str, ts: float) -> dict[str, Any]:
        text = " ".join(rng.choice(vocabulary) + str(rng.randrange(1000)) for _ in range(300))
        return {"id": f"n{i}", "parent": parent, "children": [child] if child else [],
                "message": {"id": f"n{i}", "author": {"role": role, "name": None, "metadata": {}}, "create_time": ts,
                            "content": {"content_type": "text", "parts": [text]}, "metadata": {},
                            "recipient": "all"}}

    items = []
    for c in range(conversations):
        start = 1_767_225_600.0 + c * 3600
        mapping = {f"n{i}": node(i, f"n{i - 1}" if i else None, f"n{i + 1}" if i + 1 < turns else None,
                                 "user" if i % 2 == 0 else "assistant", start + i) for i in range(turns)}
        items.append({"title": f"talk {c}", "create_time": start, "update_time": start + turns,
                      "current_node": f"n{turns - 1}", "conversation_id": f"conv-{c}", "id": f"conv-{c}",
                      "mapping": mapping})
    path.write_text(json.dumps(items))
    return path


@pytest.mark.parametrize("tmpfs", ["64m"], indirect=True)
def test_a_full_disk_during_a_cli_ingest_prints_one_line(home: Path, tmpfs: Path, tmp_path: Path) -> None:
    """tapestryctl ingest on a data folder that fills up: exit 1 and one line naming the database,
    the free space and what the import needs; no traceback from the projector child or anyone."""
    small = tmpfs / "data"
    (home / "tapestry.toml").write_text(f'[general]\ntimezone = "UTC"\n[paths]\ndata_dir = "{small}"\n'
                                        '[sources]\nwatched_roots = []\n')
    export = _export(tmp_path / "conversations.json", 80, 20)
    _fill_to(tmpfs, free=int(export.stat().st_size * 1.3))
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "ingest", str(export)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "TAPESTRY_HOME": str(home)},
                          cwd=Path(__file__).resolve().parents[2])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith(f"error: disk full: {small}/") and ".db cannot grow" in lines[0]
    assert "MB free on its file system" in lines[0] and "this import needs about" in lines[0]


def _fill_to(folder: Path, free: int) -> None:
    """Leave about ``free`` bytes free on the file system of ``folder``."""
    import shutil

    spare = shutil.disk_usage(folder).free - free
    if spare > 0:
        (folder / "ballast").write_bytes(b"\0" * spare)
