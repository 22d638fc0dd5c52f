"""Local periods: days in the configured zone, weeks split at month boundaries, keys."""

from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

from tapestryd.clock import (FixedClock, Period, day_close_at, local_date, parse_period_key, period_of, utc_range,
                             week_period)


def test_late_evening_in_tokyo_is_that_local_day() -> None:
    """23:30 in Asia/Tokyo is 14:30 UTC the same day; a UTC day would be wrong at 00:30 JST."""
    ts = datetime(2026, 3, 4, 23, 30, tzinfo=ZoneInfo("Asia/Tokyo"))
    assert local_date(ts, ZoneInfo("Asia/Tokyo")) == date(2026, 3, 4)
    early = datetime(2026, 3, 5, 0, 30, tzinfo=ZoneInfo("Asia/Tokyo")).astimezone(timezone.utc)
    assert early.date() == date(2026, 3, 4) and local_date(early, ZoneInfo("Asia/Tokyo")) == date(2026, 3, 5)


def test_a_week_crossing_a_month_splits_in_two() -> None:
    """Mon 2026-03-30 .. Sun 2026-04-05 becomes 03-30..03-31 and 04-01..04-05."""
    assert week_period(date(2026, 3, 31), 0) == Period(2, date(2026, 3, 30), date(2026, 3, 31))
    assert week_period(date(2026, 4, 2), 0) == Period(2, date(2026, 4, 1), date(2026, 4, 5))


def test_weeks_start_on_the_configured_day() -> None:
    """With Sunday first (6), Sunday 2026-03-08 starts a week ending Saturday 03-14."""
    assert week_period(date(2026, 3, 10), 6) == Period(2, date(2026, 3, 8), date(2026, 3, 14))


def test_keys_round_trip_and_parents_chain() -> None:
    """Every level's key parses back to its period; a day's parents reach its year."""
    day = period_of(1, date(2026, 3, 31))
    chain = [day]
    while (parent := chain[-1].parent(0)) is not None:
        chain.append(parent)
    assert [p.key for p in chain] == ["2026-03-31", "2026-03-30w", "2026-03", "2026"]
    assert all(parse_period_key(p.key) == p for p in chain)


def test_day_closes_at_local_midnight_plus_grace() -> None:
    """2026-03-04 in Tokyo closes at 2026-03-05 02:00 JST = 2026-03-04 17:00 UTC with 2 h grace."""
    assert day_close_at(date(2026, 3, 4), ZoneInfo("Asia/Tokyo"), 7200) == datetime(2026, 3, 4, 17, tzinfo=timezone.utc)


def test_utc_range_covers_a_dst_day() -> None:
    """The spring-forward day in Berlin is 23 hours long."""
    lo, hi = utc_range(date(2026, 3, 29), date(2026, 3, 29), ZoneInfo("Europe/Berlin"))
    assert (hi - lo).total_seconds() == 23 * 3600


def test_fixed_clock_advances() -> None:
    clock = FixedClock(datetime(2026, 1, 1))
    clock.advance(90)
    assert clock.now() == datetime(2026, 1, 1, 0, 1, 30, tzinfo=timezone.utc)
