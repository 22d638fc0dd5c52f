"""Time phrases read against a fixed clock in fixed timezones: every phrase of the issue."""

from __future__ import annotations

from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from tapestryd.clock import FixedClock
from tapestryd.errors import TapestryError
from tapestryd.queries.timephrase import find_time_phrase, parse_when

PARIS = ZoneInfo("Europe/Paris")
TOKYO = ZoneInfo("Asia/Tokyo")
# Wednesday 4 March 2026, 15:30 in Paris (14:30 UTC)
CLOCK = FixedClock(datetime(2026, 3, 4, 14, 30, tzinfo=timezone.utc))


def local(ts: datetime | None, tz: ZoneInfo = PARIS) -> str:
    assert ts is not None
    return ts.astimezone(tz).strftime("%Y-%m-%d %H:%M")


@pytest.mark.parametrize("query, phrase, since, until, rest", [
    ("docker error yesterday", "yesterday", "2026-03-03 00:00", "2026-03-04 00:00", "docker error"),
    ("last Tuesday evening deploy", "last Tuesday evening", "2026-03-03 18:00", "2026-03-04 00:00", "deploy"),
    ("this morning tests", "this morning", "2026-03-04 06:00", "2026-03-04 12:00", "tests"),
    ("refactor 3 days ago", "3 days ago", "2026-03-01 00:00", "2026-03-02 00:00", "refactor"),
    ("postgres last week", "last week", "2026-02-23 00:00", "2026-03-02 00:00", "postgres"),
    ("sqlite bug in July", "in July", "2025-07-01 00:00", "2025-08-01 00:00", "sqlite bug"),
    ("July 2025 notes", "July 2025", "2025-07-01 00:00", "2025-08-01 00:00", "notes"),
    ("2026-03-04 design", "2026-03-04", "2026-03-04 00:00", "2026-03-05 00:00", "design"),
])
def test_each_phrase_becomes_a_local_range(query: str, phrase: str, since: str, until: str, rest: str) -> None:
    """Each phrase of the issue is found, read in Paris time relative to the clock, and cut out."""
    found, left = find_time_phrase(query, now=CLOCK.now(), tz=PARIS)
    assert found is not None and found.phrase == phrase
    assert (local(found.since), local(found.until), left) == (since, until, rest)


def test_since_march_runs_from_the_first_of_march_until_now() -> None:
    """'since March' is open-ended: from the start of this March, no upper bound."""
    found, rest = find_time_phrase("notes since March", now=CLOCK.now(), tz=PARIS)
    assert found is not None and found.phrase == "since March" and rest == "notes"
    assert local(found.since) == "2026-03-01 00:00" and found.until is None
    assert (found.first, found.last) == (date(2026, 3, 1), date(2026, 3, 4))


def test_before_a_month_ends_where_it_starts() -> None:
    """'before July' ends at the start of the most recent July."""
    found, _ = find_time_phrase("before July", now=CLOCK.now(), tz=PARIS)
    assert found is not None and found.since is None and local(found.until) == "2025-07-01 00:00"


@pytest.mark.parametrize("word", ["until", "till"])
def test_until_a_day_includes_that_day(word: str) -> None:
    """'until 2024-05-31' keeps the whole of 31 May, as --until does ('before' stops at its start)."""
    found, rest = find_time_phrase(f"lynx {word} 2024-05-31", now=CLOCK.now(), tz=PARIS)
    assert found is not None and rest == "lynx" and found.since is None
    assert local(found.until) == "2024-06-01 00:00" and found.last.isoformat() == "2024-05-31"


def test_a_week_follows_the_configured_first_day() -> None:
    """With weeks starting on Sunday, last week is Sunday 22 Feb to Saturday 28 Feb."""
    found, _ = find_time_phrase("last week", now=CLOCK.now(), tz=PARIS, first_day_of_week=6)
    assert found is not None and (found.first, found.last) == (date(2026, 2, 22), date(2026, 2, 28))


def test_yesterday_is_the_local_day_not_the_utc_one() -> None:
    """At 00:30 on 5 March in Tokyo (15:30 UTC on the 4th), yesterday is 4 March in Tokyo."""
    clock = FixedClock(datetime(2026, 3, 4, 15, 30, tzinfo=timezone.utc))
    found, _ = find_time_phrase("yesterday", now=clock.now(), tz=TOKYO)
    assert found is not None and found.first == date(2026, 3, 4)
    assert found.since == datetime(2026, 3, 3, 15, 0, tzinfo=timezone.utc)


def test_a_day_across_a_dst_change_is_23_hours_long() -> None:
    """29 March 2026 in Paris (clocks go forward) spans 23 hours of UTC."""
    found = parse_when("2026-03-29", now=CLOCK.now(), tz=PARIS)
    assert found.since is not None and found.until is not None
    assert (found.until - found.since).total_seconds() == 23 * 3600


@pytest.mark.parametrize("query", ["how to sort a list", "I may fix it", "we talked about this", "error 404",
                                   "python 3.11 upgrade", "meeting at 10"])
def test_ordinary_words_are_not_read_as_times(query: str) -> None:
    """Words dateparser reads too eagerly ("we" as Wednesday, the verb "may") stay search words."""
    found, rest = find_time_phrase(query, now=CLOCK.now(), tz=PARIS)
    assert found is None and rest == query


def test_a_possessive_time_phrase_is_read() -> None:
    """"yesterday's logs" narrows to yesterday and searches for logs."""
    found, rest = find_time_phrase("yesterday's logs", now=CLOCK.now(), tz=PARIS)
    assert found is not None and found.phrase == "yesterday" and rest == "logs"


@pytest.mark.parametrize("when, first, last", [
    ("2026", date(2026, 1, 1), date(2026, 12, 31)),
    ("2026-02", date(2026, 2, 1), date(2026, 2, 28)),
    ("2026-03-30w", date(2026, 3, 30), date(2026, 3, 31)),
    ("2026-03-01..2026-03-15", date(2026, 3, 1), date(2026, 3, 15)),
    ("last week", date(2026, 2, 23), date(2026, 3, 1)),
    ("July 2025", date(2025, 7, 1), date(2025, 7, 31)),
])
def test_whole_strings_read_as_periods(when: str, first: date, last: date) -> None:
    """recall and --date accept period keys, ranges and phrases."""
    found = parse_when(when, now=CLOCK.now(), tz=PARIS)
    assert (found.first, found.last) == (first, last)


def test_text_that_is_not_a_time_is_a_clear_error() -> None:
    """A string with no time in it names itself and shows examples."""
    with pytest.raises(TapestryError, match="cannot read 'the braided rope'"):
        parse_when("the braided rope", now=CLOCK.now(), tz=PARIS)


def test_the_echo_shows_the_range_in_local_time() -> None:
    """The label a user sees gives local start and end and the zone."""
    found, _ = find_time_phrase("yesterday", now=CLOCK.now(), tz=PARIS)
    assert found is not None
    assert found.to_dict()["label"] == "2026-03-03 00:00 → 2026-03-04 00:00 (Europe/Paris)"
    assert found.to_dict()["since"] == "2026-03-02T23:00:00Z"
