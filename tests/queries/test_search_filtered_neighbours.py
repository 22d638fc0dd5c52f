"""A filter that leaves messages out leaves out what they would bring: with --no-subagents, --role,
--machine or --since, a turn holding none of the words does not come as "next to a match" when the
only turn holding them is one the filter left out (it did not before the message windows)."""

from __future__ import annotations

from datetime import timedelta

from query_helpers import NOW, History

from tapestryd.clock import FixedClock
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.base import ReadDeps
from tapestryd.operations.query import search
from tapestryd.operations.requests import SearchRequest
from tapestryd.queries.reader import Reader

TURNS = [  # (key, role, text, subagent, machine): one session, a subagent's turns in the middle
    ("m1", "user", "please refactor the parser module", False, ""),
    ("m2", "assistant", "I handed the search to a helper agent", False, ""),
    ("s1", "user", "find every quokkaflux reference in the code", True, ""),
    ("s2", "assistant", "there are three of them in the lexer", True, "desk"),
    ("m3", "user", "great, continue with the tests", False, ""),
]


def write(history: History) -> None:
    events = []
    for n, (key, role, text, subagent, machine) in enumerate(TURNS):
        at = NOW - timedelta(minutes=50 - n)
        body = MessageRecorded("claude-code:p1", key, role, text, format_utc(at), session="p1",
                               meta={"sidechain": True} if subagent else {})
        events.append(NewEvent(event_id("filtered-test", key), body, at, "claude-code", f"t#{n}", origin=machine))
    history.pending.extend(events)
    history.commit()


def keys(history: History, **fields: object) -> list[str]:
    with Reader.open(history.settings) as reader:
        result = search(SearchRequest(query="quokkaflux", limit=20, **fields), ReadDeps(reader, FixedClock(NOW)))
    return [h["message_key"] for h in result.to_json()["hits"]]


def test_a_subagents_words_bring_no_main_turn_without_subagents(history: History) -> None:
    write(history)
    assert "s1" in keys(history)  # found, with its neighbours
    assert keys(history, no_subagents=True) == []


def test_a_filtered_out_roles_words_bring_nothing(history: History) -> None:
    write(history)
    assert keys(history, role="assistant") == []  # only a user turn holds the word


def test_another_machines_words_bring_nothing(history: History) -> None:
    write(history)
    here = history.settings.sync.machine
    assert keys(history, machine="desk") == []  # desk's turn holds none of the words
    assert "s1" in keys(history, machine=here)


def test_words_before_the_range_bring_nothing_into_it(history: History) -> None:
    write(history)
    after = format_utc(NOW - timedelta(minutes=50 - 2.5))  # s2 and m3 are in range; s1 holds the word
    assert keys(history, since=after) == []
    assert "s1" in keys(history, since=format_utc(NOW - timedelta(minutes=49)))
