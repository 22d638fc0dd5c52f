"""Two time phrases one after the other ("in July in August") are read as the later one, like two apart.

dateparser finds nothing at all in such a run, so the query kept no time and its month names
were searched as words, with no reading echoed."""

from __future__ import annotations

from datetime import datetime

import pytest
from query_helpers import PARIS

from tapestryd.queries.timephrase import find_time_phrase

NOW = datetime(2026, 11, 29, 12, tzinfo=PARIS)


@pytest.mark.parametrize(("query", "first", "last", "rest", "note"), [
    ("garlic in July in August", "2026-08-01", "2026-08-31", "garlic",
     "'in July' and 'in August' do not overlap: read as 'in August'"),
    ("garlic in October and in September", "2026-10-01", "2026-10-31", "garlic and",
     "'in October' and 'in September' do not overlap: read as 'in October'"),
    ("pasta in March 2025 in June", "2026-06-01", "2026-06-30", "pasta",
     "'in March 2025' and 'in June' do not overlap: read as 'in June'"),
    ("garlic in 2025 in 2024", "2025-01-01", "2025-12-31", "garlic",
     "'in 2025' and 'in 2024' do not overlap: read as 'in 2025'"),
])
def test_two_phrases_in_a_row_read_as_the_later(query: str, first: str, last: str, rest: str, note: str) -> None:
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None, query
    assert (found.first.isoformat(), found.last.isoformat(), left) == (first, last, rest)
    assert note in found.label()


def test_one_phrase_of_two_calendar_words_stays_one() -> None:
    """The fallback reads only what dateparser missed: 'last Tuesday evening' is still one evening."""
    found, left = find_time_phrase("garlic last Tuesday evening", now=NOW, tz=PARIS)
    assert found is not None and left == "garlic" and found.granularity == "part"


@pytest.mark.parametrize(("query", "note"), [
    ("hike last week yesterday", "'last week' and 'yesterday' do not overlap: read as 'yesterday'"),
    ("hike yesterday last month", "'yesterday' and 'last month' do not overlap: read as 'yesterday'"),
    ("hike today 3 days ago", "'today' and '3 days ago' do not overlap: read as 'today'"),
])
def test_a_day_word_beside_a_period_is_two_phrases(query: str, note: str) -> None:
    """dateparser reads 'last week yesterday' as one day, the Saturday a week before yesterday (21 Nov), with
    no reading echoed; they are two phrases counted from today, so the later one is read and the note says so."""
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and left == "hike"
    assert found.first == found.last and found.first.isoformat() in ("2026-11-28", "2026-11-29")
    assert note in found.label()


def test_a_day_word_inside_its_period_is_their_overlap() -> None:
    """'yesterday this month' is yesterday, read as the overlap of both phrases."""
    found, left = find_time_phrase("hike yesterday this month", now=NOW, tz=PARIS)
    assert found is not None and left == "hike" and found.first.isoformat() == "2026-11-28"
    assert "the overlap of 'yesterday' and 'this month'" in found.label()


@pytest.mark.parametrize("query", ["garlic in October last year", "garlic last year in October",
                                   "garlic October last year"])
def test_a_month_without_a_year_beside_a_year_is_that_month_of_that_year(query: str) -> None:
    """'in October last year' is October 2025 (t15: it was read as the later of two phrases that do not
    overlap, October 2026, the wrong month)."""
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and left == "garlic"
    assert (found.first.isoformat(), found.last.isoformat()) == ("2025-10-01", "2025-10-31")
    assert "read in 'last year'" in found.label()


def test_two_periods_counted_from_today_are_two_phrases() -> None:
    """'this month last month' was read as one phrase with no note (t15); the two are read as the later, said so."""
    found, left = find_time_phrase("hike this month last month", now=NOW, tz=PARIS)
    assert found is not None and left == "hike"
    assert (found.first.isoformat(), found.last.isoformat()) == ("2026-11-01", "2026-11-30")
    assert "'this month' and 'last month' do not overlap: read as 'this month'" in found.label()


@pytest.mark.parametrize(("query", "first", "rest"), [
    ("hike tomorrow yesterday", "2026-11-28", "hike tomorrow"),
    ("hike yesterday tomorrow", "2026-11-28", "hike tomorrow"),
    ("hike tomorrow 3 days ago", "2026-11-26", "hike tomorrow"),
    ("hike yesterday and tomorrow", "2026-11-28", "hike and tomorrow"),
    ("hike tomorrow or yesterday", "2026-11-28", "hike tomorrow or"),
    ("hike tomorrow tomorrow yesterday", "2026-11-28", "hike tomorrow tomorrow"),
])
def test_tomorrow_beside_a_phrase_is_a_search_word(query: str, first: str, rest: str) -> None:
    """Alone, 'tomorrow' is a search word, never a time phrase; beside another, dateparser read both as one counted
    from tomorrow ('tomorrow yesterday' was 30 Nov, 'tomorrow 3 days ago' 3 Dec). The other is read alone."""
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and left == rest
    assert found.first.isoformat() == found.last.isoformat() == first
    assert found.phrase in ("yesterday", "3 days ago")  # the echo names the phrase read, no joining word
    assert find_time_phrase("hike tomorrow", now=NOW, tz=PARIS) == (None, "hike tomorrow")


def test_a_year_beside_a_period_counted_from_today_is_two_phrases() -> None:
    """'in 2025 last week' was read as one phrase, last week, with no word of 2025 (t16); 'python 2025 last week'
    already said the two do not overlap."""
    found, left = find_time_phrase("python in 2025 last week", now=NOW, tz=PARIS)
    assert found is not None and left == "python"
    assert (found.first.isoformat(), found.last.isoformat()) == ("2026-11-16", "2026-11-22")
    assert "'in 2025' and 'last week' do not overlap: read as 'last week'" in found.label()


@pytest.mark.parametrize("query", ["hike in 2025 tomorrow last week", "hike last week tomorrow in 2025",
                                   "hike in 2025 tomorrow yesterday"])
def test_tomorrow_between_two_phrases_is_a_search_word(query: str) -> None:
    """'in 2025 tomorrow last week' was read as one phrase counted from tomorrow, a day to come (7 Dec in
    search, recall and the MCP timeline), with no word of 2025: 'tomorrow' between two phrases is a search word
    too, and the two are read as two."""
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and left == "hike tomorrow"
    assert found.last <= NOW.date()
    assert "do not overlap" in found.label() and "2025" in found.label()


@pytest.mark.parametrize(("query", "note"), [
    ("python last year in 2024", "'last year' and 'in 2024' do not overlap: read as 'last year'"),
    ("python last week in 2026", "the overlap of 'last week' and 'in 2026'"),
    ("python yesterday 2025", "'yesterday' and '2025' do not overlap: read as 'yesterday'"),
])
def test_a_year_after_a_period_counted_from_today_is_two_phrases(query: str, note: str) -> None:
    """'last year in 2025' was read as one phrase, last year, with no word of 2025, while 'in 2025 last year'
    said the two do not overlap: the order of the two phrases no longer changes the reading."""
    found, left = find_time_phrase(query, now=NOW, tz=PARIS)
    assert found is not None and left == "python"
    assert note in found.label()
