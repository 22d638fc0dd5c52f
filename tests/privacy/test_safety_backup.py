"""Backups with the online backup API, their rotation, restore, and verify."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import threading
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from privacy_helpers import at, message, record, texts
from typer.testing import CliRunner

import tapestryd.cli.safety  # noqa: F401  (registers the commands)
from tapestryd.cli.app import app
from tapestryd.config import Settings
from tapestryd.daemon.server import SocketServer
from tapestryd.errors import StoreLockedError, TapestryError
from tapestryd.events.store import EventStore
from tapestryd.operations import backup as backups
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.lock import WriterLock
from tapestryd.operations.requests import RestoreRequest, VerifyRequest
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.paths import paths_for


def _fill(settings: Settings, n: int, start: int = 0) -> None:
    with Runtime.open(settings) as rt:
        record(rt, *(message(f"claude-code:s{i % 3}", str(i), f"message number {i}", at("2025-01-01"))
                     for i in range(start, start + n)))


def _count(db: Path) -> int:
    with EventStore(db, readonly=True) as store:
        return store.count()


def test_backup_is_a_private_consistent_copy(settings: Settings) -> None:
    """The copy holds the log as it was, is mode 0600, and later appends do not reach it."""
    _fill(settings, 50)
    with Runtime.open(settings) as rt:
        result = run_json("backup", rt)
    copy = Path(result["backup"]["path"])
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert backups.check_backup(copy) == 50
    _fill(settings, 10, start=50)
    assert _count(copy) == 50 and _count(paths_for(settings).events_db) == 60


def test_backup_while_the_log_is_written(settings: Settings) -> None:
    """An online backup taken during appends is intact and holds a prefix of the log."""
    _fill(settings, 10)
    paths = paths_for(settings)
    stop = threading.Event()

    def writer() -> None:
        with Runtime.open(settings) as rt:
            i = 1000
            while not stop.is_set():
                rt.store.append([message("claude-code:w", str(i), "x" * 500, at("2025-01-02"))])
                i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        copies = [backups.backup_log(paths.events_db, paths.backups) for _ in range(5)]
    finally:
        stop.set()
        thread.join()
    counts = [backups.check_backup(c.path) for c in copies]
    assert counts == sorted(counts) and counts[0] >= 10


def _stamp(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 4, 0, tzinfo=timezone.utc)


def test_rotation_keeps_seven_days_and_four_weeks(settings: Settings) -> None:
    """40 nightly backups shrink to the last 7 days plus the newest of the 4 last weeks."""
    paths = paths_for(settings)
    _fill(settings, 1)
    first = date(2025, 3, 3)  # a Monday
    one = backups.backup_log(paths.events_db, paths.backups, now=_stamp(first))
    for n in range(1, 40):  # copies named as nightly backups would be (rotation reads the names)
        shutil.copy(one.path, paths.backups / f"events-{_stamp(first + timedelta(days=n)):%Y%m%dT%H%M%SZ}.db")
    safety = backups.backup_log(paths.events_db, paths.backups, now=_stamp(first), label="pre-compact")
    backups.prune_backups(paths.backups, tz=ZoneInfo("UTC"), first_day_of_week=0)
    kept = {b.taken_at.date() for b in backups.list_backups(paths.backups) if b.label == "events"}
    expected = {date(2025, 4, d) for d in range(5, 12)} | {date(2025, 3, 30), date(2025, 3, 23)}
    assert kept == expected
    assert safety.path.exists()


def test_restore_replaces_the_log_and_rebuilds(settings: Settings) -> None:
    """Restoring an older backup brings its events back and keeps the replaced log aside."""
    _fill(settings, 20)
    paths = paths_for(settings)
    copy = backups.backup_log(paths.events_db, paths.backups).path
    _fill(settings, 5, start=20)
    result = run_here(settings, RestoreRequest(str(copy))).to_json()
    assert (result["last_seq"], result["replayed"]) == (20, 20)
    assert _count(paths.events_db) == 20 and _count(Path(str(result["previous"]))) == 25
    with Runtime.open(settings) as rt:
        assert len(texts(rt)) == 20
    assert run_here(settings, VerifyRequest()).to_json()["ok"]


def test_restore_refuses_while_the_home_is_locked(settings: Settings) -> None:
    """A daemon (or any writer) holding the lock makes restore refuse, naming its pid."""
    _fill(settings, 3)
    paths = paths_for(settings)
    copy = backups.backup_log(paths.events_db, paths.backups).path
    with WriterLock(paths.lock_file, "daemon"):
        with pytest.raises(StoreLockedError, match=f"daemon \\(pid {os.getpid()}\\)"):
            run_here(settings, RestoreRequest(str(copy))).to_json()
    assert _count(paths.events_db) == 3


def test_restore_command_refuses_while_a_daemon_answers(settings: Settings) -> None:
    """tapestryctl restore asks the socket first and refuses when a daemon answers."""
    _fill(settings, 3)
    paths = paths_for(settings)
    copy = backups.backup_log(paths.events_db, paths.backups).path
    server = SocketServer(paths.socket, lambda op, args: {"daemon": {"pid": 4242}})
    server.start()
    try:
        result = CliRunner().invoke(app, ["restore", str(copy)])
    finally:
        server.stop()
    assert result.exit_code != 0
    assert "tapestryd is running (pid 4242)" in str(result.exception)


def test_restore_rejects_a_damaged_backup(settings: Settings, tmp_path: Path) -> None:
    """A file that is not an intact log is refused and the current log is left alone."""
    _fill(settings, 4)
    junk = tmp_path / "events-20250101T000000Z.db"
    junk.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
    with pytest.raises(TapestryError, match="events-20250101T000000Z.db"):
        run_here(settings, RestoreRequest(str(junk))).to_json()
    assert _count(paths_for(settings).events_db) == 4


def test_verify_reports_a_healthy_log(settings: Settings) -> None:
    """Every check passes on a fresh log; the report names the counts."""
    _fill(settings, 12)
    report = run_here(settings, VerifyRequest()).to_json()
    assert report["ok"] and (report["events"], report["last_seq"]) == (12, 12)
    assert [c["name"] for c in report["checks"]] == ["integrity", "seq", "payloads", "checkpoints", "archive", "modes"]


def test_verify_finds_bad_payloads_sequence_and_checkpoints(settings: Settings) -> None:
    """A payload that does not decode, a lowered sequence and a checkpoint past the log all fail."""
    _fill(settings, 6)
    paths = paths_for(settings)
    with sqlite3.connect(paths.events_db) as conn:
        conn.execute("UPDATE events SET payload = '{not json' WHERE seq = 4")
        conn.execute("UPDATE sqlite_sequence SET seq = 2 WHERE name = 'events'")
    with sqlite3.connect(paths.projections_db) as conn:
        conn.execute("UPDATE checkpoints SET seq = 99")
    report = run_here(settings, VerifyRequest()).to_json()
    failed = {c["name"]: c for c in report["checks"] if not c["ok"]}
    assert not report["ok"] and set(failed) == {"seq", "payloads", "checkpoints"}
    assert any("seq 4" in p for p in failed["payloads"]["problems"])
    assert "rebuild" in failed["checkpoints"]["detail"]


def test_verify_command_fails_on_a_corrupt_file(settings: Settings) -> None:
    """Overwritten pages make integrity_check fail; the command exits 1 with a clear report."""
    _fill(settings, 200)
    db = paths_for(settings).events_db
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db.read_bytes())
    data[8192:12288] = os.urandom(4096)
    db.write_bytes(bytes(data))
    result = CliRunner().invoke(app, ["verify"])
    assert result.exit_code == 1
    assert "FAIL" in result.output and "verify FAILED" in result.output


def test_nightly_job_backs_up_beside_a_running_daemon(settings: Settings) -> None:
    """The scheduled backup runs while the service holds the home, and status shows it."""
    from tapestryd.daemon.jobs import backup_nightly
    from tapestryd.daemon.service import Service

    _fill(settings, 5)
    service = Service(settings)
    service.start()
    try:
        assert "backup" in {job.id for job in service.scheduler.get_jobs()}  # type: ignore[union-attr]
        backup_nightly(service)
        job = service.snapshot()["jobs"]["backup"]["result"]
    finally:
        service.stop()
    copy = Path(job["path"])
    assert backups.check_backup(copy) >= 5
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT COUNT(*) FROM events WHERE type = 'MessageRecorded'").fetchone()[0] == 5
