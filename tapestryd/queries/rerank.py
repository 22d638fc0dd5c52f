"""Keyword ranking of messages: FTS5's BM25 candidates, reranked by their turns and their conversation.

The one keyword ranking of search, the same with the daemon up or down (it reads only
``projections.db``). Measured on the LoCoMo dev split (``bench/eval_retrieval.py``,
message-level evidence recall@10 over categories 1–4): FTS5 ``bm25()`` alone .518, with
neighbouring turns .659, with the conversation's score too .666 (the steps are the
fields below, each measured alone and together).

1. **Candidates.** FTS5 ranks the messages holding every content word of the query by
   ``bm25()``, then those holding any, to fill :attr:`KeywordRanker.pool`
   (:func:`~tapestryd.queries.ftsrank.ranked_ids`, with its bounded work on common words
   and its filters). Each gets ``-bm25`` as its score (higher is better).
2. **Neighbouring turns.** A conversation answers in turns: the fact is often in the
   reply to the turn that holds the question's words, or in the turn before it. Each of
   the best :attr:`~KeywordRanker.givers` candidates lends ``neighbour`` times its score to
   the turn just before and just after it in its conversation (which may thereby enter the
   ranking), as if each message were indexed with its neighbours.
3. **The conversation.** A conversation (session) whose turns hold the question's words
   between them is likelier to hold the answer: every message gets ``session`` times its
   conversation's score, the sum of the conversation's best :attr:`~KeywordRanker.session_top`
   candidate scores, scaled so the best conversation adds ``session`` times the best
   candidate's score.

Returned scores are negated (lower is better, as ``bm25()``), so callers keep one
convention. Ties go to the lower message id.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass

from tapestryd.queries.ftsrank import (MessageFilters, any_expression, conversations_of, every_expression, ranked_ids,
                                       turns_around)

__all__ = ["KEYWORD_RANKER", "KeywordRanker"]


@dataclass(frozen=True)
class KeywordRanker:
    """The reranking weights (see the module docstring); 0 turns a step off.

    ``pool``: FTS5 candidates kept; ``givers``: how many of the best lend to their
    neighbours; ``neighbour``: the share of its score a candidate lends each neighbour;
    ``session``: the weight of the conversation's score; ``session_top``: the candidates
    per conversation that make its score; ``any_window``: the newest matches of any word
    that compete to fill the pool (the ``window`` of
    :func:`~tapestryd.queries.ftsrank.ranked_ids`; every-word matches keep its default).
    """

    pool: int = 100
    givers: int = 50
    neighbour: float = 0.7
    session: float = 0.7
    session_top: int = 3
    any_window: int = 5000

    def rank(self, conn: sqlite3.Connection, terms: list[str], filters: MessageFilters,
             limit: int) -> tuple[list[tuple[int, float]], set[int]]:
        """``(message id, score)`` of the best ``limit`` messages for content words ``terms``, best first,
        and the ids among them that hold none of the words (found through a neighbouring turn).

        ``score`` is the negated combined score (lower is better). Every returned message
        passes ``filters``. Raises StoreError on a database error.
        """
        if not terms or limit <= 0:
            return [], set()
        base = self.candidates(conn, terms, filters, max(self.pool, limit))
        if not base:
            return [], set()
        scores = dict(base)
        best = sorted(base, key=lambda i: (-base[i], i))
        if self.neighbour:
            turns = turns_around(conn, best[: self.givers])
            lent: dict[int, float] = defaultdict(float)
            for giver, (_, around) in turns.items():
                for turn in around:
                    lent[turn] += self.neighbour * base[giver]
            passing = conversations_of(conn, [i for i in lent if i not in base], filters)
            for turn, amount in lent.items():
                if turn in base or turn in passing:
                    scores[turn] = scores.get(turn, 0.0) + amount
        if self.session:
            self._add_sessions(conn, scores, base, best, filters)
        order = sorted(scores, key=lambda i: (-scores[i], i))[:limit]
        return [(i, -scores[i]) for i in order], {i for i in order if i not in base}

    def candidates(self, conn: sqlite3.Connection, terms: list[str], filters: MessageFilters,
                   size: int) -> dict[int, float]:
        """Step 1: up to ``size`` messages by ``-bm25``: those holding every term, then any word to fill.

        A term holding a space is a quoted phrase: required in both lists.

        A message holding every word scores the same under both expressions (FTS5 sums
        ``bm25()`` over the query's phrases), so the two lists rank on one scale; the
        any-word list, the expensive one on common words, is asked only when too few
        hold every word, and ranks only its :attr:`any_window` newest matches.
        """
        every, some_expr = every_expression(terms), any_expression(terms)
        base = {i: -score for i, score in ranked_ids(conn, every, filters, size, "relevance")}
        if len(base) < size and some_expr != every:
            some = ranked_ids(conn, some_expr, filters, size + len(base), "relevance", window=self.any_window)
            for i, score in some:
                if len(base) >= size:
                    break
                base.setdefault(i, -score)
        return base

    def _add_sessions(self, conn: sqlite3.Connection, scores: dict[int, float], base: dict[int, float],
                      best: list[int], filters: MessageFilters) -> None:
        """Add each message's share of its conversation's score (step 3) to ``scores``, in place."""
        conversation = conversations_of(conn, list(scores), filters)
        tops: dict[str, list[float]] = defaultdict(list)
        for i in best:  # best first, so each list holds the conversation's best candidates
            if i in conversation and len(tops[conversation[i]]) < self.session_top:
                tops[conversation[i]].append(base[i])
        totals = {conv: sum(values) for conv, values in tops.items()}
        if not totals:
            return
        scale = self.session * base[best[0]] / max(totals.values())
        for i in scores:
            scores[i] += scale * totals.get(conversation.get(i, ""), 0.0)


KEYWORD_RANKER = KeywordRanker()
"""The weights search uses unless a caller passes its own."""
