"""The supported dates (1970-01-01 … 2999-12-31): user text outside them is one clear error."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from tapestryd.clock import (SUPPORTED_FROM, SUPPORTED_UNTIL, UnsupportedDateError, check_supported,
                             parse_period_key)
from tapestryd.errors import TapestryError
from tapestryd.queries.timephrase import find_time_phrase, parse_when

KIRITIMATI = ZoneInfo("Pacific/Kiritimati")  # UTC+14, the zone furthest ahead
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
RANGE = "1970-01-01 to 2999-12-31"


def test_the_range_ends_are_inclusive_and_instants_are_judged_by_their_utc_day() -> None:
    """Both end days pass; the day before and after fail, naming the value and the range."""
    assert (SUPPORTED_FROM, SUPPORTED_UNTIL) == (date(1970, 1, 1), date(2999, 12, 31))
    check_supported(SUPPORTED_FROM, "first")
    check_supported(SUPPORTED_UNTIL, "last")
    check_supported(datetime(3000, 1, 1, 5, tzinfo=KIRITIMATI), "UTC 2999-12-31 15:00")
    for value in (SUPPORTED_FROM - timedelta(days=1), SUPPORTED_UNTIL + timedelta(days=1), datetime(1, 1, 1)):
        with pytest.raises(UnsupportedDateError, match=f"'x' is outside the supported dates {RANGE}"):
            check_supported(value, "'x'")


def test_the_error_is_both_a_tapestry_error_and_a_value_error() -> None:
    """The CLI prints it as one line; parsers that catch ValueError reject it as well."""
    with pytest.raises(TapestryError):
        check_supported(date(9999, 1, 1), "y")
    with pytest.raises(ValueError):
        check_supported(date(9999, 1, 1), "y")


@pytest.mark.parametrize("key", ["9999", "0001", "9999-12", "9999-12-31", "9999-12-31w", "0001-01-01", "1969-12-31"])
def test_period_keys_outside_the_range_are_refused_before_any_arithmetic(key: str) -> None:
    """9999-12-31w would overflow computing its week's end; it is refused first."""
    with pytest.raises(UnsupportedDateError, match=f"'{key}' is outside"):
        parse_period_key(key)


@pytest.mark.parametrize("when", ["9999", "9999-12-31", "0001-01-01", "in 9999", "2024-01-01..9999-12-31"])
def test_whole_strings_outside_the_range_are_clear_errors(when: str) -> None:
    """recall / context --date / --until values: the message names the supported dates."""
    with pytest.raises(UnsupportedDateError, match=RANGE):
        parse_when(when, now=NOW, tz=KIRITIMATI)


def test_the_last_supported_day_is_read_in_the_zone_furthest_ahead() -> None:
    """2999-12-31 and 2999 give ranges (no overflow at the edge, even 14 hours ahead of UTC)."""
    day = parse_when("2999-12-31", now=NOW, tz=KIRITIMATI)
    assert day.until == datetime(2999, 12, 31, 10, tzinfo=timezone.utc)
    assert parse_when("2999", now=NOW, tz=KIRITIMATI).last == date(2999, 12, 31)
    assert parse_when("1970-01-01", now=NOW, tz=ZoneInfo("America/Los_Angeles")).first == date(1970, 1, 1)


def test_a_query_phrase_out_of_range_is_an_error_but_a_bare_number_is_a_word() -> None:
    """'x in 9999' names a time and is refused; 'port 9999' searches for the number."""
    with pytest.raises(UnsupportedDateError, match=f"'in 9999' is outside the supported dates {RANGE}"):
        find_time_phrase("x in 9999", now=NOW, tz=KIRITIMATI)
    assert find_time_phrase("port 9999", now=NOW, tz=KIRITIMATI) == (None, "port 9999")


@pytest.mark.parametrize("query", ["bakery since 9999", "bakery after 9999", "bakery before 9999", "notes until 0001"])
def test_an_open_range_word_makes_a_bare_number_a_time(query: str) -> None:
    """'since 9999' is a time (and out of range), not a word to search for silently."""
    with pytest.raises(UnsupportedDateError, match=f"is outside the supported dates {RANGE}"):
        find_time_phrase(query, now=NOW, tz=KIRITIMATI)


def test_after_a_year_is_an_open_range() -> None:
    """'after 2024' (dateparser hands the word back with the year) is read, not left as words."""
    found, rest = find_time_phrase("bakery after 2024", now=NOW, tz=ZoneInfo("UTC"))
    assert found is not None and rest == "bakery" and found.phrase == "after 2024"
    assert found.first == date(2024, 1, 1) and found.until is None
