"""The daemon's warm index ranks search exactly as FTS5 does, and falls back when it cannot."""

from __future__ import annotations

from datetime import datetime
from typing import Iterator

import pytest
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.paths import paths_for
from tapestryd.projections.tfidf import LexicalQuery, SimilarityIndex
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search_messages
from tapestryd.queries.warm import register_warm_index, unregister_warm_index

TEXTS = ["The watchdog observers were flaky in the tests", "Running the tests again: the observer passed",
         "Café crème and a croissant", "Braided bread, braiding dough, three braids", "",
         "Tests of the sailing knots: bowline, reef knot", "A flaky crust for the apple pie",
         "Observer pattern versus pub-sub in Python_3.11 code"]


@pytest.fixture
def reader(history: History) -> Iterator[Reader]:
    for n, text in enumerate(TEXTS):
        agent = "chatgpt" if n % 2 else "claude-code"
        history.message(f"{agent}:c{n % 3}", datetime(2026, 3, 1 + n % 4, 9 + n, 0, tzinfo=PARIS), text,
                        agent=agent, role="user" if n % 3 else "assistant")
    history.commit()
    with Reader.open(load_settings(history.settings.home)) as opened:
        yield opened


@pytest.fixture
def index(reader: Reader) -> Iterator[SimilarityIndex]:
    built = SimilarityIndex(paths_for(reader.settings).projections_db)
    built.build()
    yield built
    built.stop()


FILTERS = [SearchFilters(), SearchFilters(agent="chatgpt"), SearchFilters(role="user"),
           SearchFilters(conversation="claude-code:c0"),
           SearchFilters(since=datetime(2026, 3, 2, tzinfo=PARIS), until=datetime(2026, 3, 4, tzinfo=PARIS))]


@pytest.mark.parametrize("query", ["flaky tests", "observer", "braids", "cafe", "knots tests", "python 3"])
@pytest.mark.parametrize("filters", FILTERS, ids=["none", "agent", "role", "conversation", "time"])
def test_warm_ranking_equals_fts5(reader: Reader, index: SimilarityIndex, query: str,
                                  filters: SearchFilters) -> None:
    """Same messages, same order, same BM25 (every word first, then any), with every filter."""
    for sort in ("relevance", "time"):
        cold = search_messages(reader, query, filters, limit=10, sort=sort)
        register_warm_index(reader.paths.projections_db, index)
        try:
            warm = search_messages(reader, query, filters, limit=10, sort=sort)
        finally:
            unregister_warm_index(reader.paths.projections_db)
        assert [h.message_key for h in warm] == [h.message_key for h in cold], (query, sort)
        assert [round(h.score, 4) for h in warm] == [round(h.score, 4) for h in cold]
        assert [h.snippet for h in warm] == [h.snippet for h in cold]


def test_a_word_the_index_never_counted_falls_back_to_fts5(index: SimilarityIndex) -> None:
    """An unknown word (or only stop words) makes the index decline, so FTS5 answers exactly."""
    assert index.lexical(LexicalQuery("flaky zeppelin")) is None
    assert index.lexical(LexicalQuery("the")) is None
    assert index.lexical(LexicalQuery("flaky")) is not None


def test_new_messages_are_ranked_after_a_refresh(history: History, reader: Reader, index: SimilarityIndex) -> None:
    """Messages folded in from the feed are searchable without a refit."""
    history.message("chatgpt:new", datetime(2026, 3, 4, 9, 0, tzinfo=PARIS), "More flaky tests today", agent="chatgpt")
    history.commit()
    index.refresh()
    ranked = index.lexical(LexicalQuery("flaky tests", limit=3))
    assert ranked is not None and len(ranked) == 3
    assert index.status()["delta"] == 1 and index.status()["fitted"] == len([t for t in TEXTS if t])
