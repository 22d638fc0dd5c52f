"""The requests of the queries (search, similar, context, conversations, show, messages, stats, recall, node, ping).

One module of the request types (see :mod:`tapestryd.operations.requests`), imported on first
use of one of its names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ContextRequest", "ConversationsRequest", "MessagesRequest", "NodeRequest", "PingRequest", "RecallRequest",
    "SearchRequest", "ShowRequest", "SimilarRequest", "StatsRequest"]


@dataclass(frozen=True)
class PingRequest:
    """Liveness: is a daemon there, which version, which home."""


@dataclass(frozen=True)
class SearchRequest:
    """Full-text search over messages and summaries.

    ``level``: all, messages, summaries or L0 … L4; ``since``/``until``: ISO 8601 or a time
    phrase; ``sort``: relevance or time; ``mode``: fts or hybrid (BM25 fused with TF-IDF);
    ``widen``: fill from other times, marked; ``no_subagents``: leave out what subagents said;
    ``limit``: 1 to 10,000 hits; ``conversation``:
    a key or a unique end of one (None: every conversation; ``""`` is refused); ``project``: a
    path, only conversations whose cwd is inside it; ``machine``: only the messages that machine
    captured (their origin; summaries, which cover every machine, are left out).
    """

    query: str = ""
    agent: str = ""
    role: str = ""
    machine: str = ""
    conversation: str | None = None
    project: str = ""
    level: str = "all"
    since: str = ""
    until: str = ""
    sort: str = "relevance"
    regex: bool = False
    mode: str = "fts"
    widen: bool = False
    no_subagents: bool = False
    limit: int = 20
    now: str = ""


@dataclass(frozen=True)
class ConversationsRequest:
    """Recent conversations, most recently active first (``limit`` 1 to 10,000)."""

    agent: str = ""
    limit: int = 50


@dataclass(frozen=True)
class ShowRequest:
    """One conversation in full: its key or a unique end of it."""

    conversation: str = ""


@dataclass(frozen=True)
class MessagesRequest:
    """Messages by id (1 to 100 ids from search) with ``before`` and ``after`` neighbours each (0 to 50)."""

    ids: tuple[int, ...] = ()
    before: int = 0
    after: int = 0


@dataclass(frozen=True)
class StatsRequest:
    """Counts of conversations and messages per agent and role."""


@dataclass(frozen=True)
class ContextRequest:
    """Telescoping context around ``date`` (default today).

    ``format``: text, markdown or json; ``recent``: raw messages of the day (1 to 500);
    ``max_tokens``: token budget (None: none); ``now_only``: only the "where we are now"
    block; ``exclude_session``: a session whose messages are left out (the hook's own);
    ``machine``: only the messages that machine captured (summaries cover every machine).
    """

    date: str = ""
    agent: str = ""
    machine: str = ""
    project: str = ""
    max_tokens: int | None = None
    format: str = "text"
    recent: int = 30
    now_only: bool = False
    exclude_session: str = ""
    now: str = ""


@dataclass(frozen=True)
class SimilarRequest:
    """Messages and summaries most similar to ``query`` by TF-IDF cosine (``top`` 1 to 1,000)."""

    query: str = ""
    level: str = "all"
    top: int = 10


@dataclass(frozen=True)
class RecallRequest:
    """The best available nodes for a date, period or range (``limit``: most nodes, 1 to 10,000;
    ``days``: conversation-days listed per node, 0 to 1,000)."""

    when: str = ""
    agent: str = ""
    limit: int = 50
    days: int = 0
    now: str = ""


@dataclass(frozen=True)
class NodeRequest:
    """One summary node with its sources, by key (``L1:claude-code:2026-03-04``)."""

    key: str = ""
