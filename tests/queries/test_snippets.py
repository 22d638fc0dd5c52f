"""Snippets cut like FTS5's: the densest window of 16 tokens, stemmed matches marked."""

from __future__ import annotations

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
