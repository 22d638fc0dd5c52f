"""Conversations ranked from a fused pool of hits: session-level fusion for the hybrid search.

A conversation answers a question when several of its turns do, when its turns hold the
question's words between them although no single turn holds them all, or when its title
says what (or whom) it is about. Ranking conversations by their best hit alone (the order
in which they first appear in the hit list) sees none of these, so the hybrid's whole
candidate pool (both arms and neighbour turns, before the cut at ``limit``) is grouped by
conversation and three session-level rankings are fused by reciprocal rank (Cormack,
Clarke and Büttcher, SIGIR 2009):

1. CombSUM (Fox and Shaw, TREC-2 1994): the sum of the fused scores of the conversation's
   candidates;
2. coordination level (Salton and McGill 1983, ch. 4; the session-level form of search's
   "every word first, then any word"): how many distinct query stems the conversation's
   candidate messages hold between them, ties broken by the best candidate's score (CombMAX);
3. the title as a field of its own (as BM25F weighs a title apart from the body; Robertson,
   Zaragoza and Taylor, CIKM 2004): the conversations whose title holds query stems, most
   stems first, ties broken by the best candidate's score.

Summaries of one conversation (L0 nodes carry it) add to its sum and its best score;
summaries of days, weeks … (no conversation) are left out. Stems are FTS5's
(:class:`~tapestryd.projections.analysis.Analyzer`), read from the first :data:`SCAN`
characters of each message, as snippets are; only words that may stem to a query stem are
stemmed (:func:`~tapestryd.projections.analysis.stem_starts`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from tapestryd.projections.analysis import Analyzer
from tapestryd.projections.messages_read import conversation_titles
from tapestryd.projections.messages_search import texts_of
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import RRF_K

__all__ = ["SCAN", "rank_conversations"]

SCAN = 4000  # characters of a message read for its stems (snippets read as many)
Hit = dict[str, Any]
_ANALYZER = Analyzer()


def rank_conversations(reader: Reader, pool: list[tuple[Hit, float]], terms: str, *,
                       limit: int) -> list[dict[str, Any]]:
    """The conversations of ``pool`` (hits with their fused scores), best ``limit`` first.

    Each row: ``conversation`` (key), ``title``, ``score`` (the RRF of the three rankings),
    ``sum`` (CombSUM), ``best`` (CombMAX), ``terms`` (distinct query stems held), ``hits``
    (candidates in the pool) and ``top`` (the best candidate's message key, or node key).
    ``terms`` is the query text the stems come from. Raises TapestryError on a database error.
    """
    groups: dict[str, list[tuple[Hit, float]]] = defaultdict(list)
    for hit, score in pool:
        if hit["conversation"]:
            groups[hit["conversation"]].append((hit, score))
    if not groups:
        return []
    wanted = set(_ANALYZER.terms(terms))
    held = _stems_held(reader, pool, wanted)
    rows = {conv: _row(conv, members, held) for conv, members in groups.items()}
    titles = conversation_titles(reader.conn, list(rows))
    in_title = {c: len(wanted.intersection(_ANALYZER.terms(titles.get(c, "")))) for c in rows}
    by_sum = sorted(rows, key=lambda c: -rows[c]["sum"])
    by_terms = sorted(rows, key=lambda c: (-rows[c]["terms"], -rows[c]["best"]))
    by_title = sorted((c for c in rows if in_title[c]), key=lambda c: (-in_title[c], -rows[c]["best"]))
    for ranking in (by_sum, by_terms, by_title):
        for rank, conv in enumerate(ranking, start=1):
            rows[conv]["score"] += 1.0 / (RRF_K + rank)
    best = sorted(rows, key=lambda c: (-rows[c]["score"], -rows[c]["best"]))[:limit]
    return [{**rows[c], "score": round(rows[c]["score"], 6), "title": titles.get(c, "")} for c in best]


def _row(conversation: str, members: list[tuple[Hit, float]], held: dict[int, set[str]]) -> dict[str, Any]:
    top, best = max(members, key=lambda member: member[1])
    stems = set().union(*(held.get(h["id"], set()) for h, _ in members if h["kind"] == "message"))
    return {"conversation": conversation, "title": "", "score": 0.0, "sum": round(sum(s for _, s in members), 6),
            "best": round(best, 6), "terms": len(stems), "hits": len(members),
            "top": top["message_key"] if top["kind"] == "message" else top["key"]}


def _stems_held(reader: Reader, pool: list[tuple[Hit, float]], wanted: set[str]) -> dict[int, set[str]]:
    """Message id → the ``wanted`` stems among the first :data:`SCAN` characters of its text."""
    ids = sorted({h["id"] for h, _ in pool if h["kind"] == "message"})
    if not ids or not wanted:
        return {}
    texts = texts_of(reader.conn, ids, SCAN)
    held = _ANALYZER.stems_held(list(texts.values()), wanted)
    return {mid: stems for mid, stems in zip(texts, held)}

