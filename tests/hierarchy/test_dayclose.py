"""The DayClosed appender: local midnight plus grace, catch-up after downtime, idempotence."""

from __future__ import annotations

from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from hierarchy_helpers import message, write_config

from tapestryd.clock import FixedClock
from tapestryd.operations.dayclose import close_days, last_closed_day, next_close_at
from tapestryd.operations.hierarchy_jobs import Host, close_days_job


def closed_days(runtime: Any) -> list[str]:
    return [r[0] for r in runtime.projector.conn.execute("SELECT date FROM closed_days ORDER BY date")]


def test_a_day_closes_at_local_midnight_plus_the_grace(home: Path, open_runtime: Any) -> None:
    """In Tokyo with 2 h grace, 3 March closes at 02:00 on 4 March local (17:00 UTC on 3 March)."""
    runtime = open_runtime(write_config(home, timezone_name="Asia/Tokyo"))
    runtime.store.append([message("chatgpt:c", "m", datetime(2026, 3, 2, 1, tzinfo=timezone.utc), "hi")])
    clock = FixedClock(datetime(2026, 3, 3, 16, 59, tzinfo=timezone.utc))
    assert close_days(runtime, clock) == 1 and closed_days(runtime) == ["2026-03-02"]
    clock.advance(60)
    assert close_days(runtime, clock) == 1 and closed_days(runtime) == ["2026-03-02", "2026-03-03"]
    assert next_close_at(clock.now(), ZoneInfo("Asia/Tokyo"), 7200) == datetime(2026, 3, 4, 17, tzinfo=timezone.utc)


def test_days_missed_while_down_close_at_start_once(home: Path, open_runtime: Any) -> None:
    """A week of downtime closes every missed day in one go; running again appends nothing."""
    runtime = open_runtime(write_config(home))
    runtime.store.append([message("chatgpt:c", "m", datetime(2026, 1, 1, 12, tzinfo=timezone.utc), "hi")])
    clock = FixedClock(datetime(2026, 1, 9, 3, tzinfo=timezone.utc))
    host = Host.of_runtime(runtime)
    assert close_days_job(host, clock) == 8
    assert closed_days(runtime)[0] == "2026-01-01" and closed_days(runtime)[-1] == "2026-01-08"
    events = runtime.store.count()
    assert close_days_job(host, clock) == 0 and runtime.store.count() == events


def test_an_old_import_closes_its_days_too(home: Path, open_runtime: Any) -> None:
    """Messages from last year arriving today get their days closed on the next run."""
    runtime = open_runtime(write_config(home))
    clock = FixedClock(datetime(2026, 1, 9, 3, tzinfo=timezone.utc))
    runtime.store.append([message("chatgpt:c", "m", datetime(2026, 1, 7, 12, tzinfo=timezone.utc), "hi")])
    close_days(runtime, clock)
    runtime.store.append([message("chatgpt:old", "m", datetime(2025, 12, 30, 12, tzinfo=timezone.utc), "old")])
    assert close_days(runtime, clock) == 8
    assert runtime.projector.conn.execute("SELECT COUNT(*) FROM nodes WHERE closed = 0").fetchone()[0] == 3


def test_the_last_closed_day_respects_the_grace() -> None:
    """At 01:59 local the day before yesterday is the last closed; at 02:00 yesterday is."""
    utc = ZoneInfo("UTC")
    assert last_closed_day(datetime(2026, 5, 10, 1, 59, tzinfo=timezone.utc), utc, 7200) == date(2026, 5, 8)
    assert last_closed_day(datetime(2026, 5, 10, 2, 0, tzinfo=timezone.utc), utc, 7200) == date(2026, 5, 9)
