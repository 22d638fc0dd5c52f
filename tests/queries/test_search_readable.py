"""Search results a person (or an outside tool) can read: phrases, blank queries, source ids,
soft time narrowing, --now, and echoes of long queries."""

from __future__ import annotations

import json
import os
from datetime import datetime

import pytest
from cli_runner import tapestryctl
from query_helpers import NOW, PARIS, History

from tapestryd.cli.render import ECHO_CHARS, render_hits
from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search

MESSAGES = SearchFilters(level="messages")


@pytest.fixture
def reader(history: History) -> Reader:
    history.message("claude-ai:1b2c", datetime(2026, 3, 2, 9, tzinfo=PARIS), "complex searching of binary trees",
                    agent="claude-ai")
    history.message("claude-ai:1b2c", datetime(2026, 3, 2, 9, 5, tzinfo=PARIS), "we wrote a binary search over it",
                    role="assistant", agent="claude-ai")
    history.message("chatgpt:9f8e", datetime(2026, 1, 10, 9, tzinfo=PARIS), "sourdough starter notes", agent="chatgpt")
    history.commit()
    return Reader.open(load_settings(history.settings.home))


def matched(result: dict) -> list[str]:
    return [h["message_key"] for h in result["hits"] if not h["extra"].get("next_to_match")]


def test_a_quoted_phrase_is_a_phrase(reader: Reader) -> None:
    assert matched(search(reader, '"binary search"', MESSAGES, now=NOW)) == ["m2"]
    assert set(matched(search(reader, "binary search", MESSAGES, now=NOW))) == {"m1", "m2"}


def test_a_quoted_phrase_does_not_span_two_turns(history: History) -> None:
    """'…decimal or binary' then 'Search me…' hold "binary search" only across the turns: neither comes back for
    the phrase, not even next to a match (t16: both did, through their windows and block); the turn holding it
    does."""
    history.message("claude-ai:c1", datetime(2026, 3, 2, 9, tzinfo=PARIS), "do you count in decimal or binary",
                    agent="claude-ai")
    history.message("claude-ai:c1", datetime(2026, 3, 2, 9, 1, tzinfo=PARIS), "Search me, I like them all",
                    role="assistant", agent="claude-ai")
    history.message("chatgpt:c2", datetime(2026, 3, 5, 9, tzinfo=PARIS), "a binary search halves the range",
                    agent="chatgpt")
    history.commit()
    with Reader.open(load_settings(history.settings.home)) as reader:
        hits = search(reader, '"binary search"', MESSAGES, now=NOW)["hits"]
    assert [h["message_key"] for h in hits] == ["m3"], hits


def test_a_blank_query_is_an_error(reader: Reader, history: History) -> None:
    for blank in ("", "   "):
        with pytest.raises(TapestryError, match="search needs something to find"):
            search(reader, blank, now=NOW)
    env = {**os.environ, "TAPESTRY_HOME": str(history.settings.home)}
    done = tapestryctl("search", "", env=env)
    assert done.returncode != 0 and "search needs something to find" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_query_of_only_quotes_or_punctuation_is_an_error_not_no_matches(reader: Reader) -> None:
    for empty in ('""', '" "', "?!", "'' --"):
        with pytest.raises(TapestryError, match="search needs something to find.*got only"):
            search(reader, empty, now=NOW)
    assert matched(search(reader, '"sourdough"?', MESSAGES, now=NOW)) == ["m3"]


def test_hits_carry_the_sources_own_ids(reader: Reader) -> None:
    hit = search(reader, "sourdough", MESSAGES, now=NOW)["hits"][0]
    assert (hit["message_uuid"], hit["conversation_uuid"]) == ("m3", "9f8e")
    assert (hit["message_key"], hit["conversation"]) == ("m3", "chatgpt:9f8e")  # our keys stay beside them


def test_a_phrase_that_filters_everything_out_still_answers_marked(reader: Reader) -> None:
    """No sourdough yesterday: the best sourdough from other times comes back, marked, without --widen."""
    result = search(reader, "sourdough yesterday", MESSAGES, now=NOW)
    assert matched(result) == ["m3"] and result["outside"] == 1
    assert result["hits"][0]["extra"]["outside_range"] is True
    inside = search(reader, "binary yesterday", MESSAGES, now=datetime(2026, 3, 3, 12, tzinfo=PARIS))
    assert inside["outside"] == 0 and set(matched(inside)) == {"m1", "m2"}


def test_now_anchors_relative_phrases_on_the_command_line(reader: Reader, history: History) -> None:
    env = {**os.environ, "TAPESTRY_HOME": str(history.settings.home)}
    done = tapestryctl("search", "binary", "yesterday", "--now", "2026-03-03T12:00:00+01:00", "-f", "json", env=env)
    assert done.returncode == 0, done.stderr
    assert "2026-03-02 00:00 → 2026-03-03 00:00" in done.stderr
    assert {h["message_key"] for h in json.loads(done.stdout)} == {"m1", "m2"}


def test_a_bare_date_as_now_is_the_end_of_that_local_day(reader: Reader, history: History) -> None:
    env = {**os.environ, "TAPESTRY_HOME": str(history.settings.home)}
    done = tapestryctl("search", "binary", "yesterday", "--now", "2026-03-03", "-f", "json", env=env)
    assert done.returncode == 0, done.stderr
    assert "2026-03-02 00:00 → 2026-03-03 00:00" in done.stderr
    assert {h["message_key"] for h in json.loads(done.stdout)} == {"m1", "m2"}


def test_a_now_that_is_no_date_names_what_was_wrong(reader: Reader, history: History) -> None:
    env = {**os.environ, "TAPESTRY_HOME": str(history.settings.home)}
    done = tapestryctl("search", "binary", "--now", "2026-13-40", env=env)
    assert done.returncode != 0 and "now must be an ISO 8601 time or date, got '2026-13-40'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_long_query_is_cut_in_echoes() -> None:
    query = "garlic " * 100
    text = render_hits({"query": query, "hits": [], "time": None})
    assert len(text) < ECHO_CHARS + 30 and text.endswith("…'") and text.startswith("no matches for 'garlic")


def test_a_time_word_inside_a_quoted_phrase_stays_in_the_phrase(history: History) -> None:
    """'"sunday roast"' finds the roast said on a Monday, and '"March madness"' the madness said in January: the
    quoted words are the phrase, not a day and a range; a time phrase outside the quotes still narrows."""
    history.message("chatgpt:r1", datetime(2026, 3, 2, 9, tzinfo=PARIS), "a sunday roast with lamb", agent="chatgpt")
    history.message("chatgpt:r2", datetime(2026, 1, 12, 9, tzinfo=PARIS), "talk of March madness", agent="chatgpt")
    history.commit()
    reader = Reader.open(load_settings(history.settings.home))
    roast = search(reader, '"sunday roast" recipe', MESSAGES, now=NOW)
    assert roast["time"] is None and roast["terms"] == '"sunday roast" recipe'
    madness = search(reader, '"March madness"', MESSAGES, now=NOW)
    assert madness["time"] is None and matched(madness) == ["m2"]
    narrowed = search(reader, '"March madness" in January', MESSAGES, now=NOW)
    assert narrowed["time"]["phrase"] == "in January" and narrowed["terms"] == '"March madness"'
    assert matched(narrowed) == ["m2"] and not narrowed["outside"]
