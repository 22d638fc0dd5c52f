"""The messages projection's search reads: message ids ranked in ``messages_fts`` (FTS5 ``bm25()``),
with bounded work for common words, and the lookups search and its reranker make on ``messages``.

FTS5 computes ``bm25()`` for every row a query matches before ``ORDER BY … LIMIT`` keeps
the best few: about a microsecond a row (the row's token count is read from
``messages_fts_docsize`` and its position list decoded), so a word found in 150,000 of a
million messages costs 150–200 ms, while merely walking its matches costs under 10 ms.
Three rules keep the work bounded, in this order:

* **Id bounds, exact.** A conversation filter or a time range is first turned into the
  smallest and largest message id it covers (from the ``messages(conversation, ts)`` and
  ``messages(ts)`` indexes; a time range only when it holds at most
  :data:`BOUNDS_SCAN` messages), so FTS5 seeks into its posting lists instead of walking
  them whole. The filters themselves still apply, so results are unchanged.
* **Newest window.** When the query's words match more than ``window`` messages
  (:data:`RANK_WINDOW`, or ``limit`` if larger) within those bounds, only the ``window``
  most recently stored of them (the highest message ids; message ids follow ingest order)
  are ranked. BM25 scores stay exact, since FTS5 takes each word's document frequency
  from the whole index; what changes is which matches compete. The window is ranked in
  one walk of the newest matches, each scored as walked.
* **Widening for filters.** The window counts matches of the words, before the agent,
  role, conversation and time filters. When fewer than ``limit`` of the window's matches
  pass the filters, the window grows fourfold (:data:`WIDEN_FACTOR`) until enough pass or
  it covers every match (a walk of the newest matches, unscored, finds the window's start
  and says whether it did). The window is ranked first and the filters are checked on its
  best matches only (:data:`FIRST_CHECKED`), then a growing chunk at a time (each check
  reads a row of the wide ``messages`` table, which costs more than scoring).

``sort=time`` never uses the window: it returns the newest matches by timestamp, exactly.
A common word (more than :data:`TIME_JOIN` matches) is found by walking the messages
newest first (the ``messages(ts)`` index) and asking FTS5 for the matches in each walked
chunk's id range, instead of looking every match up to read its timestamp; past
:data:`TIME_WALK` walked messages it looks the matches up after all.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Protocol

from tapestryd.db import translate_errors
from tapestryd.events.types import format_utc
from tapestryd.projections.messages_read import origin_sql

__all__ = ["BOUNDS_SCAN", "FIRST_CHECKED", "KEYS_IN", "RANK_WINDOW", "TIME_JOIN", "TIME_WALK", "TITLE_LIKES",
           "WIDEN_FACTOR",
           "IdBounds", "MessageFilters", "MessageRow", "any_expression", "conversations_and_texts",
           "document_frequencies", "every_expression", "id_bounds", "keys_json", "like_pattern", "matching_messages",
           "message_rows", "message_where", "newest_messages", "ranked_ids", "substring_ranking", "texts_of",
           "titled_openings", "turns_around"]

RANK_WINDOW = 20_000
WIDEN_FACTOR = 4
FIRST_CHECKED = 4
"""With filters, the best ``FIRST_CHECKED * limit`` matches of the window are ranked and checked first."""
BOUNDS_SCAN = 50_000
TIME_JOIN = 1_000
TIME_WALK = 100_000
TITLE_LIKES = 64
"""Terms a title lookup asks of SQLite (the longest); the rest are checked on the few titles it reads. Each is
one ``AND`` deeper in the statement's expression tree, which SQLite bounds at 1,000."""
KEYS_IN = "(SELECT value FROM json_each(?))"
"""A set of keys in SQL, from one JSON-array parameter (SQLite builds it once per statement)."""
_NO_ID = 2**63 - 1
_BY_SCORE = "2, 1"  # ORDER BY bm25, then id
_CHUNK_MAX = 8192  # ids per IN (...) lookup, under SQLite's 32,766 bound parameters
_ROW_COLUMNS = "m.id, m.conversation, m.message_key, c.title, m.agent, m.role, m.ts"
_WITH_TITLE = "messages m JOIN conversations c ON c.key = m.conversation"

MessageRow = tuple[int, str, str, str, str, str, str, str, str]
"""A message as search shows it: ``(id, conversation key, message key, conversation title (may be
None), agent, role, ts ISO UTC, text or its first characters, origin machine)``."""


class MessageFilters(Protocol):
    """The filter fields ranking reads (:class:`tapestryd.queries.search.SearchFilters` has them)."""

    @property
    def agent(self) -> str: ...
    @property
    def role(self) -> str: ...
    @property
    def conversation(self) -> str: ...
    @property
    def since(self) -> datetime | None: ...
    @property
    def until(self) -> datetime | None: ...
    @property
    def subagents(self) -> bool: ...
    @property
    def conversations(self) -> frozenset[str] | None: ...
    @property
    def origin(self) -> str: ...


@dataclass(frozen=True)
class IdBounds:
    """An inclusive message id range ``[low, high]``; ``empty`` when no message can match."""

    low: int = 0
    high: int = _NO_ID

    @property
    def empty(self) -> bool:
        """True when the range holds no id."""
        return self.low > self.high


def every_expression(terms: list[str]) -> str:
    """An FTS5 expression matching every term (a term with a space is a phrase); '' for none."""
    return " ".join(f'"{t}"' for t in terms)


def any_expression(terms: list[str]) -> str:
    """An FTS5 expression matching every phrase (a term with a space) and any one word; '' for none."""
    phrases = [f'"{t}"' for t in terms if " " in t]
    words = [f'"{t}"' for t in terms if " " not in t]
    if not words:
        return " AND ".join(phrases)
    return " AND ".join(phrases + [f"({' OR '.join(words)})" if phrases and len(words) > 1 else " OR ".join(words)])


def ranked_ids(conn: sqlite3.Connection, expr: str, filters: MessageFilters, limit: int, sort: str, *,
               window: int | None = RANK_WINDOW) -> list[tuple[int, float]]:
    """``(message id, bm25)`` of FTS5 expression ``expr``, best first (lower bm25 is better).

    ``sort='time'`` gives the newest by timestamp instead. ``window=None`` ranks every
    match (exact BM25 top ``limit``, as the benchmark's reference). Ties go to the lower id.
    Raises StoreError (via translate_errors) on a database error.
    """
    with translate_errors(conn):
        bounds = id_bounds(conn, filters)
        if bounds.empty:
            return []
        if sort == "time":
            return _newest(conn, expr, filters, bounds, limit)
        size = None if window is None else max(window, limit)
        where, params = message_where(filters)
        if not where:
            return _newest_ranked(conn, expr, bounds, size, limit)
        while True:
            ranked = _passing_ranked(conn, expr, (where, params), bounds, size, limit)
            # Widened only when too few pass and the window did not hold every match (a walk to its start says).
            if len(ranked) >= limit or size is None or _window_start(conn, expr, bounds, size) <= bounds.low:
                return ranked
            size *= WIDEN_FACTOR


_NEWEST_RANKED = ("SELECT rowid, score FROM (SELECT rowid, bm25(messages_fts) AS score FROM messages_fts"
                  " WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid DESC LIMIT ?)"
                  f" ORDER BY {_BY_SCORE} LIMIT ? OFFSET ?")
"""The ranks ``[offset, offset + limit)`` of the ``size`` newest matches of an expression within id bounds
(``size`` -1: every match): one walk of the newest matches, each scored as walked (finding the window's start
first, then scoring the matches past it, walked them twice)."""


def _newest_ranked(conn: sqlite3.Connection, expr: str, bounds: IdBounds, size: int | None,
                   limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` of the ``size`` newest matches within ``bounds`` (None: of every match), without
    filters: with no filter every match of the window counts, so one window always answers."""
    rows = conn.execute(_NEWEST_RANKED, (expr, bounds.low, bounds.high, -1 if size is None else size, limit, 0))
    return [(int(i), float(s)) for i, s in rows]


def _passing_ranked(conn: sqlite3.Connection, expr: str, where: tuple[str, list[object]], bounds: IdBounds,
                    size: int | None, limit: int) -> list[tuple[int, float]]:
    """The best ``limit`` of the ``size`` newest matches within ``bounds`` (None: of every match) that pass
    ``where`` (SQL conditions on ``messages m`` and their parameters, :func:`message_where`).

    The best :data:`FIRST_CHECKED` ``* limit`` are ranked and checked first: SQLite then keeps only those while
    it scores the window, where a sort of every match cost more (1M messages, 20,000 matches: 45 -> 38 ms CPU);
    the rest only when too few of those pass.
    """
    head = min(FIRST_CHECKED * limit, _CHUNK_MAX)
    found = (expr, bounds.low, bounds.high, -1 if size is None else size)
    best = conn.execute(_NEWEST_RANKED, (*found, head, 0)).fetchall()
    kept = _passing_of(conn, best, *where)
    if len(kept) >= limit or len(best) < head:
        return kept[:limit]
    return kept + _passing(conn, conn.execute(_NEWEST_RANKED, (*found, -1, head)), *where, limit - len(kept))


def _newest(conn: sqlite3.Connection, expr: str, filters: MessageFilters, bounds: IdBounds,
            limit: int) -> list[tuple[int, float]]:
    """The ``limit`` newest matches by timestamp (ties: higher id first), exactly.

    A query matching at most :data:`TIME_JOIN` messages looks each match up; a commoner
    one walks the messages newest first, a growing chunk at a time, keeping those FTS5
    finds in the chunk's id range, and gives up for the lookups after :data:`TIME_WALK`.
    """
    order = "m.ts DESC, m.id DESC"
    if _window_start(conn, expr, bounds, TIME_JOIN + 1):
        kept = _walk(conn, expr, filters, limit)
        if kept is not None:
            return _scores(conn, expr, kept)
    return _score(conn, expr, filters, bounds, limit, order)


def _walk(conn: sqlite3.Connection, expr: str, filters: MessageFilters, limit: int) -> list[int] | None:
    """Ids of the ``limit`` newest matches found by walking ``messages`` by time, or None past TIME_WALK."""
    where, params = message_where(filters)
    walk = conn.execute(f"SELECT m.id FROM messages m WHERE 1 = 1{where} ORDER BY m.ts DESC, m.id DESC", params)
    kept: list[int] = []
    size, walked = 4 * limit, 0
    while len(kept) < limit and walked < TIME_WALK:
        chunk = [int(i) for (i,) in walk.fetchmany(size)]
        if not chunk:
            return kept
        found = {i for (i,) in conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?"
                                            " AND rowid BETWEEN ? AND ?", (expr, min(chunk), max(chunk)))}
        kept += [i for i in chunk if i in found]
        walked += len(chunk)
        size = min(size * WIDEN_FACTOR, _CHUNK_MAX)
    return kept[:limit] if len(kept) >= limit else None


def _scores(conn: sqlite3.Connection, expr: str, ids: list[int]) -> list[tuple[int, float]]:
    """``(id, bm25)`` of ``ids`` (matches of ``expr``), in their order."""
    if not ids:
        return []
    scores = dict(conn.execute("SELECT rowid, bm25(messages_fts) FROM messages_fts WHERE messages_fts MATCH ?"
                               " AND rowid BETWEEN ? AND ?", (expr, min(ids), max(ids))).fetchall())
    return [(i, float(scores[i])) for i in ids]


def _window_start(conn: sqlite3.Connection, expr: str, bounds: IdBounds, size: int | None) -> int:
    """The id of the ``size``-th newest match within ``bounds`` (its window's start), or 0 if fewer match."""
    if size is None:
        return 0
    row = conn.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ?"
                       " ORDER BY rowid DESC LIMIT 1 OFFSET ?", (expr, bounds.low, bounds.high, size - 1)).fetchone()
    return int(row[0]) if row else 0


def _score(conn: sqlite3.Connection, expr: str, filters: MessageFilters, bounds: IdBounds, limit: int,
           order: str) -> list[tuple[int, float]]:
    """The first ``limit`` matches within ``bounds`` passing ``filters``, in ``order`` (SQL on ``messages m``)."""
    where, params = message_where(filters)
    sql = ("SELECT m.id, bm25(messages_fts) FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
           f" WHERE messages_fts MATCH ? AND messages_fts.rowid BETWEEN ? AND ?{where} ORDER BY {order} LIMIT ?")
    return [(int(i), float(s)) for i, s in conn.execute(sql, (expr, bounds.low, bounds.high, *params, limit))]


def _passing(conn: sqlite3.Connection, rows: sqlite3.Cursor, where: str, params: list[object],
             limit: int) -> list[tuple[int, float]]:
    """The first ``limit`` of the ranked ``rows`` whose message passes ``where``, checked a growing chunk at a time.

    Only the best-ranked matches are looked up in ``messages`` (a wide table: each lookup
    reads a page), instead of every match in the window.
    """
    kept: list[tuple[int, float]] = []
    size = FIRST_CHECKED * limit
    while len(kept) < limit:
        chunk = rows.fetchmany(size)
        if not chunk:
            break
        kept += _passing_of(conn, chunk, where, params)
        size = min(size * WIDEN_FACTOR, _CHUNK_MAX)
    return kept[:limit]


def _passing_of(conn: sqlite3.Connection, chunk: list[tuple[int, float]], where: str,
                params: list[object]) -> list[tuple[int, float]]:
    """The rows of ``chunk`` (``(id, bm25)``, at most :data:`_CHUNK_MAX`) whose message passes ``where``, in order."""
    if not chunk:
        return []
    sql = f"SELECT m.id FROM messages m WHERE m.id IN ({','.join('?' * len(chunk))}){where}"
    passed = {i for (i,) in conn.execute(sql, (*(i for i, _ in chunk), *params))}
    return [(int(i), float(s)) for i, s in chunk if i in passed]


def id_bounds(conn: sqlite3.Connection, filters: MessageFilters) -> IdBounds:
    """The smallest and largest message id the conversation and time filters allow (see the module docstring)."""
    bounds = IdBounds()
    if filters.conversations is not None and not filters.conversations:
        return IdBounds(1, 0)
    if filters.conversation:
        low, high = conn.execute("SELECT min(id), max(id) FROM messages WHERE conversation = ?",
                                 (filters.conversation,)).fetchone()
        bounds = IdBounds(1, 0) if low is None else IdBounds(int(low), int(high))
    if (filters.since or filters.until) and not bounds.empty:
        bounds = _intersect(bounds, _time_bounds(conn, filters.since, filters.until))
    return bounds


def _time_bounds(conn: sqlite3.Connection, since: datetime | None, until: datetime | None) -> IdBounds:
    """Id range of the messages in [since, until), or no bound when more than BOUNDS_SCAN fall in it."""
    lo, hi = format_utc(since) if since else "", format_utc(until) if until else "\uffff"
    low, high, count = conn.execute("SELECT min(id), max(id), count(*) FROM (SELECT id FROM messages"
                                    " WHERE ts >= ? AND ts < ? LIMIT ?)", (lo, hi, BOUNDS_SCAN + 1)).fetchone()
    if count > BOUNDS_SCAN:
        return IdBounds()
    return IdBounds(int(low), int(high)) if count else IdBounds(1, 0)


def _intersect(a: IdBounds, b: IdBounds) -> IdBounds:
    return IdBounds(max(a.low, b.low), min(a.high, b.high))


def message_where(filters: MessageFilters) -> tuple[str, list[object]]:
    """SQL conditions (each `` AND …`` on alias ``m`` of ``messages``) and parameters for ``filters``."""
    clauses, params = [], []  # type: tuple[list[str], list[object]]
    for column, value in (("m.agent", filters.agent), ("m.role", filters.role),
                          ("m.conversation", filters.conversation), ("m.origin", filters.origin)):
        if value:
            clauses.append(f"{column} = ?")
            params.append(value)
    if filters.since:
        clauses.append("m.ts >= ?")
        params.append(format_utc(filters.since))
    if filters.until:
        clauses.append("m.ts < ?")
        params.append(format_utc(filters.until))
    if not filters.subagents:
        clauses.append("m.sidechain = 0")
    if filters.conversations is not None:
        clauses.append(f"m.conversation IN {KEYS_IN}")
        params.append(keys_json(filters.conversations))
    return "".join(f" AND {c}" for c in clauses), params


def keys_json(keys: frozenset[str]) -> str:
    """``keys`` as the one JSON-array parameter of :data:`KEYS_IN`."""
    return json.dumps(sorted(keys))


def turns_around(conn: sqlite3.Connection, ids: list[int]) -> dict[int, tuple[str, list[int]]]:
    """Each message's conversation and the ids of the turns just before and after it there.

    Returns ``{id: (conversation key, [previous id, next id])}`` (an end of a conversation
    has one neighbour); ids not stored are left out. Order within a conversation is
    ``(ts, id)``, read through the ``messages(conversation, ts)`` index. Raises StoreError
    on a database error.
    """
    if not ids:
        return {}
    sql = ("SELECT g.id, g.conversation,"
           " (SELECT p.id FROM messages p WHERE p.conversation = g.conversation AND (p.ts, p.id) < (g.ts, g.id)"
           "  ORDER BY p.ts DESC, p.id DESC LIMIT 1),"
           " (SELECT n.id FROM messages n WHERE n.conversation = g.conversation AND (n.ts, n.id) > (g.ts, g.id)"
           "  ORDER BY n.ts, n.id LIMIT 1)"
           f" FROM messages g WHERE g.id IN ({','.join('?' * len(ids))})")
    with translate_errors(conn):
        rows = conn.execute(sql, ids).fetchall()
    return {int(i): (str(conv), [int(n) for n in (before, after) if n is not None]) for i, conv, before, after in rows}


def conversations_and_texts(conn: sqlite3.Connection, ids: list[int], filters: MessageFilters,
                            chars: int) -> dict[int, tuple[str, str]]:
    """``{id: (conversation key, the first ``chars`` characters of its text)}`` of each of ``ids`` that passes
    ``filters`` (those that do not are left out)."""
    if not ids:
        return {}
    where, params = message_where(filters)
    sql = (f"SELECT m.id, m.conversation, substr(m.text, 1, ?) FROM messages m"
           f" WHERE m.id IN ({','.join('?' * len(ids))}){where}")
    with translate_errors(conn):
        return {int(i): (str(conv), str(text)) for i, conv, text in conn.execute(sql, (chars, *ids, *params))}


def texts_of(conn: sqlite3.Connection, ids: list[int], chars: int) -> dict[int, str]:
    """The first ``chars`` characters of each message's text, by id (ids not stored left out)."""
    if not ids:
        return {}
    sql = f"SELECT id, substr(text, 1, ?) FROM messages WHERE id IN ({','.join('?' * len(ids))})"
    with translate_errors(conn):
        return {int(i): str(text) for i, text in conn.execute(sql, (chars, *ids))}


def document_frequencies(conn: sqlite3.Connection, stems: list[str]) -> tuple[dict[str, int], int]:
    """How many messages hold each of ``stems`` (FTS5 tokens), and about how many messages there are.

    Read from an ``fts5vocab`` table over ``messages_fts`` made in the connection's temp
    schema (a read-only connection may make it; nothing is written to the file). The count
    of messages is the highest message id, an upper bound that costs one index seek.
    """
    with translate_errors(conn):
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_vocab USING fts5vocab(main, messages_fts, row)")
        found = {str(term): int(doc) for term, doc in conn.execute(
            f"SELECT term, doc FROM temp.messages_vocab WHERE term IN ({','.join('?' * len(stems))})", stems)}
        total = conn.execute("SELECT COALESCE(MAX(id), 0) FROM messages").fetchone()[0]
    return found, int(total)


def titled_openings(conn: sqlite3.Connection, terms: list[str], filters: MessageFilters, limit: int) -> list[int]:
    """The first message (passing ``filters``) of each conversation whose title holds every term, at most ``limit``.

    A term is matched as a word of the title, in either case, a plural ``s``/``es`` allowed
    (:func:`_title_holds`: "ai" finds "AI Turing Test", not "Gmail API"; a phrase as
    written). SQLite's ``LIKE`` picks the ``16 * limit`` most recently active titles holding
    every term (the longest :data:`TITLE_LIKES` of a longer query) as a substring (scanning the
    ``conversations_titled`` index: titled conversations only); of those holding them all as words,
    the first ``4 * limit`` with a message passing the filters count, most recent first.
    Raises StoreError on a database error.
    """
    if not terms or limit <= 0:
        return []
    where, params = message_where(filters)
    liked = sorted(terms, key=len, reverse=True)[:TITLE_LIKES]  # each LIKE deepens SQLite's expression tree
    likes = " AND ".join(r"title LIKE ? ESCAPE '\'" for _ in liked)
    # The titles are scanned in the partial index of titled conversations (or, in a file made before
    # it, the table), and only the few that match are read whole and sorted; walking the last_ts index
    # instead read the whole table a row at a time out of order whenever few titles matched.
    titles = ("SELECT key, title FROM conversations WHERE rowid IN (SELECT rowid FROM conversations"
              f" WHERE title != '' AND {likes}) ORDER BY last_ts DESC, rowid DESC LIMIT ?")
    firsts = (f"SELECT (SELECT m.id FROM messages m WHERE m.conversation = j.value{where} ORDER BY m.ts, m.id"
              " LIMIT 1) FROM json_each(?) j ORDER BY j.key")
    with translate_errors(conn):
        keys = [key for key, title in conn.execute(titles, (*map(like_pattern, liked), 16 * limit))
                if all(_title_holds(title, t) for t in terms)][:4 * limit]
        found = [int(i) for (i,) in conn.execute(firsts, (*params, json.dumps(keys))) if i is not None] if keys else []
    return found[:limit]


def _title_holds(title: str, term: str) -> bool:
    """Whether ``term`` stands in ``title`` as a word (case-insensitive; a plural ``s``/``es`` after it allowed).

    Only an ASCII letter or digit at the term's edge needs a boundary there, so a term in a
    script written without spaces (Chinese, Japanese) still matches inside a title.
    """
    before = r"(?<![A-Za-z0-9])" if term[:1].isascii() and term[:1].isalnum() else ""
    after = r"(?:e?s)?(?![A-Za-z0-9])" if term[-1:].isascii() and term[-1:].isalnum() else ""
    return re.search(before + re.escape(term) + after, title, re.IGNORECASE) is not None


def like_pattern(term: str) -> str:
    """``%term%`` for ``LIKE … ESCAPE '\\'``, with ``\\``, ``%`` and ``_`` in ``term`` escaped."""
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def substring_ranking(conn: sqlite3.Connection, terms: list[str], words: list[str], filters: MessageFilters,
                      limit: int) -> list[tuple[int, float]]:
    """``(message id, 0.0)`` of the ``limit`` newest messages holding every term and every FTS5 word.

    ``terms`` are matched as substrings over ``messages_unsplit``'s messages, ``words``
    through ``messages_fts`` (all of them); ``filters`` apply. Raises StoreError (via
    translate_errors) on a database error.
    """
    where, params = message_where(filters)
    likes = "".join(" AND m.text LIKE ? ESCAPE '\\'" for _ in terms)
    fts = " AND m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)" if words else ""
    args = [*map(like_pattern, terms), *params, *([" ".join(f'"{w}"' for w in words)] if words else []), limit]
    with translate_errors(conn):
        sql = (f"SELECT m.id FROM {_source(conn)} WHERE 1 = 1{likes}{where}{fts}"
               " ORDER BY m.ts DESC, m.id DESC LIMIT ?")
        return [(int(i), 0.0) for (i,) in conn.execute(sql, args)]


def _source(conn: sqlite3.Connection) -> str:
    """The messages to scan: those in ``messages_unsplit`` (read first), or all when the table is missing."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages_unsplit'").fetchone():
        return "messages_unsplit u CROSS JOIN messages m ON m.id = u.id"
    return "messages m"


def message_rows(conn: sqlite3.Connection, ids: list[int], *, chars: int | None = None) -> dict[int, MessageRow]:
    """The messages among ``ids`` that are stored, by id, as :data:`MessageRow` (the text whole, or its
    first ``chars`` characters). Raises StoreError on a database error."""
    if not ids:
        return {}
    text = "m.text" if chars is None else f"substr(m.text, 1, {int(chars)})"
    sql = (f"SELECT {_ROW_COLUMNS}, {text}, {origin_sql(conn)} FROM {_WITH_TITLE}"
           f" WHERE m.id IN ({','.join('?' * len(ids))})")
    with translate_errors(conn):
        return {int(row[0]): row for row in conn.execute(sql, ids)}


def newest_messages(conn: sqlite3.Connection, filters: MessageFilters, limit: int, *, chars: int) -> list[MessageRow]:
    """The ``limit`` newest messages passing ``filters`` (ts, then id, descending) as :data:`MessageRow`,
    each text cut to its first ``chars`` characters. Raises StoreError on a database error."""
    where, params = message_where(filters)
    sql = (f"SELECT {_ROW_COLUMNS}, substr(m.text, 1, ?), {origin_sql(conn)} FROM {_WITH_TITLE} WHERE 1 = 1{where}"
           " ORDER BY m.ts DESC, m.id DESC LIMIT ?")
    with translate_errors(conn):
        return conn.execute(sql, (chars, *params, limit)).fetchall()


def matching_messages(conn: sqlite3.Connection, matches: Callable[[str], bool], filters: MessageFilters,
                      limit: int) -> list[MessageRow]:
    """The ``limit`` newest messages passing ``filters`` whose text ``matches`` (a Python predicate,
    registered on ``conn`` as SQLite's ``REGEXP``), as :data:`MessageRow` with the whole text.
    Raises StoreError on a database error."""
    conn.create_function("regexp", 2, lambda _, text: matches(text or ""), deterministic=True)
    where, params = message_where(filters)
    sql = (f"SELECT {_ROW_COLUMNS}, m.text, {origin_sql(conn)} FROM {_WITH_TITLE} WHERE m.text REGEXP ?{where}"
           " ORDER BY m.ts DESC, m.id DESC LIMIT ?")
    with translate_errors(conn):
        return conn.execute(sql, ("", *params, limit)).fetchall()
