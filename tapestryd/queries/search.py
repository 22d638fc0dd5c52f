"""Full-text search over messages: FTS5 MATCH ranked by BM25, with filters and snippets.

A free-text query is turned into an FTS5 expression of quoted terms (all must match), so
user text never becomes FTS5 syntax. Snippets mark the match with ``[`` ``]``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime

from tapestryd.db import translate_errors
from tapestryd.events.types import format_utc, parse_utc
from tapestryd.queries.reader import Reader

__all__ = ["SearchFilters", "SearchHit", "fts_expression", "search_messages"]

_TERM = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class SearchFilters:
    """Optional narrowing: agent, role, conversation key, and a UTC time range [since, until)."""

    agent: str = ""
    role: str = ""
    conversation: str = ""
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True)
class SearchHit:
    """One matching message: where it is, when (UTC and local ISO), its snippet and BM25 score.

    ``score`` is SQLite's ``bm25()``: lower (more negative) is better.
    """

    kind: str
    id: int
    conversation: str
    message_key: str
    title: str
    agent: str
    role: str
    ts: str
    local_time: str
    snippet: str
    score: float
    extra: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """The hit as a JSON-ready dict."""
        return asdict(self)


def fts_expression(query: str) -> str:
    """An FTS5 expression requiring every word of ``query`` (each quoted); '' if none."""
    return " ".join(f'"{term}"' for term in _TERM.findall(query))


def search_messages(reader: Reader, query: str, filters: SearchFilters = SearchFilters(), *,
                    limit: int = 20) -> list[SearchHit]:
    """Messages matching every word of ``query``, best BM25 first, at most ``limit``."""
    expr = fts_expression(query)
    if not expr:
        return []
    where, params = _where(filters)
    sql = (
        "SELECT m.id, m.conversation, m.message_key, c.title, m.agent, m.role, m.ts,"
        " snippet(messages_fts, 0, '[', ']', '…', 16), bm25(messages_fts)"
        " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
        " JOIN conversations c ON c.key = m.conversation"
        f" WHERE messages_fts MATCH ?{where} ORDER BY bm25(messages_fts) LIMIT ?"
    )
    with translate_errors(reader.conn):
        rows = reader.conn.execute(sql, (expr, *params, limit)).fetchall()
    return [_hit(reader, row) for row in rows]


def _where(filters: SearchFilters) -> tuple[str, list[object]]:
    clauses, params = [], []  # type: tuple[list[str], list[object]]
    for column, value in (("m.agent", filters.agent), ("m.role", filters.role),
                          ("m.conversation", filters.conversation)):
        if value:
            clauses.append(f"{column} = ?")
            params.append(value)
    if filters.since:
        clauses.append("m.ts >= ?")
        params.append(format_utc(filters.since))
    if filters.until:
        clauses.append("m.ts < ?")
        params.append(format_utc(filters.until))
    return "".join(f" AND {c}" for c in clauses), params


def _hit(reader: Reader, row: tuple[object, ...]) -> SearchHit:
    mid, conv, key, title, agent, role, ts, snippet, score = row
    local = parse_utc(str(ts)).astimezone(reader.tz).isoformat(timespec="seconds")
    return SearchHit("message", int(mid), str(conv), str(key), str(title), str(agent), str(role),  # type: ignore[call-overload]
                     str(ts), local, str(snippet), float(score))  # type: ignore[arg-type]
