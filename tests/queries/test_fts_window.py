"""FTS5 ranking without a daemon: the newest-matches window, widening for filters, exact id bounds."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.projections import messages_search
from tapestryd.projections.messages_search import IdBounds, id_bounds, ranked_ids
from tapestryd.queries.reader import Reader
from tapestryd.queries.rerank import KeywordRanker
from tapestryd.queries.search import SearchFilters, fts_ranking, search_messages

START = datetime(2026, 1, 5, 9, 0, tzinfo=PARIS)
# Stored in this order, so message ids are 1..12; the oldest say "tide" most often (rank best).
TEXTS = [("tide tide tide tide harbor", "chatgpt"), ("tide tide tide harbor", "chatgpt"),
         ("tide tide and a long walk along the harbor wall at dusk", "chatgpt"),
         ("the tide tables for the harbor", "chatgpt"), ("rope and sails", "chatgpt"),
         ("tide turned while we slept in the little harbor", "claude-ai"),
         ("one more note on the tide and the wind and the long night", "claude-ai"),
         ("tide", "claude-code"), ("a tide chart", "claude-code"), ("high tide at noon", "claude-code"),
         ("low tide walk", "claude-code"), ("tide again, a tide note", "claude-code")]


@pytest.fixture
def reader(history: History) -> Reader:
    for n, (text, agent) in enumerate(TEXTS):
        history.message(f"{agent}:c{n // 4}", START + timedelta(days=n), text, agent=agent,
                        role="user" if n % 2 == 0 else "assistant")
    history.commit()
    return Reader.open(load_settings(history.settings.home))


def ids(ranked: list[tuple[int, float]]) -> list[int]:
    return [i for i, _ in ranked]


def test_a_window_at_least_as_large_as_the_matches_ranks_exactly(reader: Reader) -> None:
    exact = ranked_ids(reader.conn, '"tide"', SearchFilters(), 5, "relevance", window=None)
    assert ids(exact)[:2] == [1, 2]
    assert ranked_ids(reader.conn, '"tide"', SearchFilters(), 5, "relevance", window=11) == exact


def test_only_the_newest_matches_compete_and_keep_their_exact_scores(reader: Reader) -> None:
    """11 messages say "tide"; a window of 4 ranks ids 9..12 alone, each with its score from the whole index."""
    exact = dict(ranked_ids(reader.conn, '"tide"', SearchFilters(), 20, "relevance", window=None))
    windowed = ranked_ids(reader.conn, '"tide"', SearchFilters(), 3, "relevance", window=4)
    assert set(ids(windowed)) <= {9, 10, 11, 12} and len(windowed) == 3
    assert all(score == pytest.approx(exact[i]) for i, score in windowed)
    assert [s for _, s in windowed] == sorted(s for _, s in windowed)


def test_the_window_is_never_smaller_than_the_limit(reader: Reader) -> None:
    assert len(ranked_ids(reader.conn, '"tide"', SearchFilters(), 6, "relevance", window=4)) == 6


def test_filters_widen_the_window_until_enough_pass(reader: Reader) -> None:
    """The newest 4 matches are all claude-code; chatgpt's are older, so the window grows to reach them."""
    found = ranked_ids(reader.conn, '"tide"', SearchFilters(agent="chatgpt"), 2, "relevance", window=4)
    assert ids(found) == [1, 2]
    user = ranked_ids(reader.conn, '"tide"', SearchFilters(role="assistant"), 3, "relevance", window=2)
    assert len(user) == 3 and all(i % 2 == 0 for i in ids(user))


def test_conversation_and_time_bounds_change_speed_not_results(reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    conv = SearchFilters(conversation="claude-code:c2")
    assert id_bounds(reader.conn, conv) == IdBounds(9, 12)
    assert id_bounds(reader.conn, SearchFilters(conversation="nowhere")).empty
    week = SearchFilters(since=START + timedelta(days=2), until=START + timedelta(days=6))
    assert id_bounds(reader.conn, week) == IdBounds(3, 6)
    for filters in (conv, week, SearchFilters(conversation="chatgpt:c0", since=START + timedelta(days=9))):
        got = ranked_ids(reader.conn, '"tide"', filters, 10, "relevance", window=None)
        everything = ranked_ids(reader.conn, '"tide"', SearchFilters(agent=filters.agent), 20, "relevance",
                                window=None)
        where = set(range(9, 13)) if filters is conv else set(range(3, 7)) if filters is week else set()
        assert got == [(i, s) for i, s in everything if i in where]
    monkeypatch.setattr(messages_search, "BOUNDS_SCAN", 2)
    assert id_bounds(reader.conn, week) == IdBounds()
    assert set(ids(ranked_ids(reader.conn, '"tide"', week, 10, "relevance"))) == {3, 4, 6}


def test_sort_by_time_ignores_the_window(reader: Reader) -> None:
    newest = ranked_ids(reader.conn, '"tide"', SearchFilters(), 3, "time", window=1)
    assert ids(newest) == [12, 11, 10]


def test_every_word_first_then_any_word_fills_within_windows(reader: Reader) -> None:
    """"tide harbor": ids 1, 2, 3, 4, 6 hold both words; a window of 2 (3, the limit) ranks the newest three."""
    assert set(ids(fts_ranking(reader, "tide harbor", limit=3, window=2))) == {3, 4, 6}
    six = ids(fts_ranking(reader, "tide harbor", limit=6, window=2))
    assert set(six[:5]) == {1, 2, 3, 4, 6} and six[5] not in six[:5]


def test_search_messages_ranks_a_small_store_exactly(reader: Reader) -> None:
    hits = search_messages(reader, "tide", limit=3, ranker=KeywordRanker(neighbour=0, session=0, block=0, window=0))
    exact = ranked_ids(reader.conn, '"tide"', SearchFilters(), 3, "relevance", window=None)
    assert [h.id for h in hits] == ids(exact) and hits[0].snippet.count("[tide]") == 4


def test_newest_first_walks_by_time_even_when_ids_do_not_follow_time(history: History,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An old export ingested last: ids 7..12 are older than ids 1..6; walking, lookups and a cut-short walk agree."""
    for n in range(12):
        day = n if n < 6 else n - 20
        history.message(f"chatgpt:c{n % 3}", START + timedelta(days=day), f"tide log {n}", agent="chatgpt",
                        role="user" if n % 2 == 0 else "assistant")
    history.commit()
    conn = Reader.open(load_settings(history.settings.home)).conn
    cases = [SearchFilters(), SearchFilters(role="assistant"), SearchFilters(conversation="chatgpt:c1"),
             SearchFilters(until=START + timedelta(days=-10))]
    looked_up = [ranked_ids(conn, '"tide"', f, 8, "time") for f in cases]
    assert ids(looked_up[0]) == [6, 5, 4, 3, 2, 1, 12, 11]
    monkeypatch.setattr(messages_search, "TIME_JOIN", 2)
    assert [ranked_ids(conn, '"tide"', f, 8, "time") for f in cases] == looked_up
    monkeypatch.setattr(messages_search, "TIME_WALK", 1)
    assert [ranked_ids(conn, '"tide"', f, 8, "time") for f in cases] == looked_up


def test_with_filters_a_window_where_enough_pass_is_ranked_without_a_walk(reader: Reader,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """'tide' is in 11 messages: with a filter (every message passes it), a window of 4 ranks the 4 newest in
    one walk, scoring them as walked; the walk to the window's start is only for a window where too few pass."""
    filters = SearchFilters(subagents=False)
    every = ranked_ids(reader.conn, '"tide"', filters, 20, "relevance", window=None)
    newest = [(i, s) for i, s in every if i >= 9][:3]
    monkeypatch.setattr(messages_search, "_window_start", lambda *args: pytest.fail("walked the matches"))
    assert ranked_ids(reader.conn, '"tide"', filters, 3, "relevance", window=4) == newest


def test_without_filters_the_window_is_ranked_in_one_walk(reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """No filter and no bound: the 4 newest of 11 matches are ranked as a walk to the window's start would
    rank them, without that walk."""
    walked = ranked_ids(reader.conn, '"tide"', SearchFilters(subagents=False), 3, "relevance", window=4)
    monkeypatch.setattr(messages_search, "_window_start", lambda *args: pytest.fail("walked to the window's start"))
    assert ranked_ids(reader.conn, '"tide"', SearchFilters(), 3, "relevance", window=4) == walked
    assert {i for i, _ in walked} <= {9, 10, 11, 12}


def test_the_ranker_ranks_the_newest_when_the_words_are_commoner_than_its_window(reader: Reader) -> None:
    """'harbor' or 'tide' match 11 messages: with an any-word window of 3, only ids 10..12 compete for 2 places,
    with a filter (which every message passes here) or without."""
    ranker = KeywordRanker(pool=2, any_window=3, neighbour=0, session=0, title=0, block=0, window=0)
    terms = ["tide", "harbor", "zebra"]  # no message holds all three words
    assert set(ranker.candidates(reader.conn, terms, SearchFilters(), 2)) <= {10, 11, 12}
    assert set(ranker.candidates(reader.conn, terms, SearchFilters(subagents=False), 2)) <= {10, 11, 12}
    frequencies, _ = messages_search.document_frequencies(reader.conn, ["harbor", "tide", "zebra"])
    assert frequencies == {"tide": 11, "harbor": 5}
    assert {i for i, _ in ranker.rank(reader.conn, terms, SearchFilters(), 2)[0]} <= {10, 11, 12}


def test_with_filters_the_best_few_are_ranked_first_and_the_rest_only_when_too_few_pass(
        reader: Reader, monkeypatch: pytest.MonkeyPatch) -> None:
    """The best FIRST_CHECKED * limit matches are asked with a LIMIT (SQLite keeps only those while it scores);
    when too few of them pass, the rest are checked after them: the answer is the filter applied to every match."""
    def exact(agent: str) -> list[int]:
        every = ids(ranked_ids(reader.conn, '"tide"', SearchFilters(), 20, "relevance", window=None))
        return [i for i in every if TEXTS[i - 1][1] == agent][:2]

    asked: list[str] = []
    reader.conn.set_trace_callback(asked.append)
    assert ids(ranked_ids(reader.conn, '"tide"', SearchFilters(agent="chatgpt"), 2, "relevance", window=None)
               ) == exact("chatgpt") == [1, 2]
    scoring = [sql for sql in asked if "bm25(messages_fts)" in sql]
    assert scoring and all("LIMIT" in sql for sql in scoring)
    monkeypatch.setattr(messages_search, "FIRST_CHECKED", 1)  # the best 2 are chatgpt's: none passes
    assert ids(ranked_ids(reader.conn, '"tide"', SearchFilters(agent="claude-code"), 2, "relevance", window=None)
               ) == exact("claude-code") and len(exact("claude-code")) == 2
