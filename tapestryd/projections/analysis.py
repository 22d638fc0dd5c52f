"""Text analysis shared by the warm index and full-text search: FTS5's tokens, Porter stems.

The messages projection indexes text with FTS5's ``porter unicode61 remove_diacritics 2``
tokenizer. :class:`Analyzer` reproduces it in Python so the daemon's in-memory index
(:mod:`tapestryd.projections.tfidf`) counts the same terms and document lengths FTS5's
BM25 uses: tokens are runs of letters and digits (underscore separates, as in unicode61),
lower-cased, diacritics removed, then stemmed with the original Porter algorithm (the
Snowball ``porter`` stemmer of PyStemmer, which FTS5's C implementation matches).

:data:`STOPWORDS` are English function words left out of search terms and of the index: a
short list of articles, pronouns, auxiliaries, prepositions, conjunctions and question
words in the spirit of the SMART and Snowball lists. They occur in nearly every message,
so matching them adds cost (long posting lists) and no ranking signal.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from typing import Any

__all__ = ["STOPWORDS", "TOKEN", "Analyzer", "fold", "stem_starts"]

TOKEN = re.compile(r"[^\W_]+")
_CACHE_LIMIT = 500_000  # stems remembered; beyond this the cache starts over

STOPWORDS = frozenset("""
a about above after again against all am an and any are aren as at be because been before being below between
both but by can cannot could couldn d did didn do does doesn doing don down during each few for from further had
hadn has hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself
just ll m me might more most must my myself no nor not now of off on once only or other ought our ours ourselves
out over own re s same shan she should shouldn so some such t than that the their theirs them themselves then
there these they this those through to too under until up ve very was wasn we were weren what when where which
while who whom why will with won would wouldn y you your yours yourself yourselves also yes ok okay let lets
get got gets
""".split())


def fold(word: str) -> str:
    """``word`` without diacritics (``café`` → ``cafe``), as remove_diacritics does."""
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


class Analyzer:
    """Callable text → content stems, the analyzer of :mod:`~tapestryd.projections.termcount`.

    Each call also appends the text's total token count (stop words included, as FTS5
    counts a row's size) to :attr:`lengths`, in call order. Stems are memoized; the
    stemmer is per thread (PyStemmer's objects are not thread-safe), so one analyzer may
    serve queries on several threads.
    """

    def __init__(self) -> None:
        self._local = threading.local()
        self._cache: dict[str, str] = {}
        self.lengths: list[int] = []

    def __call__(self, text: str) -> list[str]:
        words = TOKEN.findall(text.lower())
        self.lengths.append(len(words))
        return self.stems([w for w in words if w not in STOPWORDS])

    def stems(self, words: list[str]) -> list[str]:
        """The Porter stems of lower-cased ``words`` (diacritics folded), memoized."""
        cache = self._cache
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        found = {w: cache.get(w) for w in set(words)}
        missing = [w for w, stem in found.items() if stem is None]
        if missing:
            fresh = dict(zip(missing, self._stemmer().stemWords([fold(w) for w in missing])))
            cache.update(fresh)
            found.update(fresh)
        return [found[w] or w for w in words]

    def terms(self, text: str) -> list[str]:
        """The content stems of a query, without recording a length."""
        return self.stems([w for w in TOKEN.findall(text.lower()) if w not in STOPWORDS])

    def stems_held(self, texts: list[str], wanted: set[str]) -> list[set[str]]:
        """For each of ``texts``, the stems of ``wanted`` among its words, in order.

        Only words that may stem to one of ``wanted`` (:func:`stem_starts`) are stemmed, each
        distinct word once across all texts.
        """
        could = stem_starts(wanted)
        found = [set(could.findall(low if low.isascii() else fold(low))) for low in (t.lower() for t in texts)]
        words = list(set().union(*found))
        stem_of = dict(zip(words, self.stems(words)))
        return [wanted.intersection(stem_of[w] for w in held) for held in found]

    def _stemmer(self) -> Any:
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            import Stemmer

            stemmer = self._local.stemmer = Stemmer.Stemmer("porter")
        return stemmer


def stem_starts(stems: set[str]) -> re.Pattern[str]:
    """The words (FTS5 tokens of lower-cased, folded text) that may have one of ``stems`` as their stem.

    Porter's algorithm rewrites only a word's ending, and each rewrite keeps the first letter
    of what it replaces; the one change further in is a final y made i after a vowel ("eyed"
    → "ei"). So a word starts with the first three letters of its stem, any i read as i or y.
    Stemming only these words, not every word of a long text, is what keeps finding the
    query's stems in a few hundred messages cheap. (Checked against the stems of the shared
    corpus by the tests.) Compiled once per set of stems (the last 64 kept).
    """
    return _stem_starts(frozenset(stem for stem in stems if stem))


@functools.lru_cache(maxsize=64)
def _stem_starts(stems: frozenset[str]) -> re.Pattern[str]:
    # Each start is a literal followed by the check that no word character precedes it: a
    # pattern opening with literals lets re skip to the positions holding their first letters,
    # which scans a text about three times faster than a look-behind opening the pattern.
    starts = sorted({variant for stem in stems for variant in _i_or_y(stem[:3])})
    alternatives = [f"{re.escape(start)}(?<![^\\W_]{'.' * len(start)})" for start in starts]
    return re.compile(f"(?:{'|'.join(alternatives) or '(?!)'})[^\\W_]*")


def _i_or_y(start: str) -> list[str]:
    """``start`` with each i read as i or y: every spelling a word beginning so may have."""
    spellings = [""]
    for char in start:
        spellings = [s + c for s in spellings for c in ("iy" if char == "i" else char)]
    return spellings
