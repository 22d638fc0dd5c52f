"""The calendar's reads: a month grid, a day panel, one node, a conversation-day, status.

Everything is read from the hierarchy's ``nodes`` and ``node_sources`` tables and the
messages projection, by primary-key ranges over node keys, so a month costs a handful of
index range scans whatever the size of the store. Node keys (the hierarchy's contract)::

    L0:{agent}:{YYYY-MM-DD}:{conversation}   L1:{agent}:{YYYY-MM-DD}
    L2:{agent}:{YYYY-MM-DDw}                 L3:{agent}:{YYYY-MM}      L4:{agent}:{YYYY}

Dates are local days in the configured timezone (the hierarchy computes them); message
timestamps are ISO 8601 UTC text of fixed width. A home whose hierarchy has not been built
yet (no ``nodes`` table) reads as a calendar without nodes.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from tapestryd.clock import month_period, utc_range, week_period
from tapestryd.db import connect, translate_errors
from tapestryd.events.types import format_utc, parse_utc
from tapestryd.projections.hierarchy_calendar import (calendar_node, child_nodes_and_messages, day_segments,
                                                      period_rows, segment_counts, state_counts, titles_of)
from tapestryd.projections.hierarchy_views import has_nodes
from tapestryd.projections.messages_read import conversation_row, conversation_titles, day_messages, stored_agents
from tapestryd.projections.runner import checkpoints
from tapestryd.queries.reader import Reader

__all__ = [
    "DayActivity",
    "MonthGrid",
    "PeriodTitle",
    "agents_with_data",
    "conversation_day",
    "day_panel",
    "month_grid",
    "node_view",
    "store_status",
]

@dataclass(frozen=True)
class PeriodTitle:
    """One agent's node for a period: its key, title and state (empty title: not summarized)."""

    agent: str
    key: str
    title: str
    state: str


@dataclass(frozen=True)
class DayActivity:
    """One agent on one local day: its daily node (if summarized) and raw activity counts.

    ``segments`` and ``messages`` add up the day's L0 nodes; ``title`` and ``summary`` are
    the L1 node's (empty before the day is summarized).
    """

    agent: str
    day: date
    title: str = ""
    summary: str = ""
    state: str = ""
    segments: int = 0
    messages: int = 0

    @property
    def summarized(self) -> bool:
        """True when the day has a daily summary."""
        return bool(self.summary or self.title)


@dataclass(frozen=True)
class MonthGrid:
    """A month as calendar rows of seven days starting on the first day of the week.

    ``weeks`` lists each row's days; ``activity`` maps a day to its agents' activity;
    ``week_titles`` maps a row's first day to the weekly nodes of the month's part of it;
    ``month_titles`` and ``year_titles`` are the L3 and L4 nodes of the month's agents.
    """

    year: int
    month: int
    weeks: list[list[date]]
    activity: dict[date, list[DayActivity]] = field(default_factory=dict)
    week_titles: dict[date, list[PeriodTitle]] = field(default_factory=dict)
    month_titles: list[PeriodTitle] = field(default_factory=list)
    year_titles: list[PeriodTitle] = field(default_factory=list)


def agents_with_data(reader: Reader) -> list[str]:
    """Every agent label that has at least one conversation, sorted."""
    return stored_agents(reader.conn)


def calendar_weeks(year: int, month: int, first_day_of_week: int) -> list[list[date]]:
    """The rows of seven days that cover ``year-month``, each starting on ``first_day_of_week``."""
    first = date(year, month, 1)
    start = first - timedelta(days=(first.weekday() - first_day_of_week) % 7)
    last = month_period(first).end
    rows = []
    while start <= last:
        rows.append([start + timedelta(days=i) for i in range(7)])
        start += timedelta(days=7)
    return rows


def month_grid(reader: Reader, year: int, month: int, agents: list[str]) -> MonthGrid:
    """The month ``year-month`` for ``agents``: per-day activity, week, month and year titles."""
    weeks = calendar_weeks(year, month, reader.settings.first_day_of_week)
    grid = MonthGrid(year, month, weeks)
    if not agents or not has_nodes(reader.conn):
        return grid
    lo, hi = weeks[0][0], weeks[-1][-1]
    for agent in agents:
        _add_days(reader.conn, grid, agent, lo, hi)
        _add_weeks(reader.conn, grid, agent, reader.settings.first_day_of_week)
        grid.month_titles.extend(_titles(reader.conn, [f"L3:{agent}:{year:04d}-{month:02d}"]))
        grid.year_titles.extend(_titles(reader.conn, [f"L4:{agent}:{year:04d}"]))
    return grid


def _add_days(conn: sqlite3.Connection, grid: MonthGrid, agent: str, lo: date, hi: date) -> None:
    counts = _segment_counts(conn, agent, lo, hi)
    dailies = _dailies(conn, agent, lo, hi)
    for day in sorted(set(counts) | set(dailies)):
        segments, messages = counts.get(day, (0, 0))
        title, summary, state = dailies.get(day, ("", "", ""))
        grid.activity.setdefault(day, []).append(
            DayActivity(agent, day, title, summary, state, segments, messages))


def _segment_counts(conn: sqlite3.Connection, agent: str, lo: date, hi: date) -> dict[date, tuple[int, int]]:
    """(segments, messages) per local day from the L0 keys of ``agent`` in [lo, hi]."""
    start, stop = f"L0:{agent}:{lo.isoformat()}", f"L0:{agent}:{(hi + timedelta(days=1)).isoformat()}"
    return {date.fromisoformat(d): (n, m) for d, n, m in segment_counts(conn, start, stop)}


def _dailies(conn: sqlite3.Connection, agent: str, lo: date, hi: date) -> dict[date, tuple[str, str, str]]:
    start, stop = f"L1:{agent}:{lo.isoformat()}", f"L1:{agent}:{hi.isoformat()}"
    rows = period_rows(conn, start, stop)
    return {date.fromisoformat(str(d)): (t or "", s or "", st or "") for d, t, s, st in rows}


def _add_weeks(conn: sqlite3.Connection, grid: MonthGrid, agent: str, first_day_of_week: int) -> None:
    for row in grid.weeks:
        inside = [d for d in row if d.month == grid.month]
        key = f"L2:{agent}:{week_period(inside[0], first_day_of_week).key}"
        grid.week_titles.setdefault(row[0], []).extend(_titles(conn, [key]))


def _titles(conn: sqlite3.Connection, keys: list[str]) -> list[PeriodTitle]:
    return [PeriodTitle(str(a), str(k), str(t or ""), str(s or "")) for a, k, t, s in titles_of(conn, keys)]


def day_panel(reader: Reader, day: date, agents: list[str]) -> list[dict[str, Any]]:
    """Per agent with anything on ``day``: its daily node (or None) and its L0 segments.

    Each item: ``{"agent", "daily": node dict | None, "segments": [node dict + "conversation_title"]}``,
    segments ordered by their first message.
    """
    if not has_nodes(reader.conn):
        return []
    panel = []
    for agent in agents:
        daily = calendar_node(reader.conn, f"L1:{agent}:{day.isoformat()}")
        segments = _segments(reader.conn, agent, day)
        if daily or segments:
            panel.append({"agent": agent, "daily": daily, "segments": segments})
    return panel


def _segments(conn: sqlite3.Connection, agent: str, day: date) -> list[dict[str, Any]]:
    prefix = f"L0:{agent}:{day.isoformat()}:"
    segments = day_segments(conn, prefix, prefix[:-1] + ";")
    titles = conversation_titles(conn, sorted({s["conversation"] for s in segments}))
    return [{**s, "conversation_title": titles.get(s["conversation"], "")} for s in segments]


def node_view(reader: Reader, key: str) -> dict[str, Any] | None:
    """One node with its parent (key, title) and its node sources in order, or None.

    Adds ``parent_node`` (dict or None), ``children`` (node dicts, for L1–L4) and
    ``message_sources`` (how many messages an L0 was built from).
    """
    if not has_nodes(reader.conn):
        return None
    node = calendar_node(reader.conn, key)
    if node is None:
        return None
    node["parent_node"] = calendar_node(reader.conn, node["parent"]) if node.get("parent") else None
    node["children"], node["message_sources"] = child_nodes_and_messages(reader.conn, key)
    return node


def conversation_day(reader: Reader, conversation: str, day: date | None) -> dict[str, Any] | None:
    """A conversation's messages on local ``day`` (all days when None), in time order, or None.

    Returns the conversation row plus ``messages``: dicts with id, role, ts (UTC), local_time
    (``HH:MM:SS`` in the configured zone), text and model.
    """
    conv = conversation_row(reader.conn, conversation)
    if conv is None:
        return None
    lo, hi = ("", "~") if day is None else (format_utc(t) for t in utc_range(day, day, reader.tz))
    rows = day_messages(reader.conn, conversation, lo, hi)
    messages = [{"id": i, "role": r, "ts": ts, "local_time": _local(reader, ts), "text": t, "model": m}
                for i, r, ts, t, m in rows]
    keys = ("key", "agent", "title", "first_ts", "last_ts", "message_count")
    return {**dict(zip(keys, conv)), "day": day, "messages": messages}


def _local(reader: Reader, ts: str) -> str:
    return parse_utc(ts).astimezone(reader.tz).strftime("%Y-%m-%d %H:%M:%S")


def store_status(reader: Reader, events_db: Path) -> dict[str, Any]:
    """Projector lag per projection (events), node counts by state, and the last import.

    ``last_import`` is the newest ImportFinished payload with its ``occurred_at`` (or None).
    Raises StoreError when a database cannot be read.
    """
    last_seq, last_import = _log_facts(events_db)
    states = state_counts(reader.conn) if has_nodes(reader.conn) else {}
    marks = checkpoints(reader.conn)
    return {"last_seq": last_seq, "lag": {name: max(0, last_seq - seq) for name, seq in marks.items()},
            "nodes": states, "last_import": last_import}


def _log_facts(events_db: Path) -> tuple[int, dict[str, Any] | None]:
    import json

    if not events_db.exists():
        return 0, None
    conn = connect(events_db, readonly=True)
    try:
        with translate_errors(conn):
            last = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
            row = conn.execute("SELECT occurred_at, payload FROM events WHERE type = 'ImportFinished'"
                               " ORDER BY seq DESC LIMIT 1").fetchone()
    finally:
        conn.close()
    return int(last), ({**json.loads(row[1]), "occurred_at": row[0]} if row else None)
