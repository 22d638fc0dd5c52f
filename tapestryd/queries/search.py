"""Full-text search over messages and summaries: FTS5 MATCH ranked by BM25, time first.

* Messages (``messages_fts``) and summaries (the hierarchy's ``nodes_fts`` over title and
  summary) are searched separately and merged: by reciprocal rank fusion for
  ``sort=relevance`` (BM25 scores of two indexes are not on one scale; RRF, Cormack et
  al. 2009, needs only ranks), by time for ``sort=time``.
* A free-text query becomes an FTS5 expression of quoted terms, so user text never
  becomes FTS5 syntax. Every content word must match first; when that finds fewer than
  ``limit`` hits, matches of any content word fill the rest (questions rarely share all
  their words with the answer).
* A time phrase in the query ("yesterday", "last week", "since March", "last 3 months",
  "2025-06-14..") narrows the range before ranking and is echoed back
  (:mod:`tapestryd.queries.timephrase`: "last N units" runs from local midnight N units
  back up to now; "last week" is the previous calendar week); when the range
  holds no match, matches from other times follow, marked as such. With ``widen`` the
  narrowing is soft: the ranking inside the range and the ranking over all times are
  fused by reciprocal rank (:data:`SOFT_K`), so the best inside come first and strong
  matches from other times rank among the weaker ones inside, each marked (a phrase may
  name when something happened rather than when it was discussed). A query that is
  only a time phrase lists that period's messages, newest first.
* ``conversation`` may be a conversation's full key or any unique end of it, as ``show``
  takes it (:func:`~tapestryd.queries.conversations.resolve_conversation`); ``forget
  --conversation``, which cannot be undone, asks for 6 or more characters.
* A time phrase in the query and a ``since``/``until`` filter both apply: the range
  searched is their overlap, echoed back with both ("reading 'last 2 months' as … within
  --since …"); ranges that do not overlap are an error.
* ``regex`` mode scans message text with a Python regular expression (case-insensitive), newest
  first, within a time limit (:mod:`tapestryd.queries.timed_pattern`).
* A query term holding characters FTS5 cannot find words in (Chinese, Japanese, Korean,
  Thai, emoji: :mod:`tapestryd.projections.unsplit`) is matched as a substring instead,
  over the messages holding such characters; its message hits come newest first, every
  term required, the query's other words through FTS5 (:mod:`tapestryd.queries.substring`).
  Summaries are still searched through ``nodes_fts`` alone (an emoji finds none).
* Ranking (``sort=relevance``): one keyword ranking, the same with the daemon up or down,
  injected as a :class:`~tapestryd.queries.rerank.KeywordRanker`: FTS5's ``bm25()``
  candidates (any content word), reranked by their neighbouring turns and their
  conversation (:mod:`tapestryd.queries.rerank`). FTS5 bounds its work on common words
  (:mod:`tapestryd.projections.messages_search`: when the words match more than
  :data:`~tapestryd.projections.messages_search.RANK_WINDOW` (20,000) messages, only the most recently
  stored 20,000 compete; with filters, that window grows fourfold until enough pass).
  ``sort=time`` lists the newest matches of every content word, then of any.

* One passage, one result: a summary hit whose snippet quotes a message hit (or a better
  ranked summary) folds into it, which names the levels quoting it
  (:mod:`tapestryd.queries.passages`).

Snippets mark the match with ``[`` ``]``; times are given in UTC and in the configured zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Callable

from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.projections.hierarchy_views import NodeFilter, has_nodes, ranked_summaries, summary_rows
from tapestryd.projections.messages_search import (RANK_WINDOW, MessageRow, any_expression, every_expression,
                                                   matching_messages, message_rows, newest_messages, ranked_ids,
                                                   substring_ranking, texts_of)
from tapestryd.queries.conversations import resolve_conversation
from tapestryd.queries.dense import DEPTH, DenseIndex, fuse
from tapestryd.queries.fusion import rrf_scores
from tapestryd.queries.passages import fold_quotes
from tapestryd.queries.reader import Reader
from tapestryd.queries.rerank import KEYWORD_RANKER, KeywordRanker
from tapestryd.queries.search_hit import SearchHit
from tapestryd.queries.snippets import query_stems, snippet
from tapestryd.queries.stopwords import STOPWORDS
from tapestryd.queries.substring import fts_words, has_terms, substring_pattern, unsplit_terms
from tapestryd.queries.timephrase import TimeRange, find_time_phrase
from tapestryd.queries.tokens import flatten

if TYPE_CHECKING:
    from tapestryd.queries.timed_pattern import TimedPattern

__all__ = ["LEVELS", "QUOTE_SCAN", "SORTS", "SearchFilters", "SearchHit", "content_terms", "fts_expression",
           "fts_ranking", "list_period", "message_hits", "one_per_passage", "outside_range", "rrf_merge",
           "search", "search_messages", "search_regex", "search_summaries", "soft_narrow", "with_conversation_key"]

LEVELS = ("all", "messages", "summaries", "L0", "L1", "L2", "L3", "L4")
SORTS = ("relevance", "time")
RRF_K = 60
SOFT_K = 5
"""Reciprocal rank fusion's k for soft narrowing (:func:`soft_narrow`). Message-level evidence
recall@10 on the LoCoMo dev split (categories 1–4, ``bench/eval_retrieval.py``), against
.727 with the range's matches first and other times only behind them: k 1, 3, 5 or 10
.737, 20 .735, 60 .727; ranking all times alone .722."""
QUOTE_SCAN = 4000  # characters of a message a summary's quote is looked for in
_TERM = re.compile(r"\w+", re.UNICODE)
_QUOTED = re.compile(r'"([^"]*\w[^"]*)"')
_HELD, _HELD_BASE = "\ue000", 0xE100  # a quoted phrase held out of the time phrase's reading: private-use characters


@dataclass(frozen=True)
class SearchFilters:
    """Narrowing: agent, role, conversation key, level, and a UTC time range [since, until).

    ``level`` is one of :data:`LEVELS`: ``messages``, ``summaries``, one level ``L0`` …
    ``L4`` (summaries of that level), or ``all``. ``subagents`` False leaves out the
    messages of subagents (``sidechain``: Claude Code Task agents, Gemini CLI and OpenCode
    subagent sessions). ``conversations``, when not None, keeps only those conversation
    keys (a project's sessions), in the SQL that finds and ranks the matches, so the best
    hits inside them fill ``limit``; summaries then count only when they belong to one of
    them (L0 nodes). ``origin`` keeps the messages one machine captured (``[sync] machine``
    there); summaries, which may cover several machines, are then left out.
    """

    agent: str = ""
    role: str = ""
    conversation: str = ""
    since: datetime | None = None
    until: datetime | None = None
    level: str = "all"
    subagents: bool = True
    conversations: frozenset[str] | None = None
    origin: str = ""


def content_terms(query: str) -> list[str]:
    """The words of ``query`` that carry meaning (English stopwords left out), lower-cased, unique.

    A double-quoted phrase of two or more words stays one term, its words joined by a
    space (stopwords kept): FTS5 matches it as a phrase, the words next to each other.
    """
    phrases = [" ".join(w.lower() for w in _TERM.findall(p)) for p in _QUOTED.findall(query)]
    words = [w.lower() for w in _TERM.findall(_QUOTED.sub(" ", query))]
    words += [p for p in phrases if " " not in p]
    kept = [w for w in words if w not in STOPWORDS]
    return list(dict.fromkeys([p for p in phrases if " " in p] + (kept or words)))


def fts_expression(query: str, *, any_term: bool = False) -> str:
    """An FTS5 expression of ``query``'s content words and phrases, each quoted; '' if none.

    Every term must match, or (``any_term``) every phrase and any one word.
    """
    terms = content_terms(query)
    return any_expression(terms) if any_term else every_expression(terms)


def search(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *, now: datetime,
           limit: int = 20, sort: str = "relevance", regex: bool = False, widen: bool = False,
           ranker: KeywordRanker = KEYWORD_RANKER, dense: DenseIndex | None = None) -> dict[str, Any]:
    """Search with time phrases read relative to ``now``; the answer echoes how it was read.

    Returns ``{query, terms, time, sort, level, regex, outside, hits}``; ``time`` is the
    range read from the query (see :class:`TimeRange.to_dict`) or None. A time phrase
    narrows softly: when nothing inside the range matches, matches from other times
    follow; with ``widen`` (and ``sort=relevance``) strong matches from other times rank
    among those inside (:func:`soft_narrow`; with ``sort=time`` they follow them). Each
    is marked ``extra.outside_range`` and counted in ``outside`` (a phrase may name when
    something happened rather than when it was discussed). Raises TapestryError for a blank query
    (or one of only quotes and punctuation), an unknown sort or level, an invalid regular expression,
    or a conversation filter :func:`with_conversation_key` refuses. ``ranker`` ranks messages for
    ``sort=relevance`` (:mod:`tapestryd.queries.rerank`), fused with ``dense`` when given
    (:mod:`tapestryd.queries.dense`).
    """
    if not query.strip() or not (regex or has_terms(query)):
        raise TapestryError("search needs something to find: words, a time phrase, or a pattern with --regex"
                            + (f" (got only {query.strip()!r})" if query.strip() else ""))
    filters = with_conversation_key(reader, filters)
    if sort not in SORTS:
        raise TapestryError(f"unknown sort {sort!r}; expected one of {', '.join(SORTS)}")
    if filters.level not in LEVELS:
        raise TapestryError(f"unknown level {filters.level!r}; expected one of {', '.join(LEVELS)}")
    found, terms = (None, query) if regex else _time_phrase(reader, query, filters, now)
    narrowed = replace(filters, since=found.since, until=found.until) if found else filters
    outside: list[SearchHit] = []
    if regex:
        hits = search_regex(reader, query, narrowed, limit=limit)
    elif not content_terms(terms) and not unsplit_terms(terms):
        hits = list_period(reader, narrowed, limit=limit) if found else []
    else:
        hits = _ranked(reader, terms, narrowed, limit=limit, sort=sort, ranker=ranker, dense=dense)
        if found and (widen or not hits):
            anywhere = _ranked(reader, terms, filters, limit=limit, sort=sort, ranker=ranker, dense=dense)
            if widen and sort == "relevance":
                hits = soft_narrow(hits, anywhere, limit)
            else:
                outside = outside_range(hits, anywhere, limit)
    hits += outside
    return {"query": query, "terms": terms, "time": found.to_dict() if found else None, "sort": sort,
            "level": filters.level, "regex": regex,
            "outside": sum(1 for h in hits if h.extra.get("outside_range")), "hits": [h.to_dict() for h in hits]}


def with_conversation_key(reader: Reader, filters: SearchFilters) -> SearchFilters:
    """``filters`` with ``conversation`` made the full key it names (unchanged when '', no filter).

    Takes the full key or any unique end of one (as ``show``). Raises TapestryError when
    it is blank, ends several keys (naming them), or ends none
    (:func:`~tapestryd.queries.conversations.resolve_conversation`).
    """
    if filters.conversation == "":
        return filters
    return replace(filters, conversation=resolve_conversation(reader, filters.conversation))


def outside_range(inside: list[SearchHit], anywhere: list[SearchHit], limit: int) -> list[SearchHit]:
    """Hits of ``anywhere`` not in ``inside``, marked ``outside_range``, to fill up to ``limit``."""
    seen = {(h.kind, h.id, h.key) for h in inside}
    fill = [h for h in anywhere if (h.kind, h.id, h.key) not in seen][: max(0, limit - len(inside))]
    return [replace(h, extra={**h.extra, "outside_range": True}) for h in fill]


def soft_narrow(inside: list[SearchHit], anywhere: list[SearchHit], limit: int) -> list[SearchHit]:
    """The best ``limit`` of ``inside`` (ranked within a time range) and ``anywhere`` (ranked over all
    times), fused by reciprocal rank with k :data:`SOFT_K`; those not in ``inside`` are marked
    ``outside_range``.

    A hit inside the range is in both lists and so gets two shares: the best inside come
    first, and a strong match from other times ranks above a weak one inside. Ties keep
    ``inside``'s order first.
    """
    seen = {(h.kind, h.id, h.key) for h in inside}
    fused = rrf_merge([inside, anywhere], limit=limit, key=lambda h: (h.kind, h.id, h.key), k=SOFT_K)
    return [h if (h.kind, h.id, h.key) in seen else replace(h, extra={**h.extra, "outside_range": True})
            for h in fused]


def _time_phrase(reader: Reader, query: str, filters: SearchFilters, now: datetime) -> tuple[TimeRange | None, str]:
    """The query's time phrase (cut to its overlap with the filters' since/until, if any) and the other words.

    A time word inside a quoted phrase is part of the phrase (``"sunday roast"``, ``"March madness"``): each
    quoted phrase is held out while the phrase is looked for, and put back in the other words."""
    held: list[str] = []

    def hold(quoted: re.Match[str]) -> str:
        held.append(quoted.group(0))
        return f" {_HELD}{chr(_HELD_BASE + len(held) - 1)} "

    outside = _QUOTED.sub(hold, query) if '"' in query else query
    found, terms = find_time_phrase(outside, now=now, tz=reader.tz,
                                    first_day_of_week=reader.settings.first_day_of_week)
    if found is None:
        return None, query
    for n, phrase in enumerate(held):
        terms = terms.replace(f"{_HELD}{chr(_HELD_BASE + n)}", phrase)
    if filters.since or filters.until:
        found = found.within(filters.since, filters.until)
    return found, terms


def _ranked(reader: Reader, terms: str, filters: SearchFilters, *, limit: int, sort: str,
            ranker: KeywordRanker, dense: DenseIndex | None) -> list[SearchHit]:
    # The summaries are ranked on a side connection while the messages are (:meth:`Reader.aside`).
    summaries = (reader.aside(lambda side: search_summaries(side, terms, filters, limit=limit, sort=sort))
                 if filters.level != "messages" and not filters.role else None)
    lists = []
    if filters.level in ("all", "messages"):
        lists.append(search_messages(reader, terms, filters, limit=limit, sort=sort, ranker=ranker, dense=dense))
    if summaries is not None:
        lists.append(summaries.result())
    if sort == "time":
        return sorted((h for hits in lists for h in hits), key=lambda h: h.ts, reverse=True)[:limit]
    merged = rrf_merge(lists, limit=sum(map(len, lists)), key=lambda h: (h.kind, h.id, h.key))
    if len(lists) < 2:
        return merged[:limit]
    return one_per_passage(reader, merged)[:limit]


def one_per_passage(reader: Reader, hits: list[SearchHit]) -> list[SearchHit]:
    """``hits`` with each summary that quotes another hit folded into it (:mod:`tapestryd.queries.passages`)."""
    texts = texts_of(reader.conn, [h.id for h in hits if h.kind == "message"], QUOTE_SCAN)
    return fold_quotes(hits, lambda h: texts.get(h.id, "") if h.kind == "message" else h.snippet)


def rrf_merge(lists: list[list[Any]], *, limit: int, key: Callable[[Any], Any], k: int = RRF_K) -> list[Any]:
    """Reciprocal rank fusion: each item scores ``sum(1 / (k + rank))`` over the lists.

    Items are told apart by ``key(item)``; the first list an item appears in supplies it.
    Ties keep the order of first appearance.
    """
    first: dict[Any, Any] = {}
    for hits in lists:
        for hit in hits:
            first.setdefault(key(hit), hit)
    scores = rrf_scores([[key(hit) for hit in hits] for hits in lists], k=k)
    order = sorted(scores, key=lambda ident: -scores[ident])
    return [first[ident] for ident in order[:limit]]


def search_messages(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *,
                    limit: int = 20, sort: str = "relevance", ranker: KeywordRanker = KEYWORD_RANKER,
                    dense: DenseIndex | None = None) -> list[SearchHit]:
    """Messages for ``query``: ranked by ``ranker`` (``sort=relevance``), or newest first (``sort=time``).

    ``sort=time`` lists matches of every content word, then of any, to fill ``limit``.
    ``ranker`` ranks candidates holding any content word (:mod:`tapestryd.queries.rerank`),
    so a turn next to a match may come too, holding none of the words: it is marked
    ``extra.next_to_match``; the opening turn of a conversation whose title holds the words
    is marked ``extra.title_match``. With ``dense``, the keyword ranking's best :data:`~tapestryd.queries.dense.DEPTH`
    (or ``limit``) and the dense ranking's are fused (:func:`~tapestryd.queries.dense.fuse`); a
    message found by meaning alone is marked ``extra.meaning_match``. Snippets are cut
    from the hits' text (:mod:`tapestryd.queries.snippets`). A query with a term of
    unsplit text (CJK, Thai, emoji) is matched by substring instead, every term required,
    newest first whatever ``sort``, score 0, the snippet around the first hit
    (:mod:`tapestryd.queries.substring`).
    """
    pieces = unsplit_terms(query)
    if pieces:
        pattern = substring_pattern(pieces)
        return _message_details(reader, substring_ranking(reader.conn, pieces, fts_words(query), filters, limit),
                                lambda text: _regex_snippet(pattern, text))
    marks: dict[int, str] = {}
    if sort == "relevance" and dense is not None:
        ranked, marks = ranker.rank(reader.conn, content_terms(query), filters, max(limit, DEPTH), side=reader.side)
        ranked, alone = fuse(ranked, dense.rank(reader.conn, query, filters, max(limit, DEPTH)), limit)
        marks = {**marks, **dict.fromkeys(alone, "meaning_match")}
    elif sort == "relevance":
        ranked, marks = ranker.rank(reader.conn, content_terms(query), filters, limit, side=reader.side)
    else:
        ranked = fts_ranking(reader, query, filters, limit=limit, sort=sort)
    stems = query_stems(" ".join(content_terms(query)))
    hits = _message_details(reader, ranked, lambda text: snippet(text, stems))
    return [replace(h, extra={marks[h.id]: True}) if h.id in marks else h for h in hits]


def fts_ranking(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *, limit: int = 20,
                sort: str = "relevance", window: int | None = RANK_WINDOW) -> list[tuple[int, float]]:
    """``(message id, bm25)`` for ``query`` from FTS5 alone: every content word, then any, to fill ``limit``.

    ``window`` bounds the matches ranked for common words (:mod:`tapestryd.projections.messages_search`);
    None ranks every match (exact BM25).
    """
    expr = fts_expression(query)
    ranked = ranked_ids(reader.conn, expr, filters, limit, sort, window=window) if expr else []
    if len(ranked) < limit and len(content_terms(query)) > 1:
        seen = {i for i, _ in ranked}
        more = ranked_ids(reader.conn, fts_expression(query, any_term=True), filters, limit + len(ranked), sort,
                          window=window)
        ranked += [(i, score) for i, score in more if i not in seen][: limit - len(ranked)]
    return ranked


def _message_details(reader: Reader, ranked: list[tuple[int, float]], cut: Callable[[str], str]) -> list[SearchHit]:
    """The ranked messages with their details and a snippet ``cut`` from their text, in rank order."""
    rows = message_rows(reader.conn, [i for i, _ in ranked])
    return [_message_hit(reader, rows[i], cut(rows[i][7]), score) for i, score in ranked if i in rows]


def _local(reader: Reader, ts: str) -> str:
    return parse_utc(ts).astimezone(reader.tz).isoformat(timespec="seconds")


def _message_hit(reader: Reader, row: MessageRow, snippet: str, score: float) -> SearchHit:
    mid, conv, key, title, agent, role, ts, _, origin = row
    return SearchHit("message", int(mid), str(conv), str(key), str(title or ""), str(agent), str(role), str(ts),
                     _local(reader, str(ts)), " ".join(str(snippet).split()), float(score), origin=str(origin))


def list_period(reader: Reader, filters: SearchFilters, *, limit: int) -> list[SearchHit]:
    """The messages of the filters' time range, newest first (a query that is only a time phrase)."""
    return [_message_hit(reader, row, row[7], 0.0) for row in newest_messages(reader.conn, filters, limit, chars=200)]


def search_regex(reader: Reader, pattern: str, filters: SearchFilters = SearchFilters(), *,
                 limit: int = 20) -> list[SearchHit]:
    """Messages whose text matches the regular expression ``pattern`` (case-insensitive), newest first.

    Raises TapestryError when ``pattern`` is not a valid Python regular expression, or when matching
    it took more than :data:`~tapestryd.queries.timed_pattern.SECONDS` in all (a pattern that backtracks
    without end held the daemon before).
    """
    from tapestryd.queries.timed_pattern import TimedPattern  # the regex package, for --regex alone

    compiled = TimedPattern(pattern)
    rows = matching_messages(reader.conn, compiled.matches, filters, limit)
    compiled.check()
    return [_message_hit(reader, row, _regex_snippet(compiled, row[7]), 0.0) for row in rows]


def _regex_snippet(compiled: re.Pattern[str] | TimedPattern, text: str, width: int = 60) -> str:
    """``width`` characters either side of the first match, the match in brackets and cut to ``2 * width``
    characters (a pattern such as ``(\\w+\\s?)+`` matches a whole 2 MB message, which was printed whole)."""
    match = compiled.search(text)
    if match is None:
        return text[: 2 * width]
    start, end = match.start(), match.end()
    lo, hi = max(0, start - width), min(len(text), end + width)
    found = match.group(0) if end - start <= 2 * width else text[start:start + 2 * width] + "…"
    return ("…" if lo else "") + text[lo:start] + "[" + found + "]" + text[end:hi] + ("…" if hi < len(text) else "")


def search_summaries(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *,
                     limit: int = 20, sort: str = "relevance") -> list[SearchHit]:
    """Summaries (hierarchy nodes) matching ``query``: every content word, then any, to fill ``limit``."""
    if not has_nodes(reader.conn) or filters.role or filters.origin:  # a summary has no one role or machine
        return []
    stems = query_stems(" ".join(content_terms(query)))
    hits = _match_nodes(reader, fts_expression(query), stems, filters, limit, sort)
    if len(hits) < limit and len(content_terms(query)) > 1:
        seen = {h.key for h in hits}
        more = _match_nodes(reader, fts_expression(query, any_term=True), stems, filters, limit + len(hits), sort)
        hits += [h for h in more if h.key not in seen][: limit - len(hits)]
    return hits


def _match_nodes(reader: Reader, expr: str, stems: set[str], filters: SearchFilters, limit: int,
                 sort: str) -> list[SearchHit]:
    """Rank node ids in FTS5 on what ranking needs, then details and a snippet cut from the summary."""
    if not expr:
        return []
    scores = ranked_summaries(reader.conn, expr, _node_filter(reader, filters), limit, newest=sort == "time")
    rows = summary_rows(reader.conn, list(scores))
    return [_node_hit(reader, (*rows[i][:9], snippet(rows[i][9], stems), score)) for i, score in scores.items()
            if i in rows]


def _node_filter(reader: Reader, filters: SearchFilters) -> NodeFilter:
    """The filters on summaries: level, agent, conversation(s), and the local days of since/until."""
    return NodeFilter(level=int(filters.level[1]) if filters.level.startswith("L") else None,
                      agent=filters.agent, conversation=filters.conversation, conversations=filters.conversations,
                      first_day=filters.since.astimezone(reader.tz).date().isoformat() if filters.since else "",
                      last_day=((filters.until - timedelta(microseconds=1)).astimezone(reader.tz).date().isoformat()
                                if filters.until else ""))


def _node_hit(reader: Reader, row: tuple[Any, ...]) -> SearchHit:
    key, level, agent, conv, title, start, end, first_ts, last_ts, snippet, bm25 = row
    ts = str(last_ts or first_ts or f"{end}T00:00:00.000000Z")
    return SearchHit("summary", 0, str(conv or ""), "", str(title or ""), str(agent), "summary", ts,
                     _local(reader, ts), " ".join(str(snippet).split()), float(bm25), key=str(key),
                     level=f"L{level}", extra={"period_start": start, "period_end": end})


def message_hits(reader: Reader, ids: list[int]) -> dict[int, SearchHit]:
    """Messages by id as search hits (first 200 characters as the snippet, score 0); missing ids left out."""
    rows = message_rows(reader.conn, ids, chars=400)
    return {mid: _message_hit(reader, row, flatten(row[7], 200), 0.0) for mid, row in rows.items()}
