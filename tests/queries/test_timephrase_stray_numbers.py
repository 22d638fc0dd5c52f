"""A number just before a time phrase is a search word ("python 3.12", "route 66"), not part of the date."""

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
