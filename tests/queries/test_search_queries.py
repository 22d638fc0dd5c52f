"""Search over messages and summaries: BM25, filters, time phrases, regex, sorting, output."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from cli_runner import tapestryctl
from query_helpers import NOW, PARIS, History

from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search


def at(m: int, d: int, h: int = 10) -> datetime:
    return datetime(2026, m, d, h, 0, tzinfo=PARIS)


@pytest.fixture
def reader(history: History) -> Reader:
    h = history
    h.message("chatgpt:c1", at(3, 3, 20), "A recipe for braided bread with honey", agent="chatgpt")
    h.message("chatgpt:c1", at(3, 3, 21), "Knead the dough, braid three strands, bake", role="assistant",
              agent="chatgpt")
    h.message("claude-code:s1", at(3, 2, 9), "The watchdog observer test is flaky on macOS", session="s1")
    h.message("claude-code:s1", at(3, 2, 9), "Use a polling observer in the watchdog test", role="assistant",
              session="s1")
    h.message("claude-code:s2", at(2, 10), "Tie rope knots for the sailing trip", session="s2")
    h.message("claude-code:s3", at(3, 4, 8), "Morning: bread again, sourdough this time", session="s3")
    h.commit()
    h.summary("L3:claude-code:2026-02", "Sailing and rope", "Learned rope knots before the sailing trip.")
    h.summary("L1:chatgpt:2026-03-03", "Bread day", "Braided bread with honey; the dough was kneaded twice.")
    h.commit()
    return Reader.open(load_settings(h.settings.home))


def keys(result: dict) -> list[str]:
    """The hits that match the words (turns that only sit next to a match left out)."""
    return [h["key"] or h["message_key"] for h in result["hits"] if not h["extra"].get("next_to_match")]


def test_the_turn_next_to_a_match_comes_too_marked(reader: Reader) -> None:
    """The reply to a matching turn holds the answer as often as the turn itself: it is ranked, and marked."""
    hits = search(reader, "honey", SearchFilters(level="messages"), now=NOW)["hits"]
    assert [h["message_key"] for h in hits][:2] == ["m1", "m2"]
    assert hits[1]["extra"] == {"next_to_match": True} and not hits[0]["extra"]


def test_messages_and_summaries_are_both_found_with_highlighted_snippets(reader: Reader) -> None:
    """One query reaches raw messages and summaries; snippets mark the match; keys are given."""
    result = search(reader, "braided bread", now=NOW)
    assert set(keys(result)) >= {"m1", "L1:chatgpt:2026-03-03"}
    message = next(h for h in result["hits"] if h["message_key"] == "m1")
    assert message["conversation"] == "chatgpt:c1" and "[braided]" in message["snippet"]
    assert message["local_time"] == "2026-03-03T20:00:00+01:00" and message["ts"].startswith("2026-03-03T19:00")
    summary = next(h for h in result["hits"] if h["kind"] == "summary")
    assert summary["level"] == "L1" and summary["role"] == "summary"


def test_every_word_matches_first_then_any_word_fills(reader: Reader) -> None:
    """'rope bread' has no message with both words: messages with either fill the list."""
    result = search(reader, "rope bread", SearchFilters(level="messages"), now=NOW, limit=10)
    assert {"m1", "m5", "m6"} <= set(keys(result))


@pytest.mark.parametrize("level, expected", [("messages", {"m1", "m6"}), ("summaries", {"L1:chatgpt:2026-03-03"}),
                                             ("L1", {"L1:chatgpt:2026-03-03"}), ("L3", set())])
def test_level_keeps_messages_or_summaries_of_one_level(reader: Reader, level: str, expected: set[str]) -> None:
    """--level narrows to messages, summaries, or one level of summaries."""
    result = search(reader, "bread", SearchFilters(level=level), now=NOW)
    assert set(keys(result)) == expected


def test_agent_role_and_conversation_filters(reader: Reader) -> None:
    """Filters narrow messages; a role filter leaves summaries out."""
    assert set(keys(search(reader, "bread", SearchFilters(agent="claude-code"), now=NOW))) == {"m6"}
    assert set(keys(search(reader, "watchdog", SearchFilters(role="assistant"), now=NOW))) == {"m4"}
    assert set(keys(search(reader, "bread", SearchFilters(conversation="chatgpt:c1"), now=NOW))) == {"m1"}


def test_a_time_phrase_narrows_before_ranking_and_is_echoed(reader: Reader) -> None:
    """'bread this morning' keeps only this morning's bread and says how the phrase was read;
    with widen, bread from other times follows, marked as outside the range."""
    strict = search(reader, "bread this morning", now=NOW)
    assert keys(strict) == ["m6"] and strict["outside"] == 0
    result = search(reader, "bread this morning", now=NOW, widen=True)
    assert keys(result)[0] == "m6" and result["terms"] == "bread"
    assert result["time"]["phrase"] == "this morning"
    assert result["time"]["label"] == "2026-03-04 06:00 → 2026-03-04 12:00 (Europe/Paris)"
    assert result["outside"] == len(result["hits"]) - 1 == 3  # m1, the summary, and m2 next to m1
    assert [h["extra"].get("outside_range", False) for h in result["hits"]] == [False, True, True, True]
    assert search(reader, "bread this morning", now=NOW, limit=1, widen=True)["outside"] == 0


def test_a_summary_matches_a_time_phrase_by_its_period(reader: Reader) -> None:
    """'rope in February' keeps the February monthly and the February message."""
    result = search(reader, "rope in February", now=NOW)
    assert set(keys(result)) == {"m5", "L3:claude-code:2026-02"} and result["outside"] == 0


def test_a_query_that_is_only_a_time_phrase_lists_that_period(reader: Reader) -> None:
    """'yesterday' lists yesterday's messages, newest first."""
    result = search(reader, "yesterday", now=NOW)
    assert keys(result) == ["m2", "m1"] and result["time"]["phrase"] == "yesterday"


def test_sort_by_time_puts_the_newest_first(reader: Reader) -> None:
    """--sort time orders by timestamp, newest first."""
    result = search(reader, "bread", SearchFilters(level="messages"), now=NOW, sort="time")
    assert keys(result) == ["m6", "m1"]


def test_regex_mode_matches_message_text_newest_first(reader: Reader) -> None:
    """--regex scans message text case-insensitively; the snippet brackets the match."""
    result = search(reader, r"watch\w+ (observer|test)", now=NOW, regex=True)
    assert keys(result) == ["m4", "m3"]
    assert all("[watchdog " in h["snippet"] for h in result["hits"]) and result["time"] is None
    with pytest.raises(TapestryError, match="not a valid regular expression"):
        search(reader, "(unclosed", now=NOW, regex=True)


def test_unknown_sort_or_level_is_a_clear_error(reader: Reader) -> None:
    """Bad option values name the valid ones."""
    with pytest.raises(TapestryError, match="relevance, time"):
        search(reader, "bread", now=NOW, sort="newest")
    with pytest.raises(TapestryError, match="L0"):
        search(reader, "bread", SearchFilters(level="L9"), now=NOW)


def ctl(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return tapestryctl(*args, env=env)


def test_the_cli_prints_text_json_and_jsonl(reader: Reader) -> None:
    """tapestryctl search: the echo on top in text, on stderr for json and jsonl."""
    home = reader.settings.home
    assert home is not None
    text = ctl(home, "search", "bread", "2026-03-03")
    assert text.returncode == 0, text.stderr
    assert text.stdout.startswith("reading '2026-03-03' as 2026-03-03 00:00 → 2026-03-04 00:00 (Europe/Paris)")
    assert "other times" not in text.stdout
    widened = ctl(home, "search", "bread", "2026-03-03", "--widen")
    assert "── 3 matches in '2026-03-03'; matches from other times follow ──" in widened.stdout
    hits = json.loads(ctl(home, "search", "bread", "-f", "json", "--level", "messages").stdout)
    assert sorted(h["message_key"] for h in hits if not h["extra"]) == ["m1", "m6"]
    lines = ctl(home, "search", "watchdog", "--regex", "-f", "jsonl", "--since", "2026-03-01")
    assert [json.loads(line)["message_key"] for line in lines.stdout.splitlines()] == ["m4", "m3"]
