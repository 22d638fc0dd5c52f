"""The parts results are made of: search hits, conversations, messages, counts, context items.

Each is a frozen :class:`~tapestryd.operations.shape.Record` whose fields are the JSON keys
of that part, in the order the query layer writes them (the socket's and ``-f json``'s
contract). Timestamps are ISO 8601 strings as stored (UTC, ``...Z``) or local with an offset
(``local_time``); counts are whole numbers. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tapestryd.operations.shape import Record, absent

__all__ = [
    "AgentCounts", "ContextCut", "ContextItem", "ContextTokens", "Conversation", "ConversationMessage",
    "ConversationRank", "Hit", "Message", "TimeRange",
]


@dataclass(frozen=True)
class Hit(Record):
    """One search or similarity hit: a message (``kind`` ``message``) or a summary (``summary``).

    ``id``: the message's row id (a summary's node row); ``key``: a summary's node key (``""``
    for a message); ``level``: ``message`` or a summary's level (``L0`` .. ``L4``); ``score``:
    bm25 (lower is better) in search, the cosine in (0, 1] in similar, 0 for regex and time
    listings; ``origin``: the machine that captured a message (``""`` for a summary);
    ``message_uuid`` / ``conversation_uuid``: the source's own ids; ``extra``: open-ended marks
    (``next_to_match``, ``title_match``, ``outside_range``, ``quoted_by``, ``quoted_keys`` ...).
    """

    kind: str = "message"
    id: int = 0
    conversation: str = ""
    message_key: str = ""
    title: str = ""
    agent: str = ""
    role: str = ""
    ts: str = ""
    local_time: str = ""
    snippet: str = ""
    score: float = 0.0
    key: str = ""
    level: str = "message"
    origin: str = ""
    message_uuid: str = ""
    conversation_uuid: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TimeRange(Record):
    """How a time phrase was read: ``since`` / ``until`` (ISO UTC, None: open), ``first`` / ``last``
    local days (ISO dates), ``granularity`` (day, week, month ...) and a readable ``label``."""

    phrase: str = ""
    since: str | None = None
    until: str | None = None
    first: str = ""
    last: str = ""
    granularity: str = ""
    label: str = ""


@dataclass(frozen=True)
class ConversationRank(Record):
    """A conversation ranked by hybrid search: its fused ``score``, the ``sum`` and ``best`` of its
    hits' scores, query ``terms`` it holds, ``hits`` found, its ``top`` hit's key, and
    ``outside_range`` (true, or absent) when found only outside the time range."""

    conversation: str = ""
    title: str = ""
    score: float = 0.0
    sum: float = 0.0
    best: float = 0.0
    terms: int = 0
    hits: int = 0
    top: str = ""
    outside_range: bool | None = absent()


@dataclass(frozen=True)
class Conversation(Record):
    """A conversation's row: key (``agent:id``), agent, source (file and offset), title, first and last
    message (UTC), message count, the agent's session id, working directory and git branch."""

    key: str = ""
    agent: str = ""
    source: str | None = None
    title: str | None = None
    first_ts: str | None = None
    last_ts: str | None = None
    message_count: int = 0
    session: str | None = None
    cwd: str | None = None
    git_branch: str | None = None


@dataclass(frozen=True)
class ConversationMessage(Record):
    """A message of a shown conversation: id, the source's key, role, time (UTC and local), text,
    the model that answered (``""`` if unknown) and whether a subagent said it."""

    id: int = 0
    message_key: str = ""
    role: str = ""
    ts: str = ""
    local_time: str = ""
    text: str = ""
    model: str | None = None
    sidechain: bool = False


@dataclass(frozen=True)
class Message(Record):
    """A message fetched by id: its conversation and title, agent, role, time (UTC and local), text,
    and ``asked`` (true for the ids asked for, false for their neighbours)."""

    id: int = 0
    conversation: str = ""
    title: str = ""
    agent: str = ""
    role: str = ""
    ts: str = ""
    local_time: str = ""
    text: str = ""
    asked: bool = False


@dataclass(frozen=True)
class AgentCounts(Record):
    """One agent's conversations and messages, and its first and last message (UTC, None if none)."""

    conversations: int = 0
    messages: int = 0
    first: str | None = None
    last: str | None = None


@dataclass(frozen=True)
class ContextItem(Record):
    """A part of the context: a summary or a message, its labels, ``state`` (full or short) and
    ``tokens``; ``text`` only in the json format (the others carry it rendered)."""

    level: str = ""
    period: str = ""
    agent: str = ""
    key: str = ""
    title: str = ""
    kind: str = ""
    role: str = ""
    origin: str = ""
    start: str = ""
    state: str = ""
    tokens: int = 0
    text: str | None = absent()


@dataclass(frozen=True)
class ContextTokens(Record):
    """Tokens ``used``, the budget ``max`` (None: none) and the parts it ``cut``."""

    used: int = 0
    max: int | None = None
    cut: tuple[ContextCut, ...] = ()


@dataclass(frozen=True)
class ContextCut(Record):
    """A part the budget cut: its key, level and period, its tokens before and after, and the
    ``action`` (shortened or dropped)."""

    key: str = ""
    level: str = ""
    period: str = ""
    tokens_before: int = 0
    action: str = ""
    tokens_after: int = 0
