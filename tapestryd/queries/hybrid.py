"""Hybrid retrieval: BM25 search and TF-IDF similarity fused by reciprocal rank, with turns.

1. The two arms fail differently (BM25 saturates each word's count and rewards rare words;
   TF-IDF cosine, over the same stems, favours short documents close to the whole
   question), so their rankings are fused by reciprocal rank (RRF, Cormack, Clarke and
   Büttcher, SIGIR 2009): ``sum(1 / (60 + rank))``.
2. Conversations answer in turns: the message just before or after a good match (the
   question it answers, the reply it got) often holds the fact itself. Each of the top
   fused messages lends ``NEIGHBOUR_WEIGHT`` of its RRF score to its neighbours in the same
   conversation, which may then enter the ranking.
3. The answer also ranks conversations (sessions): the whole fused pool, before the cut at
   ``limit``, is grouped by conversation and fused again at that level
   (:mod:`tapestryd.queries.sessions`), so a session that several turns answer, or whose
   turns hold the question's words between them, is not ranked by its best turn alone.

The time phrase read by the search arm narrows both arms; inside-range results come
first and other times only fill up behind them, as in :func:`search`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tapestryd.db import translate_errors
from tapestryd.events.types import parse_utc
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import RRF_K, SearchFilters, message_hits, search, with_conversation_key
from tapestryd.queries.sessions import rank_conversations
from tapestryd.queries.similar import similar

__all__ = ["NEIGHBOUR_WEIGHT", "hybrid_search"]

NEIGHBOUR_WEIGHT = 0.5
Hit = dict[str, Any]
Scored = list[tuple[Hit, float]]


def hybrid_search(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *, now: datetime,
                  limit: int = 20, pool: int = 100, widen: bool = False) -> dict[str, Any]:
    """The fused ranking of ``pool`` candidates from each arm (and their neighbours), best ``limit`` first.

    Returns the search answer's shape (``query``, ``terms``, ``time``, ``outside``, ``hits``
    …) with ``mode`` ``hybrid`` and ``conversations``: the best ``limit`` conversations of
    the fused pool (rows of :func:`rank_conversations`; those inside the time range first).
    ``widen`` as in :func:`search`. Raises TapestryError as :func:`search` and
    :func:`similar` do.
    """
    depth, filters = max(pool, limit), with_conversation_key(reader, filters)
    lexical = search(reader, query, filters, now=now, limit=depth, widen=widen)
    window = filters
    if lexical["time"]:
        window = replace(filters, since=_instant(lexical["time"]["since"]), until=_instant(lexical["time"]["until"]))
    close = [h for h in similar(reader, lexical["terms"] or query, top=depth * 3, level=filters.level)["hits"]
             if _passes(h, filters, reader.tz)]
    inside = _fuse(reader, [h for h in lexical["hits"] if not h["extra"].get("outside_range")],
                   [h for h in close if _passes(h, window, reader.tz)][:depth], window)
    outside: Scored = []
    if lexical["time"] and widen and len(inside) < limit:
        seen = {_ident(h) for h, _ in inside}
        rest = _fuse(reader, [h for h in lexical["hits"] if h["extra"].get("outside_range")],
                     [h for h in close if not _passes(h, window, reader.tz)][:depth], filters)
        outside = [({**h, "extra": {**h["extra"], "outside_range": True}}, score) for h, score in rest
                   if _ident(h) not in seen]
    hits = [h for h, _ in inside[:limit]] + [h for h, _ in outside[: max(0, limit - len(inside))]]
    return {**lexical, "mode": "hybrid", "outside": len(hits) - min(limit, len(inside)), "hits": hits,
            "conversations": _conversations(reader, inside, outside, lexical["terms"] or query, limit)}


def _conversations(reader: Reader, inside: Scored, outside: Scored, terms: str, limit: int) -> list[dict[str, Any]]:
    """The conversations of the inside pool, then those found only outside the time range (marked so)."""
    first = rank_conversations(reader, inside, terms, limit=limit)
    if not outside or len(first) >= limit:
        return first
    seen = {row["conversation"] for row in first}
    more = [{**row, "outside_range": True} for row in rank_conversations(reader, outside, terms, limit=limit)
            if row["conversation"] not in seen]
    return first + more[: limit - len(first)]


def _fuse(reader: Reader, lexical: list[Hit], close: list[Hit], window: SearchFilters) -> Scored:
    """RRF of the two lists, then neighbour turns: every candidate with its fused score, best first."""
    scores: dict[tuple[Any, ...], float] = {}
    hits: dict[tuple[Any, ...], Hit] = {}
    for ranking in (lexical, close):
        for rank, hit in enumerate(ranking, start=1):
            hits.setdefault(_ident(hit), hit)
            scores[_ident(hit)] = scores.get(_ident(hit), 0.0) + 1.0 / (RRF_K + rank)
    fused = sorted(scores, key=lambda ident: -scores[ident])
    lent = _neighbours(reader, [hits[i] for i in fused[: max(len(lexical), len(close))] if i[0] == "message"])
    fused_scores = dict(scores)  # each giver lends from its fused score, never from what it was lent
    for (giver, neighbour) in lent:
        if _passes(neighbour, window, reader.tz):
            hits.setdefault(_ident(neighbour), neighbour)
            scores[_ident(neighbour)] = (scores.get(_ident(neighbour), 0.0)
                                         + NEIGHBOUR_WEIGHT * fused_scores[_ident(giver)])
    return [(hits[i], scores[i]) for i in sorted(scores, key=lambda ident: -scores[ident])]


def _neighbours(reader: Reader, givers: list[Hit]) -> list[tuple[Hit, Hit]]:
    """``(giver, neighbour)`` for the message before and after each giver in its conversation."""
    pairs: list[tuple[Hit, int]] = []
    with translate_errors(reader.conn):
        for hit in givers:
            for sql in ("SELECT id FROM messages WHERE conversation = ? AND (ts, id) < (?, ?) ORDER BY ts DESC, id DESC"
                        " LIMIT 1",
                        "SELECT id FROM messages WHERE conversation = ? AND (ts, id) > (?, ?) ORDER BY ts, id LIMIT 1"):
                row = reader.conn.execute(sql, (hit["conversation"], hit["ts"], hit["id"])).fetchone()
                if row is not None:
                    pairs.append((hit, int(row[0])))
    found = message_hits(reader, sorted({mid for _, mid in pairs}))
    return [(giver, found[mid].to_dict()) for giver, mid in pairs if mid in found]


def _ident(hit: Hit) -> tuple[Any, ...]:
    return (hit["kind"], hit["id"], hit["key"])


def _instant(text: str | None) -> datetime | None:
    return parse_utc(text) if text else None


def _passes(hit: Hit, window: SearchFilters, tz: ZoneInfo) -> bool:
    """Whether a hit passes the filters the search arm applies in SQL (agent, role, conversation, time)."""
    for name in ("agent", "role", "conversation"):
        wanted = getattr(window, name)
        if wanted and hit[name] != wanted:
            return False
    if hit["kind"] == "summary":
        return not window.role and _period_inside(hit, window, tz)
    ts = parse_utc(hit["ts"])
    return (window.since is None or ts >= window.since) and (window.until is None or ts < window.until)


def _period_inside(hit: Hit, window: SearchFilters, tz: ZoneInfo) -> bool:
    start, end = str(hit["extra"].get("period_start", "")), str(hit["extra"].get("period_end", ""))
    since = window.since.astimezone(tz).date().isoformat() if window.since else ""
    until = (window.until - timedelta(microseconds=1)).astimezone(tz).date().isoformat() if window.until else ""
    return (not since or end >= since) and (not until or start <= until)
