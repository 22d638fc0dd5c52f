"""Snippets with the match highlighted, cut from a text the way FTS5's ``snippet()`` does.

FTS5 would have to walk each query word's posting list again to cut a snippet, which at a
million messages costs more than the search itself; the text of the few hits shown is
already at hand, so the cut is made here: the window of :data:`TOKENS` tokens holding
the most query words (the first such window), each matching token in ``[`` ``]``, ``…``
where text was left out. Tokens and stems are FTS5's (:class:`~tapestryd.projections.analysis.Analyzer`),
so a word is marked exactly when FTS5 would have matched it.
"""

from __future__ import annotations

from tapestryd.projections.analysis import TOKEN, Analyzer, stem_starts

__all__ = ["TOKENS", "query_stems", "snippet"]

TOKENS = 16
_ANALYZER = Analyzer()


def query_stems(query: str) -> set[str]:
    """The stems a query's content words match."""
    return set(_ANALYZER.terms(query))


def snippet(text: str, stems: set[str], *, tokens: int = TOKENS, scan: int = 4000) -> str:
    """The best window of ``text`` for ``stems`` (see the module docstring), on one line.

    Only the first ``scan`` characters are searched for the window (a pasted log can be
    megabytes; the words that matched are nearly always near its start).
    """
    spans = [m.span() for m in TOKEN.finditer(text, 0, scan)]
    if not spans:
        return " ".join(text.split())[:200]
    hits = _hits(text, spans, stems, scan)
    first = _best_window(hits, tokens)
    last = min(len(spans), first + tokens) - 1
    out, at = [], spans[first][0]
    for i in range(first, last + 1):
        a, b = spans[i]
        out.append(text[at:a])
        out.append(f"[{text[a:b]}]" if hits[i] else text[a:b])
        at = b
    more = last < len(spans) - 1 or len(text) > scan
    tail = "" if more else text[spans[last][1]:]  # closing punctuation after the text's last word
    return " ".join((("…" if first else "") + "".join(out) + tail + ("…" if more else "")).split())


def _hits(text: str, spans: list[tuple[int, int]], stems: set[str], scan: int) -> list[bool]:
    """Whether each token of ``spans`` stems to one of ``stems``.

    In ASCII text (lower-casing keeps every offset) only the tokens that may stem to one of
    ``stems`` are stemmed (:func:`~tapestryd.projections.analysis.stem_starts`), found by one
    scan of the text; other text has each token stemmed.
    """
    head = text[:scan]
    if not head.isascii():
        return [w in stems for w in _ANALYZER.stems([text[a:b].lower() for a, b in spans])]
    found = [(m.start(), m.group()) for m in stem_starts(stems).finditer(head.lower())]
    stemmed = _ANALYZER.stems([word for _, word in found])
    matched = {start for (start, _), stem in zip(found, stemmed) if stem in stems}
    return [a in matched for a, _ in spans]


def _best_window(hits: list[bool], size: int) -> int:
    """Start of the first window of ``size`` tokens with the most hits."""
    best, count = 0, sum(hits[:size])
    top = count
    for start in range(1, max(1, len(hits) - size + 1)):
        count += hits[start + size - 1] - hits[start - 1]
        if count > top:
            best, top = start, count
    return best
