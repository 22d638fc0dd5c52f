"""Turn a hierarchy node into a SummaryRequest: its inputs, its telescoping context, its labels.

An L0's inputs are its messages (``HH:MM me`` / ``HH:MM assistant`` in local time) and its
title hint the conversation's title; a higher node's inputs are its children's summaries
labelled with their period and title, and its title hint their titles joined. A day (L1)
also carries its conversation-days' messages as ``sources`` (one tuple per child), so a
provider may pick sentences from what was said that day rather than from the summaries.
The context (see :mod:`tapestryd.projections.hierarchy_read`) is fingerprinted so each
NodeSummarized says exactly which context it was made with.
"""

from __future__ import annotations

import sqlite3
from datetime import date
from zoneinfo import ZoneInfo

from tapestryd.events.types import parse_utc
from tapestryd.projections.hierarchy_keys import hash_parts
from tapestryd.projections.hierarchy_read import NodeRow, child_keys, children, context_nodes, segment_message_ids
from tapestryd.projections.messages_read import conversation_titles, timed_messages
from tapestryd.summarize.base import Passage, SummaryRequest

__all__ = ["build_request", "dependency_keys", "period_label"]

_SPEAKERS = {"user": "me", "assistant": "assistant"}


def build_request(conn: sqlite3.Connection, node: NodeRow, tz: ZoneInfo, *,
                  with_context: bool) -> tuple[SummaryRequest, str]:
    """The request for ``node`` and the fingerprint of its context (``''`` without context)."""
    kids = [] if node.level == 0 else children(conn, node.key)
    inputs = _message_passages(conn, node, tz) if node.level == 0 else tuple(
        Passage(_child_label(child, tz), child.summary) for child in kids)
    context = [c for c in context_nodes(conn, node) if c.summary] if with_context else []
    request = SummaryRequest(
        node=node.key, level=node.level, period=period_label(node), inputs=inputs,
        context=tuple(Passage(_child_label(c, tz), c.summary) for c in context), agent=node.agent,
        title_hint=_conversation_title(conn, node.conversation) if node.level == 0 else _joined_titles(kids),
        source_chars=node.source_chars, day=node.period_start,
        sources=tuple(_message_passages(conn, kid, tz) for kid in kids) if node.level == 1 else (),
    )
    fingerprint = hash_parts("context", *(part for c in context for part in (c.key, c.title, c.summary)))
    return request, fingerprint if with_context else ""


def dependency_keys(conn: sqlite3.Connection, node: NodeRow) -> set[str]:
    """Keys whose summaries ``node`` reads: its children and its context nodes."""
    return child_keys(conn, node.key) | {c.key for c in context_nodes(conn, node)}


def _message_passages(conn: sqlite3.Connection, node: NodeRow, tz: ZoneInfo) -> tuple[Passage, ...]:
    return tuple(Passage(f"{_clock_time(ts, tz)} {_SPEAKERS.get(role, role)}", text, role)
                 for _, role, ts, text in timed_messages(conn, segment_message_ids(conn, node.key)) if text.strip())


def _conversation_title(conn: sqlite3.Connection, conversation: str) -> str:
    return conversation_titles(conn, [conversation]).get(conversation, "")


def _joined_titles(kids: list[NodeRow]) -> str:
    """The children's distinct titles in order (``Sourdough schedule · Lisbon trip``)."""
    return " · ".join(dict.fromkeys(k.title for k in kids if k.title))


def _clock_time(ts: str, tz: ZoneInfo) -> str:
    return parse_utc(ts).astimezone(tz).strftime("%H:%M")


def _child_label(node: NodeRow, tz: ZoneInfo) -> str:
    start = date.fromisoformat(node.period_start)
    when = {
        0: f"{start:%a %d %b} {_clock_time(node.first_ts, tz)}–{_clock_time(node.last_ts, tz)}",
        1: f"{start:%a %d %b %Y}",
        2: f"week of {start:%d %b %Y}",
        3: f"{start:%B %Y}",
        4: f"{start:%Y}",
    }[node.level]
    return f"{when}: {node.title}" if node.title else when


def period_label(node: NodeRow) -> str:
    """A readable period: ``Wednesday 04 March 2026``, ``02–08 March 2026``, ``March 2026``, ``2026``."""
    start, end = date.fromisoformat(node.period_start), date.fromisoformat(node.period_end)
    if node.level <= 1:
        return f"{start:%A %d %B %Y}"
    if node.level == 2:
        return f"the week {start:%d}–{end:%d %B %Y}"
    return f"{start:%B %Y}" if node.level == 3 else f"{start:%Y}"
