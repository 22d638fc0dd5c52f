"""Keyword ranking of messages: FTS5's BM25 candidates, reranked by their turns and their conversation.

The one keyword ranking of search, the same with the daemon up or down (it reads only
``projections.db``). Measured on the LoCoMo dev split (``bench/eval_retrieval.py``,
message-level evidence recall@10 over categories 1–4): FTS5 ``bm25()`` alone .531, with
neighbouring turns .639, with the conversation's score too .694, with the windows and the
blocks too .731, and with the block's score in place of the conversation's .727 (recall@5
.593 → .617, @25 .791 → .808, session recall@5 .846 → .850); the steps are the fields below,
0 turns one off. With soft narrowing by time phrases (search's ``widen``) .737; then the
block's weight (window 1): 0.5 .728, 1 .737, 1.25 .740, 1.5 .746, 1.75 .743, 2 .739; at block
1.5, the window's weight: 0.5 .744, 1 .746, 1.5 .752, 2 .750, 2.5 .741, 3 .742; the defaults
sit in the middle of both plateaus, block 1.5 and window 1.5 (recall@5/@10/@25 .631 / .752 /
.812 against .625 / .737 / .816 at 1 and 1). Step 3 is off by default: step 4 scores the same thing over the index, and
step 3 cost about a third of the ranking's CPU time (100k messages, 60 bench queries: median
24 ms with it, 20 ms without, 15 ms with neither windows nor blocks).

Where the time goes (``bench/search_bench.py``'s 60 queries, CPU a query, 1M messages, on a
shared machine): step 1's FTS5 candidates 27 ms of 39, the windows 3.2, the blocks 3.2,
snippets 1.2, the rest about 4. ``bm25()`` costs about a microsecond a match and phrase, and
a common word's candidates score :data:`~tapestryd.projections.messages_search.RANK_WINDOW`
(20,000) of its matches; each statement also walks every match of each phrase in its table
for the idf, which the windows and blocks bound by ranking their newest shards
(:mod:`tapestryd.projections.windows`, :mod:`tapestryd.projections.blocks`). Through the
daemon's socket (``bench/daemon_first_start.py --search 120`` on a copy of the 1M home): with
one windows table, one blocks table and a walk for filtered queries, daemon CPU 58.7 ms a
request, wall median 78.7 ms, p95 134.0 (load 3.5); with the shards and one walk, 44.0–44.1 ms,
median 41.3–44.5, p95 60.3–97.6 (load 2.5–3.2). A window of 10,000 would give 38.3 ms, median
37.4, p95 58.6 (load 4.1–4.6; in process CPU median 36.3 -> 24.7 ms) for a top 10 that keeps
92.0% of the answers instead of 95.5% (mean overlap with the one-table ranking). The windows and the blocks are
ranked on side connections while the candidates are (``side``, :mod:`tapestryd.queries.side_reads`): 100k wall
median 14.9–18.9 ms against 18.0–22.0 one after the other (CPU +2–4 ms for the threads); ranking the candidates
of a common word in two halves at once as well saved no wall time through the socket at 1M and cost 13–15 ms
more CPU a request, so it is not done.

0. **Titles.** A conversation whose title holds every query term (a case-insensitive
   substring) is found by its title: its first turn joins the candidates with
   :attr:`KeywordRanker.title` times the best candidate's score (the :data:`TITLED` most
   recently active such conversations).
1. **Candidates.** FTS5 ranks the messages holding every content word of the query by
   ``bm25()``, then those holding any, to fill :attr:`KeywordRanker.pool`
   (:func:`~tapestryd.projections.messages_search.ranked_ids`, with its bounded work on common words
   and its filters). Each gets ``-bm25`` as its score (higher is better).

   **Windows.** Each message is also indexed with the turns before and after it
   (:mod:`tapestryd.projections.windows`); FTS5 ranks those windows by ``bm25()`` for any
   query word. Each candidate gets ``window`` times its window's score, scaled so the best
   window adds ``window`` times the best candidate's score, and the messages of the
   :attr:`~KeywordRanker.pool` best windows that pass the filters join the candidates,
   though they may hold none of the words (a reply whose question named the thing asked),
   when the turns around them pass the filters too (the words may be a left-out turn's,
   which brings nothing, as in step 2).
2. **Neighbouring turns.** A conversation answers in turns: the fact is often in the
   reply to the turn that holds the question's words, or in the turn before it. Each of
   the best :attr:`~KeywordRanker.givers` candidates lends ``neighbour`` times its score to
   the turn just before and just after it in its conversation (which may thereby enter the
   ranking), as if each message were indexed with its neighbours.
3. **The conversation.** A conversation (session) whose turns hold the question's words
   between them is likelier to hold the answer, though no one turn holds them all. Its
   score is BM25 with the conversation as the document, over what the ranking holds of it
   (the candidates and turns from steps 1 and 2): for each query stem, the number ``n`` of
   those messages holding it, saturated (``n (k1 + 1) / (n + k1)``, :data:`SESSION_K1`) and
   weighted by the stem's idf over all messages (Lucene's ``ln(1 + (N - df + 0.5) / (df +
   0.5))``, ``df`` from FTS5's vocabulary). Every message gets ``session`` times its
   conversation's score, scaled so the best conversation adds ``session`` times the best
   candidate's score (``session``, 0 by default: see above). Stems are FTS5's
   (:class:`~tapestryd.projections.analysis.Analyzer`),
   read from the first :data:`SCAN` characters of each message (only words that may stem to
   a query stem are stemmed: :func:`~tapestryd.projections.analysis.stem_starts`).
4. **The block.** The same idea over the whole index: each block of up to 64 of a
   conversation's messages is one FTS5 document (:mod:`tapestryd.projections.blocks`),
   ranked by ``bm25()`` for any query word (the :attr:`~KeywordRanker.blocks` best, among
   the newest :data:`~tapestryd.projections.blocks.BLOCK_WINDOW` matching blocks). Every
   ranked message gets ``block`` times its block's score, scaled so the best block adds
   ``block`` times the best candidate's score; unlike step 3, it counts the words of turns
   that did not make the ranking, with idf over blocks.
5. **The speaker.** Questions name people ("When did Caroline go to …"); messages rarely
   do, but the two sides of a conversation call each other by name ("Hey Mel!", "Thanks,
   Caroline!"), so a name one side calls the other is the other side's
   (:mod:`tapestryd.projections.speaker_names`, read at query time, so a name heard late in
   a conversation names its earlier turns too). Every ranked turn said by someone a query
   word names gets ``speaker`` times the best candidate's score; the word still matches as
   a word too. Measured as above (recall@5/@10/@25, session recall@5): without .631 / .752
   / .812 / .858; ``speaker`` 0.25 .668 / .763 / .829 / .863, 0.5 .699 / .779 / .841 / .866,
   0.75 .710 / .793 / .844 / .872, 1 .711 / .792 / .847 / .875, 1.25 .708 / .796 / .850 /
   .876, 1.5 .692 / .784 / .851 / .877, 2 .683 / .768 / .852 / .881 (recall@10 rose in each
   of the three conversations at 1: .733 → .779, .783 → .815, .754 → .792). Lifting every
   turn of a conversation where the name is heard, whoever said it, reached only .759 at
   1; matching the name as the speaker alone, not as a word, .785.

A turn holding none of the words (it entered by its window, step 1, or a neighbour's loan,
step 2) is marked and ranks at most just below the best of its neighbouring turns that hold
them, so someone who searched a word sees the message holding it before its neighbour. Returned scores
are negated (lower is better, as ``bm25()``), so callers keep one convention. Ties go to the lower message id.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from dataclasses import dataclass

from tapestryd.projections.analysis import Analyzer
from tapestryd.projections.blocks import block_scores, blocks_of
from tapestryd.projections.messages_search import (MessageFilters, any_expression, conversations_and_texts,
                                                   document_frequencies, every_expression, ranked_ids,
                                                   titled_openings, turns_around)
from tapestryd.projections.speaker_names import named_turns
from tapestryd.projections.windows import window_scores
from tapestryd.queries.side_reads import InlineReads, SideReads

__all__ = ["KEYWORD_RANKER", "SCAN", "SESSION_K1", "TITLED", "KeywordRanker"]

TITLED = 5
"""Conversations found by their title whose opening turn joins the candidates, at most."""
SCAN = 4000
"""Characters of a message read for the query's stems it holds (snippets read as many)."""
SESSION_K1 = 1.2
"""BM25's saturation of the conversation score: the n-th message holding a word adds less."""
_ANALYZER = Analyzer()


@dataclass(frozen=True)
class KeywordRanker:
    """The reranking weights (see the module docstring); 0 turns a step off.

    ``pool``: FTS5 candidates kept; ``givers``: how many of the best lend to their
    neighbours; ``neighbour``: the share of its score a candidate lends each neighbour;
    ``session``: the weight of the conversation's score; ``any_window``: the newest matches of any word
    that compete to fill the pool (the ``window`` of
    :func:`~tapestryd.projections.messages_search.ranked_ids`; every-word matches keep its default);
    ``title``: the score of a conversation's opening turn when its title holds every query
    term, as a share of the best candidate's (step 0); ``window``: the weight of the window's
    score (step 1); ``block``: the weight of the block's score, ``blocks``: how many of the
    best blocks lend it (step 4); ``speaker``: the lift of a turn said by someone the query
    names, as a share of the best candidate's score (step 5).
    """

    pool: int = 100
    givers: int = 50
    neighbour: float = 0.7
    session: float = 0.0
    any_window: int = 5000
    title: float = 1.0
    block: float = 1.5
    blocks: int = 50
    window: float = 1.5
    speaker: float = 1.0

    def rank(self, conn: sqlite3.Connection, terms: list[str], filters: MessageFilters,
             limit: int, *, side: SideReads | None = None) -> tuple[list[tuple[int, float]], dict[int, str]]:
        """``(message id, score)`` of the best ``limit`` messages for content words ``terms``, best first
        (a turn holding none of the words just below its best neighbour holding them, at most), and why
        those among them that hold none of the words came: ``next_to_match`` (by a neighbouring turn or
        its window) or ``title_match`` (their
        conversation's title holds the words).

        ``score`` is the negated combined score (lower is better). Every returned message
        passes ``filters``. ``side`` ranks the windows and the blocks while ``conn`` ranks the
        candidates (:mod:`tapestryd.queries.side_reads`; default: on ``conn``, in turn): the
        answer is the same. Raises StoreError on a database error.
        """
        if not terms or limit <= 0:
            return [], {}
        side = side or InlineReads(conn)
        expr = any_expression(terms)
        windows = side.submit(lambda c: window_scores(c, expr, max(self.pool, limit)) if self.window else {})
        blocks = side.submit(lambda c: block_scores(c, expr, self.blocks) if self.block else {})
        wanted = sorted({stem for term in terms for stem in _ANALYZER.terms(term)})
        # The words' document frequencies weigh step 3; reading them walks each word's matches.
        frequencies = document_frequencies(conn, wanted) if wanted and self.session else ({}, 0)
        base = self.candidates(conn, terms, filters, max(self.pool, limit))
        holding = set(base)
        if self.window:
            self._add_windows(conn, base, windows.result(), filters)
        openings = [i for i in titled_openings(conn, terms, filters, TITLED) if i not in base] if self.title else []
        if not base and not openings:
            return [], {}
        top = max(base.values(), default=1.0)
        base.update({i: self.title * top for i in openings})
        scores = dict(base)
        best = sorted(base, key=lambda i: (-base[i], i))
        lent: dict[int, float] = defaultdict(float)
        # Each turn's neighbours, read once: the givers' here, the rest as _below_holders needs them.
        neighbours = {i: around for i, (_, around) in turns_around(conn, best[: self.givers]).items()
                      } if self.neighbour else {}
        for giver, around in neighbours.items():
            for turn in around:
                lent[turn] += self.neighbour * base[giver]
        # Every candidate passes the filters; a lent turn counts only if it does too. Without step 3
        # only the lent turns that are not candidates need a look.
        passing = conversations_and_texts(conn, [*(base if self.session else ()), *(i for i in lent if i not in base)],
                                          filters, SCAN if self.session else 0)
        for turn, amount in lent.items():
            if turn in base or turn in passing:
                scores[turn] = scores.get(turn, 0.0) + amount
        if self.session:
            self._add_sessions(scores, base, wanted, frequencies, {i: passing[i] for i in scores if i in passing})
        if self.block:
            self._add_blocks(conn, scores, base, blocks.result())
        if self.speaker:
            self._add_speakers(conn, scores, base, terms)
        if self.neighbour or self.window:
            order = _below_holders(conn, scores, holding | set(openings), neighbours, limit)
        else:
            order = sorted(scores, key=lambda i: (-scores[i], i))[:limit]
        marks = {i: "next_to_match" for i in order if i not in holding} | {i: "title_match" for i in openings}
        return [(i, -scores[i]) for i in order], {i: mark for i, mark in marks.items() if i in scores and i in order}

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

    def _add_windows(self, conn: sqlite3.Connection, base: dict[int, float], found: dict[int, float],
                     filters: MessageFilters) -> None:
        """Step 1, windows: add each candidate's share of its window's score (``found``, the best windows,
        ``{message id: -bm25}``) to ``base``, in place; the messages of the :attr:`pool` best windows that
        pass ``filters`` join the candidates when the turns around them pass too: a window's words may be
        those of a neighbour that ``filters`` leave out (by role, subagent, machine or time), which brings
        nothing (as a neighbour's loan, step 2). A window of a message ``conn`` cannot see (a side
        connection's newer snapshot) passes no filter."""
        if not found or max(found.values()) <= 0:
            return
        passing = conversations_and_texts(conn, [i for i in list(found)[: self.pool] if i not in base], filters, 0)
        if passing and (filters.role or not filters.subagents or filters.origin or filters.since or filters.until):
            around = turns_around(conn, list(passing))
            kept = conversations_and_texts(conn, sorted({n for _, ns in around.values() for n in ns}), filters, 0)
            passing = {i: v for i, v in passing.items() if all(n in kept for n in around.get(i, ("", []))[1])}
        scale = self.window * max(base.values(), default=1.0) / max(found.values())
        for i, score in found.items():
            if i in base or i in passing:
                base[i] = base.get(i, 0.0) + scale * score

    def _add_blocks(self, conn: sqlite3.Connection, scores: dict[int, float], base: dict[int, float],
                    found: dict[int, float]) -> None:
        """Add each message's share of its block's score (``found``, the best blocks, ``{block id: -bm25}``;
        step 4) to ``scores``, in place."""
        if not found or max(found.values()) <= 0:
            return
        member = blocks_of(conn, list(scores))
        scale = self.block * max(base.values()) / max(found.values())
        for i in scores:
            scores[i] += scale * found.get(member.get(i, 0), 0.0)

    def _add_speakers(self, conn: sqlite3.Connection, scores: dict[int, float], base: dict[int, float],
                      terms: list[str]) -> None:
        """Add :attr:`speaker` times the best candidate's score to each message of ``scores`` said by someone
        a query word (not a phrase) of ``terms`` names (step 5), in place."""
        named = named_turns(conn, [t for t in terms if " " not in t], list(scores))
        lift = self.speaker * max(base.values(), default=1.0)
        for i in named:
            scores[i] += lift

    def _add_sessions(self, scores: dict[int, float], base: dict[int, float], wanted: list[str],
                      frequencies: tuple[dict[str, int], int], docs: dict[int, tuple[str, str]]) -> None:
        """Add each message's share of its conversation's score (step 3) to ``scores``, in place.

        ``wanted`` are the query's stems, ``frequencies`` their document frequencies and the
        count of messages (:func:`~tapestryd.projections.messages_search.document_frequencies`);
        ``docs`` maps each scored message to its conversation's key and the first
        :data:`SCAN` characters of its text.
        """
        if not wanted or not docs:
            return
        held: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        stems = _ANALYZER.stems_held([text for _, text in docs.values()], set(wanted))
        for (conv, _), found in zip(docs.values(), stems):
            for stem in found:
                held[conv][stem] += 1
        conversation = {i: conv for i, (conv, _) in docs.items()}
        df, total = frequencies
        idf = {t: math.log(1 + (total - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5)) for t in wanted}
        totals = {conv: sum(idf[t] * n * (SESSION_K1 + 1) / (n + SESSION_K1) for t, n in sorted(counts.items()))
                  for conv, counts in held.items()}
        if not totals or max(totals.values()) <= 0:
            return
        scale = self.session * max(base.values()) / max(totals.values())
        for i in scores:
            scores[i] += scale * totals.get(conversation.get(i, ""), 0.0)


KEYWORD_RANKER = KeywordRanker()
"""The weights search uses unless a caller passes its own."""


def _below_holders(conn: sqlite3.Connection, scores: dict[int, float], holding: set[int],
                   neighbours: dict[int, list[int]], limit: int) -> list[int]:
    """The best ``limit`` of ``scores`` (ids, best first; ties to the lower id) once each turn holding none
    of the words (it came by a neighbour's loan or its window) is capped just below the best of its
    neighbouring turns that hold them; ``scores`` is capped in place.

    A reply next to a message holding the searched words is often the answer, so it may
    rank high, but never above the message that brought it: someone who searched a word
    sees that word's message first, its neighbour right after. ``scores`` are positive
    (higher is better). ``neighbours`` (``{id: [previous id, next id]}``) holds the turns
    already read and gains those read here. A cap only lowers a score and a holder's score
    never changes, so only the turns reaching the best ``limit`` are capped (a round at a
    time, until those best are all capped or holders); the order is the one capping every
    turn would give.
    """
    capped: set[int] = set()
    while True:
        order = sorted(scores, key=lambda i: (-scores[i], i))[:limit]
        todo = [i for i in order if i not in holding and i not in capped]
        if not todo:
            return order
        neighbours.update((i, around) for i, (_, around) in
                          turns_around(conn, [i for i in todo if i not in neighbours]).items())
        for turn in todo:
            capped.add(turn)
            ceiling = max((scores[n] for n in neighbours.get(turn, ()) if n in holding and n in scores), default=None)
            if ceiling is not None and scores[turn] >= ceiling:
                scores[turn] = math.nextafter(ceiling, -math.inf)
