"""Tester report 4 (items 2, 4, 10): a fractional count is an error naming the phrase, "A to B"
is a range, two time phrases in a query are read as their overlap or the later one (refused
in one --since/--until value), and --since/--until with a phrase search their overlap, said
in the 'reading' line."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timezone

import pytest
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.queries.reader import Reader
from tapestryd.queries.recall import recall
from tapestryd.queries.search import SearchFilters, search
from tapestryd.queries.timephrase import find_time_phrase, parse_when

NOW = datetime(2026, 11, 29, 12, tzinfo=PARIS)


def find(query: str):
    return find_time_phrase(query, now=NOW, tz=PARIS)


@pytest.mark.parametrize(("query", "message"), [
    ("garlic last 1.5 months", "'last 1.5 months': use a whole number of months, or days ('last 45 days')"),
    ("sqlite last 1.5 years", "'last 1.5 years': use a whole number of years, or months ('last 18 months')"),
    ("garlic last 2,5 weeks", "'last 2,5 weeks': use a whole number of weeks, or days ('last 18 days')"),
    ("in the past 0.5 hours", "'past 0.5 hours': use a whole number of hours"),
])
def test_a_fractional_count_is_one_error_naming_the_phrase(query: str, message: str) -> None:
    with pytest.raises(TapestryError) as raised:
        find(query)
    assert str(raised.value) == message
    with pytest.raises(TapestryError, match="use a whole number"):
        parse_when(query.removeprefix("garlic ").removeprefix("sqlite "), now=NOW, tz=PARIS)


@pytest.mark.parametrize(("query", "phrase", "first", "last"), [
    ("garlic 2026-10-01 to 2026-10-05", "2026-10-01 to 2026-10-05", "2026-10-01", "2026-10-05"),
    ("2026-09 to 2026-10 garlic", "2026-09 to 2026-10", "2026-09-01", "2026-10-31"),
    ("garlic November to December 2024", "November to December 2024", "2024-11-01", "2024-12-31"),
])
def test_a_to_b_without_from_is_a_range(query: str, phrase: str, first: str, last: str) -> None:
    found, rest = find(query)
    assert found is not None
    assert (found.phrase, found.first.isoformat(), found.last.isoformat()) == (phrase, first, last)
    assert rest == (query.replace(phrase, "").strip() or "")
    whole = parse_when(phrase, now=NOW, tz=PARIS)
    assert (whole.first.isoformat(), whole.last.isoformat()) == (first, last)


def test_to_between_words_is_not_a_range() -> None:
    found, rest = find("how to parse 2024-01-01 to iso")
    assert found is not None and found.phrase == "2024-01-01" and rest == "how to parse to iso"


def test_two_time_phrases_in_a_query_are_read_as_their_overlap() -> None:
    found, rest = find("garlic last 2 months 2026-10-02")
    assert found is not None and rest == "garlic"
    assert (found.first.isoformat(), found.last.isoformat()) == ("2026-10-02", "2026-10-02")
    assert "the overlap of 'last 2 months' and '2026-10-02'" in found.label()


def test_two_time_phrases_that_do_not_overlap_read_as_the_later() -> None:
    found, rest = find("garlic 2026-10-02 2025-03-01")
    assert found is not None and rest == "garlic"
    assert (found.first.isoformat(), found.last.isoformat()) == ("2026-10-02", "2026-10-02")
    assert "'2026-10-02' and '2025-03-01' do not overlap: read as '2026-10-02'" in found.label()


def test_two_time_phrases_as_one_when_are_refused_naming_both() -> None:
    with pytest.raises(TapestryError, match="the query holds two time phrases, 'yesterday' and '2026-10-02'"):
        parse_when("yesterday 2026-10-02", now=NOW, tz=PARIS)


@pytest.fixture
def reader(history: History) -> Reader:
    history.message("claude-ai:garlic", datetime(2026, 10, 3, 10, tzinfo=PARIS), "garlic soup", agent="claude")
    history.message("claude-ai:garlic", datetime(2026, 11, 10, 10, tzinfo=PARIS), "garlic bread", agent="claude")
    history.commit()
    return Reader.open(load_settings(history.settings.home))


def test_recall_reads_a_to_b_and_refuses_fractions(history: History) -> None:
    history.commit()
    reader = Reader.open(load_settings(history.settings.home))
    answer = recall(reader, "2026-10-01 to 2026-10-05", now=NOW)
    assert (answer["range"]["first"], answer["range"]["last"]) == ("2026-10-01", "2026-10-05")
    assert answer["periods"] == ["L2:2026-10-01w", "L1:2026-10-05"]
    with pytest.raises(TapestryError, match=r"^'last 1.5 months': use a whole number of months"):
        recall(reader, "last 1.5 months", now=NOW)


def test_a_phrase_and_since_search_their_overlap(reader: Reader) -> None:
    since = datetime(2026, 11, 1, tzinfo=PARIS).astimezone(timezone.utc)
    result = search(reader, "garlic last 2 months", SearchFilters(since=since), now=NOW)
    assert [h["snippet"] for h in result["hits"]] == ["[garlic] bread"]
    assert result["time"]["since"] == "2026-10-31T23:00:00Z" and result["time"]["until"] is None
    assert result["time"]["label"] == ("2026-11-01 00:00 → now (Europe/Paris), the part within --since "
                                       "2026-11-01 00:00 ('last 2 months' alone: 2026-09-29 00:00 → now)")
    wide = search(reader, "garlic last 2 months", SearchFilters(), now=NOW)
    assert len(wide["hits"]) == 2 and wide["terms"] == "garlic"
    until = datetime(2026, 9, 1, tzinfo=PARIS)
    overlap = r"'last 2 months' .* and --until \(before 2026-09-01 00:00\) do not overlap"
    with pytest.raises(TapestryError, match=overlap):
        search(reader, "garlic last 2 months", SearchFilters(until=until), now=NOW)


def test_the_cli_prints_the_combined_reading_line(reader: Reader) -> None:
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "search", "garlic 2026-10-01 to 2026-12-01",
                           "--since", "2026-11-01"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        "reading '2026-10-01 to 2026-12-01' as 2026-11-01 00:00 → 2026-12-02 00:00 (Europe/Paris), the part within "
        "--since 2026-11-01 00:00 ('2026-10-01 to 2026-12-01' alone: 2026-10-01 00:00 → 2026-12-02 00:00)")
    assert "garlic] bread" in done.stdout and "soup" not in done.stdout
