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


def test_a_summary_naming_the_speaker_and_the_date_still_quotes_the_message() -> None:
    """The summarizer writes "Sam: …" and "today" as "on 2 Mar 2026": the sentence is still the message's."""
    hits = [hit("message", "I planted forty [garlic] cloves…", mid=7),
            hit("summary", "Sam: I planted forty [garlic] cloves of the Germidour variety in bed one on 2 Mar 2026.",
                key="L3:x", level="L3"),
            hit("summary", "Sam: I planted forty [garlic] cloves and pruned the old apple trees by the fence.",
                key="L1:y", level="L1")]
    folded = fold_quotes(hits, lambda h: SENTENCE if h.kind == "message" else h.snippet)
    assert [(h.kind, h.key) for h in folded] == [("message", ""), ("summary", "L1:y")]
    assert folded[0].extra == {"quoted_by": ["L3"], "quoted_keys": ["L3:x"]}


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


def test_summaries_found_by_their_title_alone_show_their_shared_text_once(history: History) -> None:
    """A day's, week's and month's summary found by their title only, all opening with the same text, came back
    as three hits of one unmatched snippet (the corpus's 'binary search': L1, L3, L2 of 'Meeting notes from
    Tuesday…'); the best of them stays, naming the others."""
    history.message("claude-ai:b", datetime(2026, 3, 2, 9, tzinfo=PARIS), "Please look at my sorting code.",
                    agent="claude-ai")
    history.commit()
    text = "Meeting notes from Tuesday, the full text of the uploaded PDF, and a question about it."
    history.summary("L1:claude-ai:2026-03-02", "Binary search review", text)
    history.summary("L2:claude-ai:2026-03-02w", "Binary search review", text)
    history.summary("L3:claude-ai:2026-03", "Binary search review", text + " More later.")
    history.commit()
    hits = search(Reader.open(load_settings(history.settings.home)), "binary search", now=NOW)["hits"]
    summaries = [h for h in hits if h["kind"] == "summary"]
    assert len(summaries) == 1, [(h["key"], h["snippet"]) for h in summaries]
    assert sorted([summaries[0]["level"], *summaries[0]["extra"]["quoted_by"]]) == ["L1", "L2", "L3"]


def test_summaries_with_a_match_never_fold_by_sharing_unmatched_text() -> None:
    """Only a snippet holding no match at all folds by being the same text as a better summary's."""
    same = "A long shared opening sentence of both summaries, word for word."
    hits = [hit("summary", same, key="L1:q", level="L1"), hit("summary", f"[garlic] {same}", key="L2:q", level="L2")]
    assert fold_quotes(hits, lambda h: h.snippet) == hits
