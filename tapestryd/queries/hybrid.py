"""Hybrid retrieval: BM25 full-text search and TF-IDF similarity fused by reciprocal rank.

The two arms fail differently (BM25 needs shared stemmed words and rewards rare ones;
TF-IDF cosine over unstemmed words favours short documents close to the whole question),
so fusing their rankings (RRF, Cormack, Clarke and Büttcher, SIGIR 2009) finds more of
the evidence than either. The time phrase read by the search arm narrows both arms.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from tapestryd.events.types import parse_utc
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, rrf_merge, search
from tapestryd.queries.similar import similar

__all__ = ["hybrid_search"]


def hybrid_search(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *, now: datetime,
                  limit: int = 20, pool: int = 100) -> dict[str, Any]:
    """The fused ranking of ``pool`` candidates from each arm, best ``limit`` first.

    Returns the search answer's shape (``query``, ``terms``, ``time`` …) with ``mode``
    ``hybrid`` and the fused ``hits``. Raises TapestryError as :func:`search` and
    :func:`similar` do.
    """
    lexical = search(reader, query, filters, now=now, limit=max(pool, limit))
    window = filters
    if lexical["time"]:
        window = replace(filters, since=_instant(lexical["time"]["since"]), until=_instant(lexical["time"]["until"]))
    close = similar(reader, lexical["terms"] or query, top=max(pool, limit) * 3, level=filters.level)["hits"]
    close = [h for h in close if _inside(h, window, reader.tz)][: max(pool, limit)]
    fused = rrf_merge([lexical["hits"], close], limit=limit, key=lambda h: (h["kind"], h["id"], h["key"]))
    return {**lexical, "mode": "hybrid", "hits": fused}


def _instant(text: str | None) -> datetime | None:
    return parse_utc(text) if text else None


def _inside(hit: dict[str, Any], window: SearchFilters, tz: ZoneInfo) -> bool:
    """Whether a similarity hit passes the filters the search arm applied in SQL."""
    for name in ("agent", "role", "conversation"):
        wanted = getattr(window, name)
        if wanted and hit[name] != wanted:
            return False
    if hit["kind"] == "summary":
        return not window.role and _period_inside(hit, window, tz)
    ts = parse_utc(hit["ts"])
    return (window.since is None or ts >= window.since) and (window.until is None or ts < window.until)


def _period_inside(hit: dict[str, Any], window: SearchFilters, tz: ZoneInfo) -> bool:
    start, end = str(hit["extra"].get("period_start", "")), str(hit["extra"].get("period_end", ""))
    since = window.since.astimezone(tz).date().isoformat() if window.since else ""
    until = (window.until - timedelta(microseconds=1)).astimezone(tz).date().isoformat() if window.until else ""
    return (not since or end >= since) and (not until or start <= until)
