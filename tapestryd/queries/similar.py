"""Similar documents by TF-IDF cosine, from the daemon's warm index.

The daemon registers its :class:`~tapestryd.projections.tfidf.SimilarityIndex` for its
``projections.db`` (:mod:`tapestryd.queries.warm`); the ``similar`` query uses it and
never refits per query. Without a daemon (the CLI alone) there is no warm index, so one
is built for this answer and the result says so (``index.warm`` is False).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.projections.tfidf import MESSAGE, Match, SimilarityIndex
from tapestryd.queries.nodes import nodes_by_keys
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchHit, message_hits
from tapestryd.queries.tokens import flatten
from tapestryd.queries.warm import register_warm_index, unregister_warm_index, warm_index

__all__ = ["SIMILAR_LEVELS", "hydrate", "kinds_for", "message_hits", "register_warm_index", "similar",
           "unregister_warm_index", "warm_index"]

SIMILAR_LEVELS = ("all", "messages", "summaries", "L0", "L1", "L2", "L3", "L4")


def kinds_for(level: str) -> set[int] | None:
    """The index kinds a ``--level`` keeps (None: all). Raises TapestryError for an unknown level."""
    if level not in SIMILAR_LEVELS:
        raise TapestryError(f"unknown level {level!r}; use one of {', '.join(SIMILAR_LEVELS)}")
    if level == "all":
        return None
    if level == "messages":
        return {MESSAGE}
    return {0, 1, 2, 3, 4} if level == "summaries" else {int(level[1])}


def similar(reader: Reader, query: str, *, top: int = 10, level: str = "all") -> dict[str, Any]:
    """The ``top`` messages and summaries most similar to ``query`` (cosine > 0), best first.

    Returns ``{query, level, top, index: {warm, ...status}, hits}``; hits have the shape of
    :class:`~tapestryd.queries.search.SearchHit` with the cosine as ``score``. Raises
    TapestryError for an unknown level, or when the warm index is still being built.
    """
    kinds = kinds_for(level)
    index, warm = warm_index(reader.paths.projections_db), True
    if index is None:
        index, warm = SimilarityIndex(reader.paths.projections_db), False
        index.build()
    try:
        matches = index.query(query, top=top, kinds=kinds)
    except TimeoutError as exc:
        raise TapestryError("the similarity index is still being built; try again in a minute") from exc
    finally:
        if not warm:
            index.stop()
    return {"query": query, "level": level, "top": top, "index": {"warm": warm, **index.status()},
            "hits": [h.to_dict() for h in hydrate(reader, matches)]}


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
