"""Rolling windows ("last 2 months", "past 3 days", "in the last 3 months"), open-ended
ranges ("2025-06-14.."), impossible dates ("on 2025-02-30"), and the calendar periods
that stay as they were ("last week", "last month", "last year")."""

from __future__ import annotations

from datetime import date, datetime, time, timezone
from zoneinfo import ZoneInfo

import pytest

from tapestryd.errors import TapestryError
from tapestryd.queries.timephrase import find_time_phrase, parse_when

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 11, 29, 21, 0, tzinfo=timezone.utc)  # Sunday 22:00 in Paris


def midnight(day: date) -> datetime:
    return datetime.combine(day, time(), tzinfo=PARIS)


@pytest.mark.parametrize("query, first, rest", [
    ("garlic last 2 months", date(2026, 9, 29), "garlic"),
    ("python in the last 3 months", date(2026, 8, 29), "python"),
    ("python last 2 weeks", date(2026, 11, 15), "python"),
    ("the last 5 days", date(2026, 11, 24), ""),
    ("python past 3 days", date(2026, 11, 26), "python"),
    ("rust over the past two years", date(2024, 11, 29), "rust"),
    ("past week", date(2026, 11, 22), ""),
    ("bread in the past month", date(2026, 10, 29), "bread"),
])
def test_last_n_units_runs_from_that_day_n_units_back_up_to_now(query: str, first: date, rest: str) -> None:
    """From local midnight of the same calendar day N units ago, open-ended up to now."""
    found, left = find_time_phrase(query, now=NOW, tz=PARIS, first_day_of_week=0)
    assert found is not None and left == rest
    assert (found.since, found.until, found.first, found.last) == (midnight(first), None, first, date(2026, 11, 29))
    assert found.label().endswith("→ now (Europe/Paris)")


def test_a_month_back_from_the_31st_lands_on_the_last_day_of_a_shorter_month() -> None:
    found = parse_when("last 1 month", now=datetime(2026, 3, 31, 12, tzinfo=PARIS), tz=PARIS)
    assert found.first == date(2026, 2, 28)


def test_last_n_hours_starts_n_hours_before_now() -> None:
    found = parse_when("past 24 hours", now=NOW, tz=PARIS)
    assert found.since == datetime(2026, 11, 28, 21, 0, tzinfo=timezone.utc) and found.until is None


@pytest.mark.parametrize("query", ["python last 100 years", "last 5000 years", "last 9999999 days"])
def test_a_window_reaching_before_1970_is_clamped_to_the_first_supported_day(query: str) -> None:
    found, _ = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and found.first == date(1970, 1, 1) and found.since == midnight(date(1970, 1, 1))


@pytest.mark.parametrize("phrase, first, last", [
    ("last week", date(2026, 11, 16), date(2026, 11, 22)),
    ("last month", date(2026, 10, 1), date(2026, 10, 31)),
    ("last year", date(2025, 1, 1), date(2025, 12, 31)),
])
def test_last_unit_without_a_number_is_still_the_previous_calendar_period(phrase: str, first: date,
                                                                          last: date) -> None:
    found = parse_when(phrase, now=NOW, tz=PARIS, first_day_of_week=0)
    assert (found.first, found.last, found.granularity) == (first, last, phrase.split()[1])


@pytest.mark.parametrize("query, rest", [("python 2025-06-14..", "python"), ("2025-06-14..", "")])
def test_an_open_ended_range_runs_from_its_start_up_to_now(query: str, rest: str) -> None:
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and left == rest
    assert (found.since, found.until, found.first, found.last) == (
        midnight(date(2025, 6, 14)), None, date(2025, 6, 14), date(2026, 11, 29))


def test_parse_when_reads_open_ends_on_either_side() -> None:
    after = parse_when("2025-06-14..", now=NOW, tz=PARIS)
    before = parse_when("..2025-06", now=NOW, tz=PARIS)
    assert (after.since, after.until) == (midnight(date(2025, 6, 14)), None)
    assert (before.since, before.until, before.last) == (None, midnight(date(2025, 7, 1)), date(2025, 6, 30))
    with pytest.raises(TapestryError, match="cannot read '..'"):
        parse_when("..", now=NOW, tz=PARIS)


def test_an_ellipsis_after_a_date_is_not_an_open_range() -> None:
    found, _ = find_time_phrase("on 2025-06-14... then", now=NOW, tz=PARIS)
    assert found is not None and (found.first, found.last) == (date(2025, 6, 14), date(2025, 6, 14))


@pytest.mark.parametrize("query, named", [("python on 2025-02-30", "'on 2025-02-30'"),
                                          ("2025-02-30", "'2025-02-30'"),
                                          ("2025-04-31..2025-05-02", "'2025-04-31'")])
def test_an_impossible_date_is_one_error_naming_it(query: str, named: str) -> None:
    with pytest.raises(TapestryError) as caught:
        find_time_phrase(query, now=NOW, tz=PARIS)
    assert str(caught.value).startswith(f"{named} is not a valid date")
    assert "\n" not in str(caught.value)
    with pytest.raises(TapestryError, match="is not a valid date"):
        parse_when(query.removeprefix("python "), now=NOW, tz=PARIS)


def test_hours_reaching_before_1970_are_clamped_too() -> None:
    found = parse_when("last 99999999999 hours", now=NOW, tz=PARIS)
    assert found.since == midnight(date(1970, 1, 1)) and found.first == date(1970, 1, 1)


@pytest.mark.parametrize("query, why", [("the 2025-13-01 thing", "months run from 01 to 12"),
                                        ("0000-02-30", "years start at 0001"),
                                        ("since 2024-02-30", "February 2024 has 29 days")])
def test_the_error_says_why_the_date_does_not_exist(query: str, why: str) -> None:
    with pytest.raises(TapestryError, match=why):
        find_time_phrase(query, now=NOW, tz=PARIS)
