"""Projections applied alongside an import by a child process leave the rows a catch-up afterwards leaves.

``Projector.alongside`` runs the import in this process while a spawned child applies what
it appends; the rows, FTS index and checkpoints must equal a plain catch-up's, whatever
the timing, when the import fails half-way, and when two projectors race for a batch.
The history and the table dump come from test_projection_batch_path.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_projection_batch_path import build, dump, forgetting, history

from tapestryd.events import EventStore
from tapestryd.projections import Projector, default_projections
from tapestryd.projections.runner import checkpoints


def _appending(store: EventStore, projections_db: Path, pause: float = 0.05) -> int:
    """Append the history in small chunks; returns the messages checkpoint seen before the last chunk."""
    events = history() + forgetting()
    seen = 0
    for start in range(0, len(events), 4):
        store.append(events[start:start + 4])
        time.sleep(pause)
        if start == 20:  # wait (bounded) until the child applied something: the overlap really happened
            seen = _wait_for_checkpoint(projections_db, 1, timeout=30.0)
    return seen


def _wait_for_checkpoint(db: Path, at_least: int, timeout: float) -> int:
    """The messages checkpoint of ``db`` once it reaches ``at_least`` (0 after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mark = 0
        if db.exists():
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                mark = checkpoints(conn).get("messages", 0)
            except sqlite3.Error:  # the child is still creating the tables
                pass
            finally:
                conn.close()
        if mark >= at_least:
            return mark
        time.sleep(0.05)
    return 0


def test_alongside_equals_catch_up_afterwards(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "events.db")
    projector = Projector(store, tmp_path / "p.db", default_projections("UTC", 0))
    seen = projector.alongside(lambda: _appending(store, tmp_path / "p.db"), delay=0.0)
    assert seen > 0, "the child applied events while the import was still appending"
    assert set(checkpoints(projector.conn).values()) == {store.last_seq()}
    got = dump(projector.conn)
    projector.close()
    assert got == build(store, tmp_path / "after.db", batch=1000, event_by_event=False)


def test_failing_import_stops_the_child_and_loses_nothing(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "events.db")
    projector = Projector(store, tmp_path / "p.db", default_projections("UTC", 0))

    def failing() -> None:
        _appending(store, tmp_path / "p.db", pause=0.0)
        raise RuntimeError("disk gone")

    with pytest.raises(RuntimeError, match="disk gone"):
        projector.alongside(failing, delay=0.0)
    projector.catch_up()
    got = dump(projector.conn)
    projector.close()
    assert got == build(store, tmp_path / "after.db", batch=1000, event_by_event=False)


def test_short_import_starts_no_child(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "events.db")
    projector = Projector(store, tmp_path / "p.db", default_projections("UTC", 0))
    assert projector.alongside(lambda: store.append(history()).new, delay=30.0) == len(history())
    assert multiprocessing.active_children() == []
    assert not any(projector.lag().values())
    projector.close()


def test_a_batch_another_projector_applied_meanwhile_is_not_applied_twice(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Checkpoints are read again under the write lock: the batch read before it is dropped."""
    store = EventStore(tmp_path / "events.db")
    store.append(history())
    first = Projector(store, tmp_path / "p.db", default_projections("UTC", 0))
    other = Projector(store, tmp_path / "p.db", default_projections("UTC", 0))
    real_read = first._read
    raced: list[int] = []

    def read_then_race(after: int, batch: int):  # type: ignore[no-untyped-def]
        events = real_read(after, batch)
        if not raced:
            raced.append(other.catch_up())
        return events

    monkeypatch.setattr(first, "_read", read_then_race)
    first.catch_up()
    assert raced == [len(history())]
    got = dump(first.conn)
    first.close()
    other.close()
    assert got == build(store, tmp_path / "after.db", batch=1000, event_by_event=False)


def test_child_ends_when_its_parent_dies(tmp_path: Path) -> None:
    """A parent killed mid-import leaves no projector behind writing the projections."""
    script = textwrap.dedent(f"""
        import os, sys, time
        from pathlib import Path
        from tapestryd.events import EventStore
        from tapestryd.projections import default_projections
        from tapestryd.projections.follower import Follower
        from tapestryd.projections.runner import follow
        store = EventStore(Path({str(tmp_path / 'events.db')!r}))
        follower = Follower(store.path, Path({str(tmp_path / 'p.db')!r}), default_projections("UTC", 0), 0.0, follow)
        while not follower._started:
            time.sleep(0.01)
        print(follower._process.pid, flush=True)
        time.sleep(1.0)
        os._exit(9)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    child = int(out.stdout.split()[0])
    deadline = time.monotonic() + 20.0
    while time.monotonic() < deadline and _running(child):
        time.sleep(0.05)
    assert not _running(child)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"


def _ingest_op(home: Path, monkeypatch: pytest.MonkeyPatch, follow_after: float) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """The ingest operation (as the CLI without a daemon runs it) on the whole corpus: receipt and rows."""
    from tapestryd.config import load_settings
    from tapestryd.operations.runtime import Runtime
    from tapestryd.operations.testing import run_json
    from tapestryd.projections import runner

    monkeypatch.setenv("TAPESTRY_HOME", str(home))
    monkeypatch.setattr(runner, "FOLLOW_AFTER", follow_after)
    with Runtime.open(load_settings(home)) as rt:
        receipt = run_json("ingest", rt, {"paths": [str(CORPUS)]})
        assert not any(rt.projector.lag().values())
        return receipt, dump(rt.projector.conn)


def test_ingest_op_with_a_follower_equals_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not CORPUS.exists():
        pytest.skip(f"shared corpus missing at {CORPUS}")
    followed = _ingest_op(tmp_path / "followed", monkeypatch, 0.0)
    alone = _ingest_op(tmp_path / "alone", monkeypatch, 3600.0)
    assert followed[0] == alone[0] and followed[0]["totals"]["messages_new"] > 0
    assert followed[1] == alone[1]
