"""Telescoping context: earlier years, months, weeks and days as summaries, today as messages.

For an anchor day D (today by default) in the configured timezone the items partition all
time before D exactly once, using the hierarchy's own periods (weeks split at month
boundaries, :mod:`tapestryd.clock`):

=====  =================================================  =====================
level  periods                                            item
=====  =================================================  =====================
L4     every year before D's year                         yearly summary
L3     this year's months before D's month                monthly summary
L2     this month's (split) weeks before D's week         weekly summary
L1     this week's days before D                          daily summary
raw    D itself                                           the most recent messages
=====  =================================================  =====================

A period whose node has no summary yet is replaced by its children, recursively (a day
not yet closed shows its conversation segments, or their titles when those are pending).
``project`` narrows everything to Claude Code conversations whose cwd is inside a path:
messages and segments of those conversations, and the summaries of periods they touched.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from tapestryd.clock import local_date, month_period, period_of, utc_range, week_period
from tapestryd.db import translate_errors
from tapestryd.events.types import format_utc, parse_utc
from tapestryd.projections.hierarchy_views import (children, has_nodes, last_node_id, node_agents, nodes_in_key_range,
                                                   segment_days)
from tapestryd.projections.messages_read import (MessageScope, conversations_under, last_conversation_rowid,
                                                 scoped_messages)
from tapestryd.queries.reader import Reader

__all__ = ["ContextItem", "ContextScope", "gather_context", "message_filter", "project_conversations",
           "recent_messages"]

LEVEL_RANK = {"L4": 0, "L3": 1, "L2": 2, "L1": 3, "L0": 4, "raw": 5}
_ROLES = ("user", "assistant")


@dataclass
class ContextItem:
    """One labelled piece of context.

    ``level`` is ``L4`` … ``L0`` or ``raw`` (a message of the anchor day); ``period`` the
    period key (a local ``HH:MM`` for a message); ``kind`` is ``summary``, ``pending`` (a
    segment not summarized yet: its title only) or ``message``; ``start`` is the period's
    first day (a message's local ISO time) and orders items; ``role`` and ``origin`` (the
    machine that captured it) are set for messages.
    """

    level: str
    period: str
    agent: str
    key: str
    title: str
    text: str
    kind: str
    start: str
    role: str = ""
    origin: str = ""


@dataclass
class ContextScope:
    """What the context covers: anchor day, agent (or ``agents`` with nodes), machine (the origin of the
    messages read; summaries cover every machine), project and its conversations."""

    anchor: date
    now: datetime
    agent: str = ""
    machine: str = ""
    project: str = ""
    conversations: set[str] | None = None
    allowed: set[str] | None = None
    agents: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _cwd_match(project: str) -> tuple[str, str]:
    """The normalized path and a LIKE pattern (escaped) for paths inside it."""
    root = os.path.normpath(os.path.abspath(os.path.expanduser(project)))
    like = root.rstrip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "/%"
    return root, like


def project_conversations(conn: sqlite3.Connection, project: str) -> set[str]:
    """Keys of conversations whose cwd is ``project`` or inside it (path compared normalized)."""
    return {key for key, _ in conversations_under(conn, *_cwd_match(project))}


def gather_context(reader: Reader, *, now: datetime, anchor: date | None = None, agent: str = "",
                   project: str = "", recent: int = 30, items: bool = True,
                   machine: str = "") -> tuple[ContextScope, list[ContextItem]]:
    """The scope and every item of the context, oldest and highest level first.

    ``now`` is the aware current instant, ``anchor`` the local day to build around
    (default: today), ``recent`` the most raw messages of the anchor day to include;
    ``items`` False gives the scope alone (for the short block); ``machine`` keeps the
    messages one machine captured (the summaries cover every machine).
    """
    scope = _scope(reader.conn, now, anchor or local_date(now, reader.tz), agent, project,
                   reader.settings.first_day_of_week)
    scope.machine = machine
    if not items:
        return scope, []
    found: list[ContextItem] = []
    for level, low, high in _level_ranges(scope.anchor, reader.settings.first_day_of_week):
        nodes = [node for who in scope.agents
                 for node in nodes_in_key_range(reader.conn, f"{level}:{who}:{low}", f"{level}:{who}:{high}")]
        for node in sorted(nodes, key=lambda n: (n["period_start"], n["agent"])):
            found.extend(_best(reader.conn, node, scope))
    found.extend(recent_messages(reader, scope, limit=recent))
    return scope, found


def _scope(conn: sqlite3.Connection, now: datetime, anchor: date, agent: str, project: str,
           first_day_of_week: int) -> ContextScope:
    scope = ContextScope(anchor=anchor, now=now, agent=agent, agents=[agent] if agent else node_agents(conn))
    if not project:
        return scope
    convs, allowed = _cached_project_scope(conn, project, first_day_of_week)
    if not convs:
        scope.notes.append(f"nothing recorded under {project}; showing all projects")
        return scope
    scope.project, scope.conversations, scope.allowed = project, convs, allowed
    return scope


_SCOPES: dict[tuple[str, str, int], tuple[tuple[Any, ...], set[str], set[str]]] = {}
_SCOPES_KEPT = 64


def _cached_project_scope(conn: sqlite3.Connection, project: str, first_day_of_week: int) -> tuple[set[str], set[str]]:
    """:func:`_project_scope`, remembered until a conversation or a node is added to the store.

    A hook asks for the same project on every prompt; new messages in known conversations
    on known days change neither answer, so the scope is only rebuilt when the highest
    conversation rowid or node id moves.
    """
    if not has_nodes(conn):  # no hierarchy tables yet
        return _project_scope(conn, project, first_day_of_week)
    with translate_errors(conn):
        database = conn.execute("PRAGMA database_list").fetchone()[2]
    stamp = (last_conversation_rowid(conn), last_node_id(conn))
    key = (str(database), project, first_day_of_week)
    cached = _SCOPES.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1], cached[2]
    convs, allowed = _project_scope(conn, project, first_day_of_week)
    if len(_SCOPES) >= _SCOPES_KEPT:
        _SCOPES.pop(next(iter(_SCOPES)), None)
    _SCOPES[key] = (stamp, convs, allowed)
    return convs, allowed


def _project_scope(conn: sqlite3.Connection, project: str, first_day_of_week: int) -> tuple[set[str], set[str]]:
    """The project's conversations, and the keys of their segments and of every period above them.

    The conversations come from the messages projection; each then probes the hierarchy's
    segment index for its days; keys above the segments are computed.
    """
    convs = conversations_under(conn, *_cwd_match(project))
    if not has_nodes(conn):  # no hierarchy tables yet
        return {key for key, _ in convs}, set()
    allowed: set[str] = set()
    for conversation, who in convs:
        for start in segment_days(conn, who, conversation):
            allowed.add(f"L0:{who}:{start}:{conversation}")
            allowed.update(_period_keys(who, start, first_day_of_week))
    return {key for key, _ in convs}, allowed


@functools.lru_cache(maxsize=8192)
def _period_keys(agent: str, day: str, first_day_of_week: int) -> tuple[str, ...]:
    """Keys of the L1–L4 nodes of ``agent`` above local ``day``."""
    start = date.fromisoformat(day)
    return tuple(f"L{level}:{agent}:{period_of(level, start, first_day_of_week).key}" for level in range(1, 5))


def _level_ranges(anchor: date, first_day_of_week: int) -> list[tuple[str, str, str]]:
    """``(level, low period key, high period key)`` for each level with earlier periods."""
    month, week = month_period(anchor), week_period(anchor, first_day_of_week)
    ranges = []
    if anchor.year > 1:
        ranges.append(("L4", "0000", f"{anchor.year - 1:04d}"))
    if anchor.month > 1:
        ranges.append(("L3", f"{anchor.year:04d}-01", f"{anchor.year:04d}-{anchor.month - 1:02d}"))
    if week.start > month.start:
        ranges.append(("L2", f"{month.start.isoformat()}w", f"{(week.start - timedelta(days=1)).isoformat()}w"))
    if anchor > week.start:
        ranges.append(("L1", week.start.isoformat(), (anchor - timedelta(days=1)).isoformat()))
    return ranges


def _best(conn: sqlite3.Connection, node: dict[str, Any], scope: ContextScope) -> list[ContextItem]:
    """The node's summary, or (when it has none yet) its children's best, recursively."""
    if scope.allowed is not None and node["key"] not in scope.allowed:
        return []
    level = f"L{node['level']}"
    start = str(node["period_start"] or "")
    if (node["summary"] or "").strip():
        return [ContextItem(level, _period_key(node["key"]), node["agent"], node["key"], node["title"] or "",
                            node["summary"].strip(), "summary", start)]
    if node["level"] == 0:
        return [ContextItem(level, _period_key(node["key"]), node["agent"], node["key"],
                            node["title"] or node["conversation"] or "", "", "pending", start)]
    return [item for child in children(conn, node["key"]) for item in _best(conn, child, scope)]


def _period_key(key: str) -> str:
    parts = key.split(":")
    return parts[2] if len(parts) > 2 else key


def recent_messages(reader: Reader, scope: ContextScope, *, limit: int) -> list[ContextItem]:
    """The anchor day's most recent user and assistant messages in scope, oldest first."""
    lo, hi = utc_range(scope.anchor, scope.anchor, reader.tz)
    hi = min(hi, scope.now) if scope.anchor == local_date(scope.now, reader.tz) else hi
    rows = scoped_messages(reader.conn, format_utc(lo), format_utc(hi), message_filter(scope), limit)
    return [_message_item(reader, row) for row in reversed(rows)]


def message_filter(scope: ContextScope) -> MessageScope:
    """The messages the scope reads: user and assistant turns, of its agent, machine and project's conversations."""
    convs = None if scope.conversations is None else frozenset(scope.conversations)
    return MessageScope(_ROLES, scope.agent, convs, scope.machine)


def _message_item(reader: Reader, row: tuple[Any, ...]) -> ContextItem:
    _, conv, key, agent, role, ts, text, title, origin = row
    local = parse_utc(ts).astimezone(reader.tz)
    return ContextItem("raw", local.strftime("%H:%M"), agent, f"{conv}/{key}", title or "", text.strip(),
                       "message", local.isoformat(timespec="seconds"), role, origin)
