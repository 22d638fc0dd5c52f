"""One passage, one result: summaries quoting a hit's sentence fold into that hit, naming their levels."""

from __future__ import annotations

from datetime import datetime

from query_helpers import NOW, PARIS, History

from tapestryd.config import load_settings
from tapestryd.queries.passages import fold_quotes
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchHit, search

SENTENCE = "I planted forty garlic cloves of the Germidour variety in bed one today."


def hit(kind: str, snippet: str, *, key: str = "", level: str = "message", mid: int = 0) -> SearchHit:
    return SearchHit(kind, mid, "c", "", "", "a", "user", "2026-03-01T00:00:00Z", "", snippet, 0.0, key=key,
                     level=level)


def test_summaries_quoting_a_message_fold_into_it_at_the_best_rank() -> None:
    hits = [hit("summary", "…forty [garlic] cloves of the Germidour variety in bed one…", key="L1:x", level="L1"),
            hit("message", "I planted forty [garlic] cloves…", mid=7),
            hit("summary", "Other [garlic] news entirely, nothing quoted here at all", key="L2:x", level="L2"),
            hit("summary", "I planted forty [garlic] cloves of the Germidour variety", key="L0:x", level="L0")]
    folded = fold_quotes(hits, lambda h: SENTENCE if h.kind == "message" else h.snippet)
    assert [(h.kind, h.key) for h in folded] == [("message", ""), ("summary", "L2:x")]
    assert folded[0].extra == {"quoted_by": ["L0", "L1"], "quoted_keys": ["L1:x", "L0:x"]}


def test_short_or_unquoted_snippets_stay() -> None:
    hits = [hit("message", "garlic", mid=1), hit("summary", "[garlic] in bed one", key="L1:y", level="L1")]
    assert fold_quotes(hits, lambda h: "garlic in bed one" if h.kind == "message" else h.snippet) == hits


def test_search_returns_the_message_once_naming_the_levels(history: History) -> None:
    history.message("claude-ai:g", datetime(2026, 3, 2, 9, tzinfo=PARIS), SENTENCE, agent="claude-ai")
    history.commit()
    history.summary("L1:claude-ai:2026-03-02", "Garden", SENTENCE)
    history.summary("L2:claude-ai:2026-03-02w", "Garden week", "Garden work. " + SENTENCE)
    history.commit()
    hits = search(Reader.open(load_settings(history.settings.home)), "garlic Germidour", now=NOW)["hits"]
    assert [h["kind"] for h in hits] == ["message"]
    assert hits[0]["extra"]["quoted_by"] == ["L1", "L2"]


def test_a_shared_sentence_without_the_match_does_not_fold() -> None:
    """The summary's quote must hold the matched word: sharing some other long sentence is not quoting the hit."""
    boiler = "This long boilerplate sentence appears in both texts alike."
    hits = [hit("message", "[garlic] depth", mid=1), hit("summary", f"I planned the [garlic] bed. {boiler}",
                                                           key="L1:z", level="L1")]
    assert fold_quotes(hits, lambda h: f"Plant garlic deep. {boiler}" if h.kind == "message" else h.snippet) == hits
