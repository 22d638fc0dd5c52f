"""A daemon started on a home made by an older version answers through its socket at once, while it writes
the missing windows, blocks and speaker names in the background (status shows how far), and ends with the
index a rebuild gives."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from waiting import PATIENCE, wait_for

from tapestryd.config import Settings
from tapestryd.daemon.service import Service
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.projections import MessagesProjection, Projector, backfill, blocks, windows
from tapestryd.wire.client import request

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _turn(i: int) -> NewEvent:
    text = f"hey Nadia, the lantern {i} is lit" if i % 2 else f"thanks, Tomas! turn {i}"
    body = MessageRecorded(f"claude-ai:c{i % 4}", f"m{i}", "assistant" if i % 2 else "user", text,
                           format_utc(T0 + timedelta(minutes=i)))
    return NewEvent(event_id("upgrade", str(i)), body, T0 + timedelta(minutes=i), agent="claude-ai", source=f"s#{i}")


def _index(conn: sqlite3.Connection) -> tuple[object, ...]:
    """What the upgrade writes: the windows' terms and turns, the blocks and their documents, the speaker names."""
    terms = []
    for table in windows.shard_tables(conn):
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms_{table} USING fts5vocab(main, {table}, instance)")
        terms += conn.execute(f"SELECT term, doc, offset FROM temp.terms_{table}").fetchall()
    documents = sorted(row for t in blocks.shard_tables(conn) for row in conn.execute(f"SELECT rowid, text FROM {t}"))
    return (sorted(terms), documents, *(conn.execute(sql).fetchall() for sql in (
        "SELECT * FROM windows_indexed ORDER BY id", "SELECT * FROM conversation_blocks ORDER BY id",
        "SELECT * FROM block_members ORDER BY message_id", "SELECT * FROM message_vocatives ORDER BY id, nth")))


def _older_home(settings: Settings) -> None:
    """A home of 40 turns whose projections file has no speaker names nor blocks, and windows of another cut."""
    with Runtime.open(settings) as runtime:
        runtime.store.append([_turn(i) for i in range(40)])
        runtime.projector.catch_up()
    with sqlite3.connect(paths_for(settings).projections_db) as conn:
        for table in ("message_vocatives", "conversation_blocks", "block_members"):  # shards go at the open
            conn.execute(f"DROP TABLE {table}")
        conn.execute("UPDATE windows_format SET neighbour_chars = 0")


def test_the_socket_answers_while_the_upgrade_runs_and_the_upgrade_ends_with_the_index_of_a_rebuild(
        settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first chunk is held until the test has searched and read the status through the socket."""
    _older_home(settings)
    monkeypatch.setattr(backfill, "CHUNK", 8)
    held, release = threading.Event(), threading.Event()
    step = backfill.step

    def held_step(conn: sqlite3.Connection, limit: int | None = None) -> bool:
        held.set()
        release.wait(PATIENCE)
        return step(conn, limit)

    monkeypatch.setattr(backfill, "step", held_step)
    service = Service(settings)
    service.start()
    try:
        socket = service.paths.socket
        assert held.wait(PATIENCE)
        hits = request(socket, "search", {"query": "lantern"})["hits"]
        assert len(hits) >= 10 and all(hit["message_key"] in {f"m{i}" for i in range(1, 40, 2)} for hit in hits)
        upgrading = request(socket, "status")["projections"]["upgrading"]
        assert upgrading == {part: {"done": 0, "total": 40} for part in ("speaker names", "blocks", "windows")}
        release.set()

        def status() -> dict[str, Any]:
            return dict(request(socket, "status")["projections"])

        wait_for(lambda: "upgrading" not in status())
    finally:
        release.set()
        service.stop()
    with Runtime.open(settings) as runtime:
        upgraded = _index(runtime.projector.conn)
        fresh = Projector(runtime.store, tmp_path / "rebuilt.db", [MessagesProjection()])
        fresh.catch_up()
        assert upgraded == _index(fresh.conn) and upgraded[1] and upgraded[2] and upgraded[5]
        fresh.close()
