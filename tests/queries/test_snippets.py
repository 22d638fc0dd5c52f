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


def _reference(text: str, stems: set[str], tokens: int, scan: int) -> str:
    """The snippet written out plainly: every token stemmed, every window counted."""
    spans = [m.span() for m in TOKEN.finditer(text, 0, scan)]
    if not spans:
        return " ".join(text.split())[:200]
    hits = [s in stems for s in Analyzer().stems([text[a:b].lower() for a, b in spans])]
    counts = [sum(hits[i:i + tokens]) for i in range(max(1, len(hits) - tokens + 1))]
    first = counts.index(max(counts))
    last = min(len(spans), first + tokens) - 1
    body = "".join(text[spans[i - 1][1] if i > first else spans[i][0]:spans[i][0]]
                   + (f"[{text[slice(*spans[i])]}]" if hits[i] else text[slice(*spans[i])])
                   for i in range(first, last + 1))
    more = last < len(spans) - 1 or len(text) > scan
    tail = "" if more else text[spans[last][1]:]
    return " ".join((("…" if first else "") + body + tail + ("…" if more else "")).split())


def test_snippets_of_ascii_and_other_text_are_the_plainly_written_ones() -> None:
    """The fast paths (ASCII text split without a match per token; only windows ending on a hit counted)
    cut the same snippets as stemming every token and counting every window, on random texts."""
    import random

    rng = random.Random(11)
    vocab = ("rope knot ropes knotted Rope KNOTS braid braided tie ties eyed eye happy sky skies the a of, and."
             " x_y __ -- ... 42 rope42 ROPE_knot e.g. don't café Ärger").split()
    for _ in range(1000):
        words = [rng.choice(vocab) for _ in range(rng.randint(0, 60))]
        text = rng.choice(["", " ", "(", "_"]) + "".join(w + rng.choice([" ", ", ", "\n", "-", "_", ""]) for w in words)
        stems = query_stems(" ".join(rng.sample(["rope", "knot", "braid", "tie", "eye", "sky", "42", "cafe"], 2)))
        for tokens, scan in ((16, 4000), (3, 4000), (4, 25)):
            assert snippet(text, stems, tokens=tokens, scan=scan) == _reference(text, stems, tokens, scan), text
