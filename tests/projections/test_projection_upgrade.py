"""The upgrade of a projections file made by an older version (projections/backfill.py): opening it
writes nothing for minutes, the missing windows, blocks and speaker names are written a chunk per
transaction, capture goes between chunks, a kill resumes where the last chunk ended, and the end is
the index a rebuild gives."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_projection_blocks import _forget, _message, _project, _state
from test_projection_windows import _windows

from tapestryd.cli.fast import render_status
from tapestryd.projections import MessagesProjection, Projector, backfill, blocks, windows

ROOT = Path(__file__).resolve().parents[2]
PARTS = ["speaker names", "blocks", "windows"]


def _chat() -> list:
    """30 turns over three conversations, the two sides calling each other by name."""
    return [_message(i, f"m{i}", f"turn {i} hey Nadia, words{i % 5}" if i % 2 else f"turn {i} thanks, Tomas!",
                     f"claude-ai:c{i % 3}", role="assistant" if i % 2 else "user") for i in range(30)]


def _index(conn: sqlite3.Connection) -> tuple[object, ...]:
    """Everything the upgrade writes: windows (terms, and the turns each was made of), blocks, speaker names."""
    return (_windows(conn), conn.execute("SELECT * FROM windows_indexed ORDER BY id").fetchall(), _state(conn),
            conn.execute("SELECT * FROM message_vocatives ORDER BY id, nth").fetchall())


def _tables(conn: sqlite3.Connection, prefix: str) -> list[str]:
    return [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE name LIKE ?", (f"{prefix}%",))]


def _rebuilt(projector: Projector, tmp_path: Path) -> tuple[object, ...]:
    """The index a fresh file projected from the same log holds."""
    fresh = Projector(projector.store, tmp_path / "rebuilt.db", [MessagesProjection()])
    fresh.catch_up()
    try:
        return _index(fresh.conn)
    finally:
        fresh.close()


def _make_older(projector: Projector) -> Path:
    """Turn the projector's file into one of an older version (no speaker names nor blocks; windows of another
    cut, in one table: made before shards) and close it; returns its path."""
    conn = projector.conn
    conn.execute("DROP TABLE message_vocatives")
    for table in ("conversation_blocks", "block_members", *blocks.shard_tables(conn), "blocks_shards",
                  *windows.shard_tables(conn), "windows_shards", "windows_format"):
        conn.execute(f"DROP TABLE {table}")
    conn.execute("CREATE TABLE windows_format (neighbour_chars INTEGER NOT NULL)")
    conn.execute("INSERT INTO windows_format VALUES (0)")
    conn.execute("CREATE VIRTUAL TABLE windows_fts USING fts5(text, content='')")
    conn.execute("INSERT INTO windows_fts (rowid, text) SELECT id, text FROM messages")
    projector.close()
    return projector.db_path


def test_opening_an_older_file_writes_nothing_and_the_upgrade_ends_with_the_index_of_a_rebuild(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 4 messages, with capture between them: a new turn, a later part of a turn not upgraded yet, a
    forget; the parts run in order, status shows how far each is, the older cut's index goes a part at a time,
    and the end equals a rebuilt file."""
    monkeypatch.setattr(backfill, "CHUNK", 4)
    monkeypatch.setattr(windows, "_RETIRE_ROWS", 1)  # the older cut's index goes a row a chunk
    older = _project(tmp_path, _chat())
    projector = Projector(older.store, _make_older(older), [MessagesProjection()])
    assert backfill.progress(projector.conn) == {part: (0, 30) for part in PARTS}
    assert _windows(projector.conn) == [] and _state(projector.conn) == ([], [], [])
    assert _tables(projector.conn, "windows_retired")  # set aside at open: a DROP frees every page
    live = [[_message(40, "n40", "turn 40 hey Nadia", "claude-ai:c1", role="assistant")],
            [_message(41, "m28", " and the lake, Tomas")],  # joined to a turn the upgrade reaches last
            [_forget(match="turn 7 ")], [_message(42, "n42", "turn 42 words1", "claude-ai:c2")]]
    seen, retiring = [], []
    while projector.upgrade_step():
        seen.append(backfill.progress(projector.conn))
        retiring.append(bool(_tables(projector.conn, "windows_retired")))
        if live:
            projector.store.append(live.pop(0))
            projector.catch_up()
    assert not live and len(seen) > 3 * 30 // 4
    assert list(seen[0]) == PARTS and list(seen[-1]) == ["windows"]
    windows_steps = [r for p, r in zip(seen, retiring) if list(p) == ["windows"]]
    assert windows_steps[1] and not windows_steps[-1]  # still there after a windows chunk; gone at the end
    assert seen[len(seen) // 2]["blocks"][0] < 30 and "speaker names" not in seen[len(seen) // 2]
    assert backfill.progress(projector.conn) == {} and not _tables(projector.conn, "windows_retired")
    assert _index(projector.conn) == _rebuilt(projector, tmp_path)
    upgrading = {"projections": {"upgrading": {"windows": {"done": 8, "total": 31}}}}
    assert "upgrading: windows 8 of 31 messages (stopped with the daemon: it goes on when the daemon starts" in (
        render_status(upgrading))
    running = {"daemon": {"running": True, "pid": 1}, **upgrading}
    assert "upgrading: windows 8 of 31 messages (written in the background by the daemon)" in render_status(running)


def test_a_new_file_and_a_rebuild_leave_nothing_to_upgrade(tmp_path: Path) -> None:
    """A fresh file plans nothing (no message to write); a rebuild of a file half upgraded writes it all itself."""
    projector = _project(tmp_path, _chat())
    assert backfill.progress(projector.conn) == {} and not projector.upgrade_step()
    projector = Projector(projector.store, _make_older(projector), [MessagesProjection()])
    assert projector.upgrade_step() and backfill.progress(projector.conn)
    projector.rebuild()
    assert backfill.progress(projector.conn) == {} and not projector.upgrade_step()
    assert _index(projector.conn) == _rebuilt(projector, tmp_path)


_KILLED_MID_UPGRADE = """
import os, signal, sys
from pathlib import Path
from tapestryd.events import EventStore
from tapestryd.projections import MessagesProjection, Projector, backfill, blocks, windows
backfill.CHUNK = 2
folder = Path(sys.argv[1])
projector = Projector(EventStore(folder / "events.db"), folder / "projections.db", [MessagesProjection()])
for _ in range(int(sys.argv[2])):
    projector.upgrade_step()
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_an_upgrade_killed_mid_way_resumes_after_its_last_chunk(tmp_path: Path) -> None:
    """A process killed (SIGKILL) after 20 chunks of 2: the next open resumes in the blocks where it stopped
    (speaker names done, nothing written twice) and ends with the index of a rebuild."""
    older = _project(tmp_path, _chat())
    older.store.close()
    _make_older(older)
    killed = subprocess.run([sys.executable, "-c", _KILLED_MID_UPGRADE, str(tmp_path), "20"], cwd=ROOT,
                            capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    projector = _project(tmp_path, [])
    assert backfill.progress(projector.conn) == {"blocks": (2 * (20 - 16), 30), "windows": (0, 30)}
    projector.upgrade()
    assert _index(projector.conn) == _rebuilt(projector, tmp_path)
