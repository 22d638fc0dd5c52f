"""Ranges in queries ("between A and B", "from A to B", "A..B"), reversed ranges, and words
that only look like times ("march of progress", "a week")."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from tapestryd.errors import TapestryError
from tapestryd.queries.timephrase import find_time_phrase, parse_when

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)  # a Sunday; "November" alone would be 2026-11


@pytest.mark.parametrize("query, phrase, first, last, rest", [
    ("gmail between November and December 2024", "between November and December 2024",
     date(2024, 11, 1), date(2024, 12, 31), "gmail"),
    ("from November 2024 to December 2024", "from November 2024 to December 2024",
     date(2024, 11, 1), date(2024, 12, 31), ""),
    ("gmail 2024-12-01..2024-12-05 filters", "2024-12-01..2024-12-05", date(2024, 12, 1), date(2024, 12, 5),
     "gmail filters"),
    ("invoices from 2024-12-01 to 2024-12-05", "from 2024-12-01 to 2024-12-05", date(2024, 12, 1),
     date(2024, 12, 5), "invoices"),
    ("between March 3 and March 10 2025 rust", "between March 3 and March 10 2025", date(2025, 3, 3),
     date(2025, 3, 10), "rust"),
])
def test_a_range_in_a_query_runs_from_its_first_start_to_its_last_end(query: str, phrase: str, first: date,
                                                                       last: date, rest: str) -> None:
    """The first end borrows the second's year when it has none; the phrase is echoed whole."""
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and found.granularity == "range"
    assert (found.phrase, found.first, found.last, left) == (phrase, first, last, rest)
    assert found.since == datetime.combine(first, time(), tzinfo=PARIS)
    assert found.until == datetime.combine(last + timedelta(days=1), time(), tzinfo=PARIS)


@pytest.mark.parametrize("query", ["march of progress", "a week", "an hour of work", "error from server to client",
                                   "between us and them"])
def test_words_that_only_look_like_times_stay_words(query: str) -> None:
    """A lone month followed by 'of' and a word, an article with a unit, and ranges of non-times."""
    assert find_time_phrase(query, now=NOW, tz=PARIS) == (None, query)


def test_a_month_of_a_year_and_a_week_ago_are_still_times() -> None:
    """The new rules leave 'march of 2024' and 'a week ago' as they were read."""
    found, _ = find_time_phrase("march of 2024", now=NOW, tz=PARIS)
    assert found is not None and (found.first, found.last) == (date(2024, 3, 1), date(2024, 3, 31))
    found, _ = find_time_phrase("a week ago", now=NOW, tz=PARIS)
    assert found is not None and found.granularity == "week"


@pytest.mark.parametrize("text", ["2024-12-31..2024-01-01", "between 2024-12-06 and 2024-12-01"])
def test_a_range_that_ends_before_it_starts_is_refused(text: str) -> None:
    """Reversed ranges are a mistake, named with both ends, not an empty answer."""
    with pytest.raises(TapestryError, match="before it starts .*put the earlier date first"):
        parse_when(text, now=NOW, tz=PARIS)


def test_a_one_day_range_is_that_day() -> None:
    """2024-12-05..2024-12-05 is the whole local day."""
    found = parse_when("2024-12-05..2024-12-05", now=NOW, tz=PARIS)
    assert found.label() == "2024-12-05 00:00 → 2024-12-06 00:00 (Europe/Paris)"
