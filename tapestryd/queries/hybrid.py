"""``search --hybrid``: the default search's answer, with its conversations ranked too.

The hybrid once fused BM25 with TF-IDF similarity and lent scores to neighbouring turns;
the default search now ranks with the turns and the conversation itself
(:mod:`tapestryd.queries.rerank`), and found more evidence than the fusion did on the
LoCoMo dev split (message recall@10 .675 against .581), at the default's speed. What
``--hybrid`` adds is the conversation (session) ranking: the answer's whole candidate pool
(``pool`` hits, before the cut at ``limit``) grouped by conversation and fused at that
level (:func:`~tapestryd.queries.sessions.rank_conversations`), each hit weighing
``1 / (60 + rank)`` as in reciprocal rank fusion.

The time phrase narrows as in :func:`~tapestryd.queries.search.search`: inside-range
results come first and other times only fill up behind them (``widen``), and their
conversations follow, marked.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tapestryd.queries.dense import DenseIndex
from tapestryd.queries.reader import Reader
from tapestryd.queries.rerank import KEYWORD_RANKER, KeywordRanker
from tapestryd.queries.search import RRF_K, SearchFilters, search
from tapestryd.queries.sessions import rank_conversations

__all__ = ["hybrid_search"]

Hit = dict[str, Any]
Scored = list[tuple[Hit, float]]


def hybrid_search(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *, now: datetime,
                  limit: int = 20, pool: int = 100, widen: bool = False,
                  ranker: KeywordRanker = KEYWORD_RANKER, dense: DenseIndex | None = None) -> dict[str, Any]:
    """The search answer for ``query`` (best ``limit`` hits), with ``mode`` ``hybrid`` and ``conversations``.

    ``conversations`` holds the best ``limit`` conversations of the best ``pool`` hits
    (rows of :func:`rank_conversations`; those inside the time range first, the others
    marked ``outside_range``). ``widen``, ``ranker`` and ``dense`` as in :func:`search`. Raises
    TapestryError as :func:`search` does.
    """
    answer = search(reader, query, filters, now=now, limit=max(pool, limit), widen=widen, ranker=ranker, dense=dense)
    scored = [(hit, 1.0 / (RRF_K + rank)) for rank, hit in enumerate(answer["hits"], start=1)]
    inside = [(h, s) for h, s in scored if not h["extra"].get("outside_range")]
    outside = [(h, s) for h, s in scored if h["extra"].get("outside_range")]
    hits = [h for h, _ in inside[:limit]] + [h for h, _ in outside[: max(0, limit - len(inside))]]
    return {**answer, "mode": "hybrid", "outside": len(hits) - min(limit, len(inside)), "hits": hits,
            "conversations": _conversations(reader, inside, outside, answer["terms"] or query, limit)}


def _conversations(reader: Reader, inside: Scored, outside: Scored, terms: str, limit: int) -> list[dict[str, Any]]:
    """The conversations of the inside pool, then those found only outside the time range (marked so)."""
    first = rank_conversations(reader, inside, terms, limit=limit)
    if not outside or len(first) >= limit:
        return first
    seen = {row["conversation"] for row in first}
    more = [{**row, "outside_range": True} for row in rank_conversations(reader, outside, terms, limit=limit)
            if row["conversation"] not in seen]
    return first + more[: limit - len(first)]
