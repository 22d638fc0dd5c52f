"""With no daemon, a write command run in process finishes an older projections file's upgrade
(projections/backfill.py): nothing else would write its blocks, windows and speaker names. Until a
writer of this version opens such a file, status says its upgrade is pending."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from cli_runner import tapestryctl


def _session(path: Path, turns: list[str]) -> Path:
    """A Claude Code session file of ``turns``, user and assistant in turn."""
    records = [{"parentUuid": None, "isSidechain": False, "cwd": "/home/sam/proj", "sessionId": path.stem,
                "type": role, "uuid": f"{path.stem[-4:]}-{i}", "timestamp": f"2026-03-04T09:30:{i:02d}.000Z",
                "message": {"role": role, "content": [{"type": "text", "text": text}]}}
               for i, text in enumerate(turns) for role in ["user" if i % 2 == 0 else "assistant"]]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _make_older(db: Path) -> None:
    """Turn ``db`` into a file of an older version: no speaker names nor blocks, windows of another cut."""
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE message_vocatives")
        for table in ("conversation_blocks", "block_members"):  # the blocks' shards go when the file is opened
            conn.execute(f"DROP TABLE {table}")
        conn.execute("UPDATE windows_format SET neighbour_chars = 0")
        conn.execute("DROP TABLE messages_backfill")  # made before the upgrade was planned in the file


def test_an_ingest_without_the_daemon_writes_what_an_older_file_lacks(tmp_path: Path) -> None:
    env = {"TAPESTRY_HOME": str(tmp_path / "h"), "PATH": "/usr/bin:/bin"}
    first = _session(tmp_path / "0a1b2c3d-0000-4000-8000-0000000000a1.jsonl",
                     ["hey Nadia, the lake trip is on", "thanks, Tomas! which lake?", "Lake Bled, in May"])
    assert tapestryctl("ingest", str(first), env=env).returncode == 0
    db = next((tmp_path / "h").rglob("projections.db"))
    _make_older(db)
    status = tapestryctl("status", env=env).stdout
    assert "upgrade pending: made by an older version" in status
    assert json.loads(tapestryctl("status", "-f", "json", env=env).stdout)["projections"]["upgrade_pending"] is True

    second = _session(tmp_path / "0a1b2c3d-0000-4000-8000-0000000000b2.jsonl", ["and the boat, Nadia?"])
    done = tapestryctl("ingest", str(second), env=env)
    assert done.returncode == 0, done.stderr
    projections = json.loads(tapestryctl("status", "-f", "json", env=env).stdout)["projections"]
    assert "upgrading" not in projections and "upgrade_pending" not in projections
    with sqlite3.connect(db) as conn:
        messages = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM block_members").fetchone()[0] == messages == 4
        assert conn.execute("SELECT count(*) FROM windows_indexed").fetchone()[0] == messages
        assert conn.execute("SELECT count(*) FROM message_vocatives").fetchone()[0] > 0
