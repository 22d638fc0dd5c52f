"""Snippets with the match highlighted, cut from a text the way FTS5's ``snippet()`` does.

FTS5 would have to walk each query word's posting list again to cut a snippet, which at a
million messages costs more than the search itself; the text of the few hits shown is
already at hand, so the cut is made here: the window of :data:`TOKENS` tokens holding
the most query words (the first such window), each matching token in ``[`` ``]``, ``…``
where text was left out. Tokens and stems are FTS5's (:class:`~tapestryd.projections.analysis.Analyzer`),
so a word is marked exactly when FTS5 would have matched it.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left

from tapestryd.projections.analysis import TOKEN, Analyzer, stem_starts

__all__ = ["TOKENS", "query_stems", "snippet"]

TOKENS = 16
_ANALYZER = Analyzer()
_GAPS = str.maketrans({chr(c): " " for c in range(128) if not chr(c).isalnum()})
"""Every ASCII character that is no letter or digit (FTS5's unicode61 separators there), made a space."""
_RUN = re.compile(r"[^ ]+")


def query_stems(query: str) -> set[str]:
    """The stems a query's content words match."""
    return set(_ANALYZER.terms(query))


def snippet(text: str, stems: set[str], *, tokens: int = TOKENS, scan: int = 4000) -> str:
    """The best window of ``text`` for ``stems`` (see the module docstring), on one line.

    Only the first ``scan`` characters are searched for the window (a pasted log can be
    megabytes; the words that matched are nearly always near its start).
    """
    if text[:scan].isascii():
        return _ascii_snippet(text, stems, tokens, scan)
    spans = [m.span() for m in TOKEN.finditer(text, 0, scan)]
    if not spans:
        return " ".join(text.split())[:200]
    hits = _hits(text, spans, stems)
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


def _hits(text: str, spans: list[tuple[int, int]], stems: set[str]) -> list[bool]:
    """Whether each token of ``spans`` (of a text that is not ASCII) stems to one of ``stems``."""
    return [w in stems for w in _ANALYZER.stems([text[a:b].lower() for a, b in spans])]


def _ascii_snippet(text: str, stems: set[str], tokens: int, scan: int) -> str:
    """:func:`snippet` of a text whose first ``scan`` characters are ASCII, without a regular expression
    match per token.

    There a token is a run of letters and digits and lower-casing keeps every offset, so the
    tokens are the words of the text with every other character made a space, and only the
    words that may stem to one of ``stems`` are stemmed (:func:`~tapestryd.projections.analysis.stem_starts`).
    Only the chosen window's tokens are then found one by one.
    """
    head = text[:scan]
    low = head.lower()
    spaced = low.translate(_GAPS)
    words = spaced.split()
    if not words:
        return " ".join(text.split())[:200]
    found = set(stem_starts(stems).findall(low))
    matched = {w for w, stem in zip(found, _ANALYZER.stems(list(found))) if stem in stems}
    hits = [i for i, w in enumerate(words) if w in matched] if matched else []
    first = _first_best(hits, tokens)
    last = min(len(words), first + tokens) - 1
    chosen, out = set(hits), []
    skipped = _skipper(first).match(spaced)
    assert skipped is not None  # first < len(words)
    at = skipped.end()
    for i, run in zip(range(first, last + 1), _RUN.finditer(spaced, at)):
        a, b = run.span()
        out.append(head[at:a])
        out.append(f"[{head[a:b]}]" if i in chosen else head[a:b])
        at = b
    more = last < len(words) - 1 or len(text) > scan
    tail = "" if more else head[at:]  # closing punctuation after the text's last word
    return " ".join((("…" if first else "") + "".join(out) + tail + ("…" if more else "")).split())


@functools.lru_cache(maxsize=256)
def _skipper(count: int) -> re.Pattern[str]:
    """Matches the leading spaces and the first ``count`` words of a text of words and spaces."""
    return re.compile(r" *(?:[^ ]+ +){%d}" % count)


def _first_best(hits: list[int], size: int) -> int:
    """:func:`_best_window` from the places of the hits (sorted) alone.

    The first best window starts at 0 or ends on a hit (starting one token earlier it would
    hold that hit no more), so only those starts are counted.
    """
    best, top = 0, bisect_left(hits, size)
    for hit in hits:
        start = hit - size + 1
        if start >= 1:
            held = bisect_left(hits, start + size) - bisect_left(hits, start)
            if held > top:
                best, top = start, held
    return best


def _best_window(hits: list[bool], size: int) -> int:
    """Start of the first window of ``size`` tokens with the most hits."""
    best, count = 0, sum(hits[:size])
    top = count
    for start in range(1, max(1, len(hits) - size + 1)):
        count += hits[start + size - 1] - hits[start - 1]
        if count > top:
            best, top = start, count
    return best
