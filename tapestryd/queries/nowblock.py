"""The short "where we are now" block: today's and yesterday's topics and the conversation
in progress, small enough (under 300 tokens) to inject on every prompt.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from tapestryd.clock import utc_range
from tapestryd.events.types import format_utc, parse_utc
from tapestryd.projections.messages_read import conversation_activity, user_text
from tapestryd.queries.context import ContextScope, message_filter
from tapestryd.projections.hierarchy_views import nodes_by_keys
from tapestryd.queries.reader import Reader
from tapestryd.queries.tokens import CHARS_PER_TOKEN, shorten
from tapestryd.plural import counted

__all__ = ["NOW_MAX_TOKENS", "active_conversations", "first_sentence", "where_we_are"]

NOW_MAX_TOKENS = 300
_LINE_CHARS = 360


def active_conversations(reader: Reader, scope: ContextScope, day: date, *, limit: int = 6,
                         exclude_session: str = "") -> list[dict[str, Any]]:
    """Conversations with messages on local ``day`` in scope, most recently active first.

    Each: ``key``, ``label`` (title, else the first user words), ``agent``, ``messages``
    (that day), ``first`` and ``last`` (ISO UTC). ``exclude_session`` leaves out one
    Claude Code session (the one asking, which already knows itself).
    """
    lo, hi = utc_range(day, day, reader.tz)
    rows = conversation_activity(reader.conn, format_utc(lo), format_utc(hi), message_filter(scope), limit + 1)
    kept = [r for r in rows if not exclude_session or r[6] != exclude_session][:limit]
    return [{"key": key, "label": title or _first_words(reader, key), "agent": agent, "messages": count,
             "first": first, "last": last} for key, title, agent, count, first, last, _ in kept]


def _first_words(reader: Reader, conversation: str) -> str:
    text = user_text(reader.conn, conversation, last=False)
    return shorten(" ".join(text.split()), 60) if text is not None else conversation


def _last_user_text(reader: Reader, conversation: str) -> str:
    text = user_text(reader.conn, conversation, last=True)
    return " ".join(text.split()) if text is not None else ""


def where_we_are(reader: Reader, scope: ContextScope, *, exclude_session: str = "") -> str:
    """The block as plain text, at most :data:`NOW_MAX_TOKENS` estimated tokens.

    It is dated by the scope's anchor day: the local time of ``now`` when the anchor is
    today, the anchor day alone when it is another day (``context --date``).
    """
    today = active_conversations(reader, scope, scope.anchor, exclude_session=exclude_session)
    local_now = scope.now.astimezone(reader.tz)
    when = f"{local_now:%a %d %b %Y, %H:%M}" if local_now.date() == scope.anchor else f"{scope.anchor:%a %d %b %Y}"
    lines = [f"Where we are now: {when} ({reader.settings.timezone})"
             + (f", project {scope.project}" if scope.project else "")]
    lines.append("Today: " + (_topics(today) or "nothing yet."))
    lines.append("Yesterday: " + (_yesterday(reader, scope, exclude_session) or "nothing recorded."))
    if today:
        lines.append(_in_progress(reader, today[0]))
    text = "\n".join(shorten(line, _LINE_CHARS) for line in lines)
    return shorten(text, NOW_MAX_TOKENS * CHARS_PER_TOKEN)


def _topics(convs: list[dict[str, Any]]) -> str:
    return "; ".join(f"{c['label']} ({c['agent']}, {counted(c['messages'], 'message')})" for c in convs)


def _yesterday(reader: Reader, scope: ContextScope, exclude_session: str) -> str:
    day = scope.anchor - timedelta(days=1)
    keys = [f"L1:{a}:{day.isoformat()}" for a in scope.agents]
    dailies = [n for n in nodes_by_keys(reader.conn, keys)
               if (n["summary"] or "").strip() and (scope.allowed is None or n["key"] in scope.allowed)]
    if dailies:
        return " ".join(f"{n['title'] or n['agent']}: {first_sentence(n['summary'])}" for n in dailies)
    return _topics(active_conversations(reader, scope, day, exclude_session=exclude_session))


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (whitespace flattened), or its first 200 characters."""
    flat = " ".join(text[:600].split())
    for mark in (". ", "! ", "? "):
        cut = flat.find(mark)
        if 0 < cut < 200:
            return flat[: cut + 1]
    return shorten(flat, 200)


def _in_progress(reader: Reader, conv: dict[str, Any]) -> str:
    since = parse_utc(conv["first"]).astimezone(reader.tz).strftime("%H:%M")
    last = _last_user_text(reader, conv["key"])
    tail = f'; last asked: "{shorten(last, 160)}"' if last else ""
    today = counted(conv["messages"], "message")
    return f"In progress: {conv['label']} ({conv['agent']}, since {since}, {today} today){tail}"
