"""Recall a date or range: the best available summary nodes for it, with links down.

A range is covered by the largest periods that fit inside it (a whole year by its L4, a
whole month by its L3, a whole split week by its L2, the leftover days by their L1), so
"2026-03" is one monthly and "2026-03-01..2026-03-10" a weekly or two plus some dailies.
A period whose node has no summary yet is answered by its children, recursively, but a
past period's node with no summary anywhere below stands for itself (one "not summarized yet"
node, not its hundreds of segments). At most ``limit`` nodes are answered, in period
order, with the count of the rest. When no node covers the range (the hierarchy has not
run, or the day is still open) the answer lists the range's conversations instead.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from tapestryd.clock import Period, local_date, period_of, utc_range
from tapestryd.errors import TapestryError
from tapestryd.events.types import format_utc, parse_utc
from tapestryd.projections.messages_read import conversations_in_range, first_message_ts
from tapestryd.projections.hierarchy_views import children, get_node, node_agents, nodes_in_key_range
from tapestryd.queries.nodes import node_sources
from tapestryd.queries.reader import Reader
from tapestryd.queries.timephrase import parse_when

__all__ = ["cover", "recall", "show_node"]


def cover(first: date, last: date, first_day_of_week: int = 0) -> list[Period]:
    """The fewest largest calendar periods (L4 … L1) that exactly tile ``first``..``last``."""
    periods, day = [], first
    while day <= last:
        for level in (4, 3, 2, 1):
            period = period_of(level, day, first_day_of_week)
            if period.start == day and period.end <= last:
                periods.append(period)
                day = period.end + timedelta(days=1)
                break
    return periods


def recall(reader: Reader, when: str, *, now: datetime, agent: str = "", limit: int = 50,
           days: int = 0) -> dict[str, Any]:
    """The best available nodes for ``when`` (a date, period key, phrase, ``A..B``, ``A..`` or ``..B``; two phrases
    are read as their overlap or the later one, as search reads them, the reading in ``range.label``).

    A range open at its end, or a rolling window ("last 3 months"), stops at today; one open
    at its start begins at the first recorded day.

    Returns ``{when, range, periods, nodes, conversations, more, limit}``: the first ``limit``
    ``nodes`` each with their ``sources`` (links down), ``conversations`` listing the range's
    conversations (at most ``limit``) when no node covers it, ``more`` how many nodes (or
    conversations) were left out. ``days`` > 0 adds to each node its first ``days``
    conversation-days (the L0 segments inside it: key, date, conversation, title) as
    ``conversation_days`` and their total as ``conversation_days_total``. Raises
    TapestryError when ``when`` cannot be read as a time.
    """
    fdow = reader.settings.first_day_of_week
    found = parse_when(when, now=now, tz=reader.tz, first_day_of_week=fdow, two=True)
    last = min(found.last, local_date(now, reader.tz))
    first = _earliest(reader, found.first) if found.since is None else found.first
    periods = cover(first, last, fdow) if first <= last else []
    if len(periods) > 400:
        raise TapestryError(f"{when!r} covers {len(periods)} periods; ask for a shorter range")
    agents = [agent] if agent else node_agents(reader.conn)
    today = local_date(now, reader.tz).isoformat()
    best = [entry for period in periods for who in agents for entry in _best(reader, period, who, today)]
    nodes = [_with_sources(reader, node) for node in best[:limit]]
    if days > 0:
        nodes = [_with_days(reader, node, days) for node in nodes]
    listing, more = ([], len(best) - len(nodes)) if best else _conversations(reader, first, last, agent, limit)
    return {"when": when, "range": found.to_dict(), "periods": [f"L{p.level}:{p.key}" for p in periods],
            "nodes": nodes, "conversations": listing, "more": more, "limit": limit, "agent": agent}


def _earliest(reader: Reader, first: date) -> date:
    """Start an open-ended range ("before July") at the first recorded day rather than in 1970."""
    earliest = first_message_ts(reader.conn)
    return max(first, local_date(parse_utc(earliest), reader.tz)) if earliest else first


def _best(reader: Reader, period: Period, agent: str, today: str) -> list[dict[str, Any]]:
    node = get_node(reader.conn, f"L{period.level}:{agent}:{period.key}")
    return _best_node(reader, node, today) if node else []


def _best_node(reader: Reader, node: dict[str, Any], today: str) -> list[dict[str, Any]]:
    """``node`` when summarized; else its children's best nodes, unless its period ended before
    ``today`` (local ISO date) and none of those has a summary: then ``node`` alone stands for
    its period (a backlog's month is one node, not its segments). A period still running
    (today's day, this week) shows its segments."""
    if _summarized(node):
        return [node]
    below = [entry for child in children(reader.conn, node["key"]) for entry in _best_node(reader, child, today)]
    if not below or (node["period_end"] < today and not any(_summarized(entry) for entry in below)):
        return [node]
    return below


def _summarized(node: dict[str, Any]) -> bool:
    return bool((node["summary"] or "").strip())


def _with_sources(reader: Reader, node: dict[str, Any]) -> dict[str, Any]:
    sources = node_sources(reader.conn, node["key"])
    if not sources:
        sources = [{"source": c["key"], "kind": "node", "position": i, "title": c["title"], "level": c["level"],
                    "state": c["state"]} for i, c in enumerate(children(reader.conn, node["key"]))]
    return {**node, "sources": sources}


def _with_days(reader: Reader, node: dict[str, Any], most: int) -> dict[str, Any]:
    """``node`` with the L0 segments of its agent inside its period (its conversation-days)."""
    if node["level"] == 0:
        segments = [node]
    else:
        low = f"L0:{node['agent']}:{node['period_start']}"
        segments = nodes_in_key_range(reader.conn, low, f"L0:{node['agent']}:{node['period_end']};")
    days = [{"key": s["key"], "date": s["period_start"], "conversation": s["conversation"], "title": s["title"] or ""}
            for s in segments[:most]]
    return {**node, "conversation_days": days, "conversation_days_total": len(segments)}


def _conversations(reader: Reader, first: date, last: date, agent: str,
                   limit: int) -> tuple[list[dict[str, Any]], int]:
    """The first ``limit`` conversations with messages in ``first``..``last`` (local days), and
    how many more there are."""
    lo, hi = utc_range(first, last, reader.tz)
    rows = conversations_in_range(reader.conn, format_utc(lo), format_utc(hi), agent=agent, limit=limit)
    listing = [{"key": k, "title": t or "", "agent": a, "messages": n, "first": f, "last": la}
               for k, t, a, n, f, la, _ in rows]
    return listing, (rows[0][-1] - len(rows) if rows else 0)


def show_node(reader: Reader, key: str) -> dict[str, Any]:
    """One node with its parent, its sources (children or messages) and its children.

    Raises TapestryError when no node has key ``key``.
    """
    node = get_node(reader.conn, key)
    if node is None:
        raise TapestryError(f"no node {key!r} (keys look like L1:claude-code:2026-03-04; see `tapestryctl recall`)")
    return _with_sources(reader, node)
