"""Hybrid search: the default search's hits (replies found through their turns), conversations ranked, time kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime

import pytest
from query_helpers import NOW, PARIS, History

from tapestryd.config import load_settings
from tapestryd.events import ConversationTitled, NewEvent, event_id
from tapestryd.operations.dispatch import call_json
from tapestryd.operations.requests import SearchRequest
from tapestryd.queries.hybrid import hybrid_search
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search


def at(d: int, h: int, m: int = 0) -> datetime:
    return datetime(2026, 3, d, h, m, tzinfo=PARIS)


@pytest.fixture
def reader(history: History) -> Reader:
    h = history
    h.message("claude-code:s1", at(2, 9), "The watchdog observer test is flaky on macOS", session="s1")
    h.message("claude-code:s1", at(2, 9, 1), "Use a polling observer in that test instead", role="assistant",
              session="s1")
    h.message("claude-code:s1", at(2, 9, 2), "Thanks, that fixed it", session="s1")
    h.message("chatgpt:c1", at(4, 8), "Is sourdough flaky when the starter is weak?", agent="chatgpt")
    h.message("chatgpt:c2", at(1, 20), "Weekend plans: a hike by the lake", agent="chatgpt")
    h.commit()
    return Reader.open(load_settings(h.settings.home))


def ids(result: dict) -> list[str]:
    return [h["message_key"] for h in result["hits"]]


def test_the_reply_to_a_match_is_found_through_its_turn(reader: Reader) -> None:
    """The answer shares no word with 'flaky macOS' but follows the question that does: both find it,
    marked, right after that question and above m4's lone 'flaky'."""
    lexical = search(reader, "flaky macOS", SearchFilters(level="messages"), now=NOW)
    fused = hybrid_search(reader, "flaky macOS", SearchFilters(level="messages"), now=NOW)
    assert fused["mode"] == "hybrid" and ids(fused) == ids(lexical) and ids(fused)[:2] == ["m1", "m2"]
    assert fused["hits"][1]["extra"] == {"next_to_match": True}


def test_the_message_holding_every_word_comes_first(reader: Reader) -> None:
    """'sourdough starter weak': the one message holding all three words ranks first."""
    fused = hybrid_search(reader, "sourdough starter weak", SearchFilters(level="messages"), now=NOW, limit=3)
    assert ids(fused)[0] == "m4"


def test_the_time_phrase_keeps_inside_results_first(reader: Reader) -> None:
    """'flaky this morning': only this morning's message; widened, the rest follow marked outside."""
    strict = hybrid_search(reader, "flaky this morning", SearchFilters(level="messages"), now=NOW, limit=5)
    assert ids(strict) == ["m4"] and strict["outside"] == 0
    fused = hybrid_search(reader, "flaky this morning", SearchFilters(level="messages"), now=NOW, limit=5, widen=True)
    assert fused["time"]["phrase"] == "this morning" and ids(fused)[0] == "m4"
    assert all(h["extra"].get("outside_range") for h in fused["hits"][1:]) and fused["outside"] >= 1


def test_filters_apply_to_both_arms_and_to_neighbours(reader: Reader) -> None:
    """--agent and --role keep every fused hit inside the filters."""
    fused = hybrid_search(reader, "flaky observer", SearchFilters(agent="claude-code", role="user"), now=NOW)
    assert {(h["agent"], h["role"]) for h in fused["hits"]} == {("claude-code", "user")}


@pytest.fixture
def sessions(history: History) -> Reader:
    """Two conversations: one turn of c2 holds two query words; c1's turns hold all three between them."""
    h = history
    turns = ["Deploy to staging first", "Okay", "Done", "Something expired overnight", "Okay", "Done",
             "Then renew the certificate"]
    for i, text in enumerate(turns):
        h.message("claude-code:c1", at(3, 10, i), text, role=("user", "assistant")[i % 2], session="c1")
    h.message("claude-code:c2", at(3, 11), "A staging certificate", session="c2")
    h.message("claude-code:c2", at(3, 11, 1), "Noted", role="assistant", session="c2")
    for day in (1, 2):
        h.message(f"chatgpt:x{day}", at(day, 9), f"Recipe {day}: bread, flour and a weak starter", agent="chatgpt")
    h.commit()
    return Reader.open(load_settings(h.settings.home))


def test_conversations_are_ranked_by_all_their_turns(sessions: Reader) -> None:
    """c2 holds the best single turn, but c1's turns answer every word between them: c1 ranks first,
    and lifts its turns above c2's best in the hits too (c2's best still leads the rest)."""
    fused = hybrid_search(sessions, "staging certificate expired", SearchFilters(level="messages"), now=NOW)
    outside = [h["message_key"] for h in fused["hits"] if h["conversation"] != "claude-code:c1"]
    assert fused["hits"][0]["conversation"] == "claude-code:c1" and outside[0] == "m8"
    rows = fused["conversations"]
    assert [r["conversation"] for r in rows][:2] == ["claude-code:c1", "claude-code:c2"]
    assert rows[0]["terms"] == 3 and rows[1]["terms"] == 2 and rows[1]["top"] == "m8"
    assert rows[0]["sum"] > rows[1]["sum"]


def test_conversations_outside_the_time_range_come_last_and_marked(reader: Reader) -> None:
    """'flaky this morning' widened: this morning's conversation first, the others after it, marked outside."""
    fused = hybrid_search(reader, "flaky this morning", SearchFilters(level="messages"), now=NOW, limit=5, widen=True)
    rows = fused["conversations"]
    assert rows[0]["conversation"] == "chatgpt:c1" and not rows[0].get("outside_range")
    assert "claude-code:s1" in {r["conversation"] for r in rows[1:]}
    assert all(r["outside_range"] for r in rows[1:])


def test_summaries_of_days_are_left_out_of_the_conversations(history: History) -> None:
    """A day summary (no conversation) may be a hit, but only conversations are ranked as sessions."""
    history.message("claude-code:s9", at(3, 9), "We moved the backups to restic", session="s9")
    history.summary("L1:claude-code:2026-03-03", "Backups", "Moved the backups to restic and pruned old snapshots")
    history.commit()
    fused = hybrid_search(Reader.open(load_settings(history.settings.home)), "restic backups", now=NOW)
    assert any(h["kind"] == "summary" for h in fused["hits"])
    assert [r["conversation"] for r in fused["conversations"]] == ["claude-code:s9"]


def test_a_conversation_whose_title_names_the_subject_ranks_first(history: History) -> None:
    """Two sessions mention the migration alike; the one titled after it ranks first, the other follows."""
    for conv, hour in (("claude-ai:a", 9), ("claude-ai:b", 10)):
        history.message(conv, at(3, hour), "How far along is the migration?", agent="claude-ai")
        history.message(conv, at(3, hour, 1), "Halfway there", role="assistant", agent="claude-ai")
    history.pending.append(NewEvent(event_id("test", "title"), ConversationTitled("claude-ai:b", "Postgres migration"),
                                    at(3, 10), "claude-ai", "test#title"))
    history.commit()
    fused = hybrid_search(Reader.open(load_settings(history.settings.home)), "postgres migration", now=NOW)
    rows = fused["conversations"]
    assert [r["conversation"] for r in rows] == ["claude-ai:b", "claude-ai:a"]
    assert rows[0]["title"] == "Postgres migration" and rows[0]["terms"] == rows[1]["terms"] == 1


def test_the_search_op_serves_the_conversations_as_json(reader: Reader, history: History) -> None:
    """mode=hybrid through the op registry: hits and the conversation ranking survive a JSON round trip."""
    answer = json.loads(json.dumps(call_json(history.settings, SearchRequest, {
        "query": "flaky observer", "mode": "hybrid", "level": "messages", "now": NOW.isoformat()})))
    assert answer["mode"] == "hybrid" and answer["hits"][0]["conversation"] == "claude-code:s1"
    assert answer["conversations"][0]["conversation"] == "claude-code:s1"
    assert answer["conversations"][0]["hits"] >= 2


def test_tapestryctl_search_hybrid_prints_the_conversation_ranking(reader: Reader, history: History) -> None:
    """The text output ends with the conversations, best first, as a user reads them."""
    env = {**os.environ, "TAPESTRY_HOME": str(history.settings.home)}
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "search", "--hybrid", "--level", "messages",
                           "flaky", "observer"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    ranking = done.stdout.split("conversations, best first:\n", 1)[1].splitlines()
    assert ranking[0].startswith("  1. ") and "[claude-code:s1]" in ranking[0]
