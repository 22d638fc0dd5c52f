"""Numbers and joining words around time phrases: "python 3.12 last week" keeps 3.12 as words;
"A to now" is read whole."""

from __future__ import annotations

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from tapestryd.queries.timephrase import find_time_phrase

NOW = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)


@pytest.mark.parametrize(("query", "phrase", "rest", "since"), [
    ("python 3.12 last week", "last week", "python 3.12", "2026-11-16"),
    ("python 3.12 2025", "2025", "python 3.12", "2025-01-01"),
    ("python 3.12 november 2025", "november 2025", "python 3.12", "2025-11-01"),
    ("python 3.12 in 2024", "in 2024", "python 3.12", "2024-01-01"),
    ("route 66 last week", "last week", "route 66", "2026-11-16"),
    ("windows 11 yesterday", "yesterday", "windows 11", "2026-11-28"),
    ("meeting 12 november 2025", "12 november 2025", "meeting", "2025-11-12"),
])
def test_a_number_before_a_phrase_stays_a_search_word(query: str, phrase: str, rest: str, since: str) -> None:
    found, left = find_time_phrase(query, now=NOW, tz=ZoneInfo("UTC"))
    assert found is not None and found.phrase == phrase and left == rest
    assert found.since is not None and found.since.date().isoformat() == since


def test_a_count_before_a_unit_is_still_part_of_the_phrase() -> None:
    found, left = find_time_phrase("refactor 3 days ago", now=NOW, tz=ZoneInfo("UTC"))
    assert found is not None and found.phrase == "3 days ago" and left == "refactor"


@pytest.mark.parametrize(("query", "phrase", "since", "until"), [
    ("garlic from 2026-09-01 to now", "from 2026-09-01 to now", "2026-09-01", None),
    ("garlic march 2026 to now", "march 2026 to now", "2026-03-01", None),
    ("garlic from march to may", "from march to may", "2026-03-01", "2026-06-01"),
])
def test_ranges_to_now_and_to_may_are_read_whole(query: str, phrase: str, since: str, until: str | None) -> None:
    """'to now' leaves the range open up to now; 'may' after the joining word is the month."""
    found, left = find_time_phrase(query, now=NOW, tz=ZoneInfo("UTC"))
    assert found is not None and found.phrase == phrase and left == "garlic"
    assert found.since is not None and found.since.date().isoformat() == since
    assert (found.until.date().isoformat() if found.until else None) == until
