"""Snippets cut like FTS5's: the densest window of 16 tokens, stemmed matches marked."""

from __future__ import annotations

import re

from tapestryd.projections.analysis import TOKEN, Analyzer
from tapestryd.queries.snippets import query_stems, snippet


def test_stemmed_and_accented_matches_are_marked() -> None:
    """'braid cafe' marks braided, braids and Café, as FTS5's porter unicode61 tokenizer matches them."""
    text = "Braided bread at the Café; three braids."
    assert snippet(text, query_stems("braid cafe")) == "[Braided] bread at the [Café]; three [braids]."


def test_the_window_with_most_matches_is_kept_and_cuts_are_marked() -> None:
    """A long text keeps the 16 tokens around the matches, with ellipses where text was left out."""
    words = [f"w{n}" for n in range(60)]
    words[30:33] = ["rope", "knot", "rope"]
    cut = snippet(" ".join(words), query_stems("rope knots"))
    assert cut.startswith("…") and cut.endswith("…") and cut.count(" ") == 15
    assert "[rope] [knot] [rope]" in cut


def test_a_text_without_tokens_is_returned_flat() -> None:
    """Nothing to tokenize: the start of the text on one line."""
    assert snippet("  ---\n***  ", query_stems("anything")) == "--- ***"


def test_only_words_that_stem_to_a_query_stem_are_marked_in_ascii_text() -> None:
    """The ASCII path stems only likely words; it marks exactly the tokens whose stem is a query stem."""
    words = ("ponies pony ties tie eyed eye happy happiness sky skies flies fly relational relate my_certificates"
             " certify x_ties TIES Eyed").split()
    text = " ".join(words)
    for query in ("pony tie", "eye happy", "sky fly", "relate certificate", "ties"):
        stems = query_stems(query)
        marked = set(re.findall(r"\[(\w+)\]", snippet(text, stems, tokens=len(words) * 2)))
        tokens = TOKEN.findall(text)
        assert marked == {t for t, s in zip(tokens, Analyzer().stems([t.lower() for t in tokens])) if s in stems}
        assert marked
