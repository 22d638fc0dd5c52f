"""The daemon's writer catches up without settling while lines stream in, and settles the grown blocks once idle."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tapestryd.config import load_settings
from tapestryd.daemon.writer import Writer
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.runtime import Runtime
from tapestryd.projections import blocks

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _line(i: int) -> NewEvent:
    body = MessageRecorded("claude-code:s1", f"m{i}", "user", f"turn{i}", format_utc(T0 + timedelta(minutes=i)))
    return NewEvent(event_id("settle", str(i)), body, T0 + timedelta(minutes=i), agent="claude-code", source=f"s#{i}")


def _indexed(runtime: Runtime, word: str) -> bool:
    conn = runtime.projector.conn
    return any(conn.execute(f"SELECT 1 FROM {t} WHERE {t} MATCH ?", (word,)).fetchone()
               for t in blocks.shard_tables(conn))


def test_the_writer_settles_the_open_block_once_idle(home: Path) -> None:
    """Three lines: the third waits in its grown block while tasks come, and is indexed after the idle spell."""
    runtime = Runtime.open(load_settings(home))
    settled = threading.Event()
    settle = runtime.projector.settle

    def settle_and_signal() -> None:
        settle()
        settled.set()

    runtime.projector.settle = settle_and_signal  # type: ignore[method-assign]
    writer = Writer(runtime, settle_after=0.2)
    writer.start()
    try:
        assert settled.wait(30)  # at start: blocks a stopped daemon left waiting are settled
        settled.clear()
        go = threading.Event()  # the first task waits until every task is queued: no idle spell between them
        writer.submit(lambda rt: go.wait(30) and rt.store.append([_line(0), _line(1)]), name="append")
        writer.submit(lambda rt: rt.store.append([_line(2)]), name="append")
        look = writer.submit(lambda rt: (_indexed(rt, "turn1"), _indexed(rt, "turn2")), name="look")
        go.set()
        assert look.result(30) == (True, False) and not settled.is_set()  # size 2 written, size 3 waits
        assert settled.wait(30)
        assert writer.run(lambda rt: _indexed(rt, "turn2"), name="look")
        assert writer.run(lambda rt: rt.projector.conn.execute(
            "SELECT size, dirty FROM conversation_blocks").fetchall(), name="look") == [(3, 0)]
    finally:
        writer.stop()
        runtime.close()
    assert blocks.BLOCK_SIZE > 3


def test_the_writer_settles_before_it_stops(home: Path) -> None:
    """A grown block still waiting when the daemon stops is written before the writer ends."""
    runtime = Runtime.open(load_settings(home))
    writer = Writer(runtime, settle_after=3600)
    writer.start()
    try:
        writer.run(lambda rt: rt.store.append([_line(0), _line(1)]), name="append")
        writer.run(lambda rt: rt.store.append([_line(2)]), name="append")
        assert writer.run(lambda rt: _indexed(rt, "turn2"), name="look") is False
    finally:
        assert writer.stop(timeout=30)
    assert _indexed(runtime, "turn2")
    runtime.close()
