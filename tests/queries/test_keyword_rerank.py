"""The keyword ranking: FTS5 candidates reranked by their neighbouring turns and their conversation."""

from __future__ import annotations

from datetime import datetime

import pytest
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.events import ConversationTitled, NewEvent, event_id
from tapestryd.queries.reader import Reader
from tapestryd.queries.rerank import KeywordRanker
from tapestryd.queries.search import SearchFilters

BARE = KeywordRanker(neighbour=0, session=0, block=0, window=0)


def at(d: int, h: int, m: int = 0) -> datetime:
    return datetime(2026, 3, d, h, m, tzinfo=PARIS)


@pytest.fixture
def reader(history: History) -> Reader:
    h = history
    # c1: a question about the trip, its answer in the reply; then an unrelated turn.
    h.message("claude-ai:c1", at(2, 9), "Where did we go on the sailing trip?", agent="claude-ai")
    h.message("claude-ai:c1", at(2, 9, 1), "To the Glenan islands, in late June", role="assistant", agent="claude-ai")
    h.message("claude-ai:c1", at(2, 9, 2), "Thanks", agent="claude-ai")
    # c2: three turns about sailing between them; c3: one stray mention.
    h.message("claude-ai:c2", at(3, 9), "sailing lessons start Monday", agent="claude-ai")
    h.message("claude-ai:c2", at(3, 9, 1), "the trip to the coast is booked", role="assistant", agent="claude-ai")
    h.message("claude-ai:c2", at(3, 9, 2), "sailing gear: a jacket", agent="claude-ai")
    h.message("claude-ai:c3", at(4, 9), "a trip to the bakery", agent="claude-ai")
    h.commit()
    return Reader.open(load_settings(h.settings.home))


def keys(reader: Reader, ranked: list[tuple[int, float]]) -> list[str]:
    rows = dict(reader.conn.execute("SELECT id, message_key FROM messages"))
    return [rows[i] for i, _ in ranked]


def test_bare_ranking_holds_only_matches(reader: Reader) -> None:
    ranked, turns = BARE.rank(reader.conn, ["sailing", "trip"], SearchFilters(), 10)
    assert "m2" not in keys(reader, ranked) and turns == {}
    assert all(score < 0 for _, score in ranked)


def test_a_reply_enters_through_the_turn_it_answers(reader: Reader) -> None:
    """The reply holds none of the words: it enters, marked, above m7's stray 'trip' (it was lent
    more) but below m1, the question that lent to it: a searcher sees the match first."""
    lending = KeywordRanker(session=0, block=0, window=0)
    ranked, turns = lending.rank(reader.conn, ["sailing", "trip"], SearchFilters(), 10)
    found = keys(reader, ranked)
    assert {k for i, k in zip([i for i, _ in ranked], found) if turns.get(i) == "next_to_match"} == {"m2"}
    assert found.index("m1") < found.index("m2") < found.index("m7")
    assert [s for _, s in ranked] == sorted(s for _, s in ranked)  # best (lowest) first


def test_a_neighbour_outside_the_filters_is_not_lent_to(reader: Reader) -> None:
    ranked, turns = KeywordRanker().rank(reader.conn, ["sailing", "trip"], SearchFilters(role="user"), 10)
    roles = dict(reader.conn.execute("SELECT id, role FROM messages"))
    assert ranked and {roles[i] for i, _ in ranked} == {"user"}


def test_the_conversation_whose_turns_hold_the_words_lifts_its_messages(reader: Reader) -> None:
    """c3's bakery trip and c2's coast trip hold 'trip' alike; c2's turns also hold 'sailing': it ranks higher."""
    bare, _ = BARE.rank(reader.conn, ["sailing", "trip"], SearchFilters(), 10)
    session = KeywordRanker(neighbour=0, session=1.0, block=0, window=0)
    blended, _ = session.rank(reader.conn, ["sailing", "trip"], SearchFilters(), 10)
    assert keys(reader, blended).index("m5") < keys(reader, blended).index("m7")
    assert dict(blended)[5] < dict(bare)[5]  # lifted (scores are negated: lower is better)


def test_nothing_to_rank(reader: Reader) -> None:
    assert KeywordRanker().rank(reader.conn, [], SearchFilters(), 10) == ([], {})
    assert KeywordRanker().rank(reader.conn, ["zeppelin"], SearchFilters(), 10) == ([], {})


def test_a_conversation_is_found_by_its_title(history: History) -> None:
    """No message says 'Postgres'; the conversation titled so opens with the first turn, marked."""
    history.message("claude-ai:pg", at(5, 9), "How far along is it?", agent="claude-ai")
    history.message("claude-ai:pg", at(5, 9, 1), "Halfway there", role="assistant", agent="claude-ai")
    history.pending.append(NewEvent(event_id("test", "title"),
                                    ConversationTitled("claude-ai:pg", "Postgres_16 migration"),
                                    at(5, 9), "claude-ai", "test#title"))
    history.commit()
    reader = Reader.open(load_settings(history.settings.home))
    ranked, marks = KeywordRanker().rank(reader.conn, ["postgres_16"], SearchFilters(), 10)
    assert keys(reader, ranked)[0] == "m1" and marks[ranked[0][0]] == "title_match"
    assert KeywordRanker().rank(reader.conn, ["postgres_16"], SearchFilters(role="assistant"), 10)[0][0][0] == 2
    assert KeywordRanker(title=0).rank(reader.conn, ["postgres_16"], SearchFilters(), 10) == ([], {})
    assert KeywordRanker().rank(reader.conn, ["postgres%16"], SearchFilters(), 10) == ([], {})  # % is no wildcard


def test_a_title_word_is_found_as_a_word_not_inside_another(history: History) -> None:
    """'ai' opens "AI Turing Test" and "Notes on AIs", not "Gmail API management"; 'art' not "Start-up"."""
    titles = {"claude-ai:t1": "Gmail API management", "claude-ai:t2": "AI Turing Test",
              "claude-ai:t3": "Start-up costs", "claude-ai:t4": "Notes on AIs"}
    for n, (key, title) in enumerate(titles.items()):
        history.message(key, at(6, 9 + n), "How far along is it?", agent="claude-ai")
        history.pending.append(NewEvent(event_id("test", key), ConversationTitled(key, title), at(6, 9 + n),
                                        "claude-ai", f"test#{key}"))
    history.commit()
    reader = Reader.open(load_settings(history.settings.home))
    assert sorted(keys(reader, KeywordRanker().rank(reader.conn, ["ai"], SearchFilters(), 10)[0])) == ["m2", "m4"]
    assert KeywordRanker().rank(reader.conn, ["art"], SearchFilters(), 10) == ([], {})
    assert keys(reader, KeywordRanker().rank(reader.conn, ["start-up"], SearchFilters(), 10)[0]) == ["m3"]


def test_titles_are_found_with_the_index_of_titled_conversations_or_without_it(history: History) -> None:
    """The title lookup reads the partial index of titled conversations; a file made before it finds the same."""
    import sqlite3

    from tapestryd.paths import paths_for

    for n, (key, title) in enumerate({"claude-ai:t1": "Kayak repairs", "claude-ai:t2": "Kayak routes"}.items()):
        history.message(key, at(7, 9 + n), "What next?", agent="claude-ai")
        history.pending.append(NewEvent(event_id("test", key), ConversationTitled(key, title), at(7, 9 + n),
                                        "claude-ai", f"test#{key}"))
    history.message("claude-ai:t3", at(7, 12), "kayak or canoe?", agent="claude-ai")
    history.commit()
    db = paths_for(history.settings).projections_db
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT sql FROM sqlite_master WHERE name = 'conversations_titled'").fetchone()
    reader = Reader.open(load_settings(history.settings.home))
    with_index = KeywordRanker().rank(reader.conn, ["kayak"], SearchFilters(), 10)
    reader.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX conversations_titled")
    reader = Reader.open(load_settings(history.settings.home))
    assert KeywordRanker().rank(reader.conn, ["kayak"], SearchFilters(), 10) == with_index
    assert sorted(keys(reader, with_index[0])) == ["m1", "m2", "m3"]
    assert sorted(mark for mark in with_index[1].values()) == ["title_match", "title_match"]


def test_a_short_ranking_is_the_head_of_a_long_one(reader: Reader) -> None:
    """Turns holding none of the words are capped only as they reach the best ``limit``; the order is
    still the one capping every turn gives. Lent twice m5's score, m4 and m6 would lead uncapped."""
    generous = KeywordRanker(neighbour=2.0, session=0, block=0, window=0)
    full, full_turns = generous.rank(reader.conn, ["trip"], SearchFilters(), 50)
    found = keys(reader, full)
    assert found.index("m5") < found.index("m4") < found.index("m6") and found.index("m1") < found.index("m2")
    for limit in range(1, len(full) + 1):
        ranked, turns = generous.rank(reader.conn, ["trip"], SearchFilters(), limit)
        assert ranked == full[:limit]
        assert turns == {i: mark for i, mark in full_turns.items() if i in dict(ranked)}


def test_a_query_of_a_thousand_words_is_answered_and_a_title_holding_them_all_still_opens(history: History) -> None:
    """A query of 1,100 different words (an AI pasting a document) is answered, not a StoreError "Expression tree
    is too large" (one LIKE per word in the title lookup); a title holding more words than the lookup asks SQLite
    for is still found, when it holds every word of the query."""
    from tapestryd.queries.search import search

    words = [f"w{n:03d}" for n in range(70)]
    history.message("claude-ai:long", at(8, 9), "How far along is it?", agent="claude-ai")
    history.pending.append(NewEvent(event_id("test", "long"), ConversationTitled("claude-ai:long", " ".join(words)),
                                    at(8, 9), "claude-ai", "test#long"))
    history.message("claude-ai:other", at(8, 10), "w001 and w002 in a message", agent="claude-ai")
    history.commit()
    reader = Reader.open(load_settings(history.settings.home))
    ranked, marks = KeywordRanker().rank(reader.conn, words, SearchFilters(), 10)
    assert "m1" in keys(reader, ranked) and marks[1] == "title_match"
    many = " ".join([*words, *(f"x{n}" for n in range(1030))])
    assert [h["message_key"] for h in search(reader, many, now=at(9, 9))["hits"]][:1] == ["m2"]  # the one holding some
