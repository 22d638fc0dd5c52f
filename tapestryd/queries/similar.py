"""Similar documents: TF-IDF cosine from the daemon's warm index, or FTS5's persisted index when cold.

The daemon hands its :class:`~tapestryd.projections.tfidf.SimilarityIndex` to ``similar``
(the read operations' ``similarity``, :class:`~tapestryd.operations.base.ReadDeps`); once it is
fitted, ``similar`` uses it and never refits per query. Without a daemon (the CLI alone), the index
the daemon saved (:mod:`tapestryd.projections.warmfile`) is read and brought up to date with what
was stored since, read-only (:func:`saved_index`), so the answer is the daemon's. With no such file
still current, or while the daemon's index is still being fitted after a start, nothing is fitted
for the answer (that took 24 s on a small home): the full-text index on disk answers at once
(:func:`cold_similar`), and the result says so (``index.warm`` False, ``index.engine`` ``fts5``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.projections.tfidf import MESSAGE, Match, SimilarityIndex
from tapestryd.projections.warmfile import index_file
from tapestryd.projections.messages_search import document_frequencies
from tapestryd.projections.hierarchy_views import nodes_by_keys
from tapestryd.queries.reader import Reader
from tapestryd.queries.rerank import KEYWORD_RANKER, KeywordRanker
from tapestryd.queries.search import (SearchFilters, SearchHit, content_terms, message_hits, one_per_passage, rrf_merge,
                                      search_messages, search_summaries)
from tapestryd.queries.tokens import flatten

__all__ = ["COLD_TERMS", "SIMILAR_LEVELS", "cold_similar", "hydrate", "kinds_for", "message_hits", "saved_index",
           "similar"]

SIMILAR_LEVELS = ("all", "messages", "summaries", "L0", "L1", "L2", "L3", "L4")
COLD_TERMS = 16
"""The rarest words of a text the cold path asks FTS5 for (a paragraph's common words add cost, not signal)."""


def saved_index(reader: Reader) -> SimilarityIndex | None:
    """The daemon's saved warm index of ``reader``'s home (:mod:`tapestryd.projections.warmfile`), brought up to
    date read-only, for an answer without a daemon that is the daemon's; None when there is none usable
    (:meth:`~tapestryd.projections.tfidf.SimilarityIndex.open_saved`): the cold path answers. The caller stops
    the index it gets (closing its connection)."""
    path = index_file(reader.paths.projections_db)
    if not path.exists():  # nothing to read, and numpy left unimported
        return None
    index = SimilarityIndex(reader.paths.projections_db, saved=path)
    if index.open_saved():
        return index
    index.stop()
    return None


def kinds_for(level: str) -> set[int] | None:
    """The index kinds a ``--level`` keeps (None: all). Raises TapestryError for an unknown level."""
    if level not in SIMILAR_LEVELS:
        raise TapestryError(f"unknown level {level!r}; use one of {', '.join(SIMILAR_LEVELS)}")
    if level == "all":
        return None
    if level == "messages":
        return {MESSAGE}
    return {0, 1, 2, 3, 4} if level == "summaries" else {int(level[1])}


def similar(reader: Reader, query: str, *, top: int = 10, level: str = "all",
            ranker: KeywordRanker = KEYWORD_RANKER, index: SimilarityIndex | None = None) -> dict[str, Any]:
    """The ``top`` messages and summaries most similar to ``query``, best first.

    Returns ``{query, level, top, index: {warm, ...status}, hits}``; hits have the shape of
    :class:`~tapestryd.queries.search.SearchHit`. From the warm ``index`` (the daemon's) once it
    is fitted (``score``: the cosine, in (0, 1]); else from FTS5 at once (:func:`cold_similar`,
    ``index.engine`` ``fts5``). Raises TapestryError for an unknown level.
    """
    kinds = kinds_for(level)
    if index is None or not index.ready:
        reason = "not running" if index is None else "still fitting its index"
        return {"query": query, "level": level, "top": top,
                "index": {"warm": False, "engine": "fts5", "reason": reason,
                          **({} if index is None else index.status())},
                "hits": [h.to_dict() for h in cold_similar(reader, query, top=top, level=level, ranker=ranker)]}
    matches = index.query(query, top=top, kinds=kinds, wait=0)
    return {"query": query, "level": level, "top": top, "index": {"warm": True, **index.status()},
            "hits": [h.to_dict() for h in hydrate(reader, matches)]}


def cold_similar(reader: Reader, query: str, *, top: int = 10, level: str = "all",
                 ranker: KeywordRanker = KEYWORD_RANKER) -> list[SearchHit]:
    """Similar documents from FTS5 alone: the text's :data:`COLD_TERMS` rarest content words, ranked.

    Messages are ranked by ``ranker`` (any of the words; see :mod:`tapestryd.queries.rerank`),
    summaries by FTS5's BM25, and the two lists fused by reciprocal rank, a summary quoting a
    hit folded into it (:func:`~tapestryd.queries.search.one_per_passage`). ``score`` is the
    ranking's score made higher-is-better. Raises TapestryError for an unknown level.
    """
    kinds_for(level)
    terms = [t for t in content_terms(query) if " " not in t]
    if len(terms) > COLD_TERMS:
        frequencies, _ = document_frequencies(reader.conn, terms)
        terms = sorted(terms, key=lambda t: (frequencies.get(t, 0), t))[:COLD_TERMS]
    text = " ".join(terms)
    lists = []
    if level in ("all", "messages"):
        lists.append(search_messages(reader, text, SearchFilters(), limit=top, ranker=ranker))
    if level != "messages":
        lists.append(search_summaries(reader, text, SearchFilters(level="all" if level == "summaries" else level),
                                      limit=top))
    hits = one_per_passage(reader, rrf_merge(lists, limit=sum(map(len, lists)), key=lambda h: (h.kind, h.id, h.key)))
    return [replace(h, score=round(-h.score, 6)) for h in hits[:top]]


def hydrate(reader: Reader, matches: list[Match]) -> list[SearchHit]:
    """The matches as search hits, in match order; documents gone from the database are left out."""
    messages = message_hits(reader, [int(m.doc[2:]) for m in matches if m.doc.startswith("m:")])
    nodes = {f"n:{n['key']}": n for n in nodes_by_keys(reader.conn, [m.doc[2:] for m in matches
                                                                     if m.doc.startswith("n:")])}
    hits = []
    for match in matches:
        if match.doc.startswith("m:") and int(match.doc[2:]) in messages:
            hits.append(replace(messages[int(match.doc[2:])], score=round(match.score, 6)))
        elif match.doc in nodes:
            hits.append(_node_hit(reader, nodes[match.doc], match))
    return hits


def _local(reader: Reader, ts: str) -> str:
    return parse_utc(ts).astimezone(reader.tz).isoformat(timespec="seconds")


def _node_hit(reader: Reader, node: dict[str, Any], match: Match) -> SearchHit:
    ts = str(node["last_ts"] or node["first_ts"] or f"{node['period_end']}T00:00:00.000000Z")
    return SearchHit("summary", 0, node["conversation"] or "", "", node["title"] or "", node["agent"], "summary",
                     ts, _local(reader, ts), flatten(node["summary"] or "", 200), round(match.score, 6),
                     key=node["key"], level=f"L{node['level']}",
                     extra={"period_start": node["period_start"], "period_end": node["period_end"]})
