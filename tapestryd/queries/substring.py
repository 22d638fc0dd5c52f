"""Substring search for query terms FTS5 cannot match: CJK, kana, hangul, Thai, emoji.

``messages_fts`` keeps a run of Chinese or Japanese as one token and drops emoji
(:mod:`tapestryd.projections.unsplit`), so "爬山" is not found in "我喜欢在周末去爬山" nor
"🎉" in "Party time 🎉". A query term (a whitespace-separated piece of the query) holding
such a character is matched instead as a substring of the text of the messages listed in
``messages_unsplit``, with SQLite ``LIKE`` (``%`` and ``_`` escaped; ASCII letters
case-insensitive, other characters exactly).

* Every term must match. The other words of such a query (stopwords left out) must match
  too, through FTS5 as in any query (stems, so "hiking" finds "hikes"): the FTS5 matches
  are intersected with the substring matches by message id. No any-word fallback.
* Hits are ordered newest first (``ts`` then id, descending) whatever the sort, with a
  score of 0: there is no BM25 for a substring.
* The agent, role, conversation and time filters apply as in
  :func:`~tapestryd.projections.messages_search.message_where`.
* Cost: one ``LIKE`` per term over the text of every message in ``messages_unsplit``
  that passes the filters (not over the other messages). A ``projections.db`` made before
  that table, read before the projector first opened it (a read-only CLI search with no
  daemon and no ingest since the upgrade), is searched over every message: same hits, slower.

Variation selectors (U+FE0E, U+FE0F) are dropped from terms, so "❤️" finds "❤" too. The scan
itself is the messages projection's
(:func:`~tapestryd.projections.messages_search.substring_ranking`); this module reads the query.
"""

from __future__ import annotations

import re

from tapestryd.projections.unsplit import has_unsplit
from tapestryd.queries.stopwords import STOPWORDS

__all__ = ["fts_words", "has_terms", "substring_pattern", "unsplit_terms"]

_WORD = re.compile(r"\w+", re.UNICODE)
_EDGES = "\"'`.,;:!?()[]{}<>"
_SELECTORS = str.maketrans("", "", "\ufe0e\ufe0f")


def has_terms(query: str) -> bool:
    """Whether ``query`` holds a word or an unsplit piece (CJK, Thai, emoji) to look for: not only white space,
    quotes or punctuation (search and similar refuse such a query)."""
    return bool(_WORD.search(query) or unsplit_terms(query))


def unsplit_terms(query: str) -> list[str]:
    """The whitespace-separated pieces of ``query`` holding unsplit characters, unique, in order.

    Quotes and ASCII punctuation around a piece are dropped, and variation selectors within it.
    """
    pieces = (p.translate(_SELECTORS).strip(_EDGES) for p in query.split())
    return list(dict.fromkeys(p for p in pieces if has_unsplit(p)))


def fts_words(query: str) -> list[str]:
    """The other content words of ``query`` (no unsplit character, not a stopword), lower-cased, unique."""
    words = (w.lower() for w in _WORD.findall(query))
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS and not has_unsplit(w)))


def substring_pattern(terms: list[str]) -> re.Pattern[str]:
    """A case-insensitive pattern matching any of ``terms`` (for the snippet around the first hit)."""
    return re.compile("|".join(re.escape(t) for t in terms), re.IGNORECASE)
