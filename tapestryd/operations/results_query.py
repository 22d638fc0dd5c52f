"""The results of the queries (search, similar, context, conversations, show, messages, stats, recall,
node, ping), and the parts they are made of.

One module of the result types (see :mod:`tapestryd.operations.results`), imported on first use
of one of its names, so a command builds only the dataclasses its own answer needs. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tapestryd.operations.shape import Listing, Record, absent

__all__ = ["AgentCounts", "ContextCut", "ContextItem", "ContextResult", "ContextTokens", "Conversation",
    "ConversationDay", "ConversationMessage", "ConversationRank", "ConversationsResult", "Hit", "Message",
    "MessagesResult", "NodeResult", "NodeSource", "PingResult", "RangeConversation", "RecallResult", "SearchResult",
    "ShowResult", "SimilarResult", "StatsResult", "SummaryNode", "TimeRange"]


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


@dataclass(frozen=True)
class NodeSource(Record):
    """A link down from a summary node, at ``position``: a child node (``kind`` ``node``: its ``title``,
    ``level`` and ``state`` when it exists) or a message (``kind`` ``message``: its ``id``,
    ``conversation``, ``message_key``, ``role``, ``ts`` and ``text`` when it is stored)."""

    source: str = ""
    kind: str = ""
    position: int = 0
    title: str | None = absent()
    level: int | None = absent()
    state: str | None = absent()
    id: int | None = absent()
    conversation: str | None = absent()
    message_key: str | None = absent()
    role: str | None = absent()
    ts: str | None = absent()
    text: str | None = absent()


@dataclass(frozen=True)
class ConversationDay(Record):
    """One conversation on one day inside a node's period (an L0 segment): its node key, the local
    ``date``, the conversation and its title."""

    key: str = ""
    date: str = ""
    conversation: str = ""
    title: str = ""


@dataclass(frozen=True)
class SummaryNode(Record):
    """A summary node: key (``L<level>:<agent>:<period>``), level (0 a conversation-day .. 4 a year),
    agent, parent key (``""`` for a year), local period (ISO dates), conversation (level 0 only),
    title, summary (``""`` until summarized), state (clean, dirty ...), messages under it and the
    first and last (UTC), its ``sources``; with recall's ``days``, its first ``conversation_days``
    and how many there are in all (``conversation_days_total``)."""

    key: str = ""
    level: int = 0
    agent: str = ""
    parent: str = ""
    period_start: str = ""
    period_end: str = ""
    conversation: str = ""
    title: str = ""
    summary: str = ""
    state: str = ""
    message_count: int = 0
    first_ts: str = ""
    last_ts: str = ""
    sources: tuple[NodeSource, ...] = ()
    conversation_days: tuple[ConversationDay, ...] | None = absent()
    conversation_days_total: int | None = absent()


@dataclass(frozen=True)
class RangeConversation(Record):
    """A conversation with messages in a recalled range: key, title, agent, ``messages`` and the first
    and last of them (UTC)."""

    key: str = ""
    title: str = ""
    agent: str = ""
    messages: int = 0
    first: str | None = None
    last: str | None = None


@dataclass(frozen=True)
class PingResult(Record):
    """``pong`` true, the daemon's (or this process's) version and the home's data dir."""

    pong: bool = True
    version: str = ""
    data_dir: str = ""


@dataclass(frozen=True)
class SearchResult(Record):
    """A search's answer: the ``query`` as asked and the ``terms`` searched once a time phrase is
    taken out, how the phrase was read (``time``, None without one), ``sort``, ``level``,
    ``regex``, how many hits lie ``outside`` the range, and the ``hits``, best first.

    Only some answers have the last four: ``mode`` (``hybrid``) and ``conversations`` (ranked)
    for a hybrid search, ``project`` when one narrowed it, and ``conversation`` when a short
    ``--conversation`` was resolved to this key.
    """

    query: str = ""
    terms: str = ""
    time: TimeRange | None = None
    sort: str = "relevance"
    level: str = "all"
    regex: bool = False
    outside: int = 0
    hits: tuple[Hit, ...] = ()
    mode: str | None = absent()
    conversations: tuple[ConversationRank, ...] | None = absent()
    project: str | None = absent()
    conversation: str | None = absent()


@dataclass(frozen=True)
class SimilarResult(Record):
    """The ``top`` hits most similar to ``query`` at ``level``, and the ``index`` that answered.

    ``index`` is open-ended: ``warm`` (bool), and either the warm index's own status (documents,
    fitted, delta, fit seconds ...) or, cold, ``engine`` ``fts5`` and the ``reason``.
    """

    query: str = ""
    level: str = "all"
    top: int = 10
    index: Mapping[str, Any] = field(default_factory=dict)
    hits: tuple[Hit, ...] = ()


@dataclass(frozen=True)
class ContextResult(Record):
    """The telescoping context: its ``anchor`` day (ISO), ``timezone``, the ``agent``, ``machine``
    and ``project`` it was narrowed to (``""``: all), ``notes`` for the reader, the ``now``
    block, the ``items`` kept, ``tokens`` (used, budget, cuts), a one-line ``budget_note``
    (``""`` without a budget) and ``rendered`` (text or markdown; ``""`` for json)."""

    anchor: str = ""
    timezone: str = ""
    agent: str = ""
    machine: str = ""
    project: str = ""
    notes: tuple[str, ...] = ()
    now: str = ""
    items: tuple[ContextItem, ...] = ()
    tokens: ContextTokens = field(default_factory=ContextTokens)
    budget_note: str = ""
    rendered: str = ""


@dataclass(frozen=True)
class ConversationsResult(Listing):
    """Conversations, most recently active first; its JSON is the list of them."""

    conversations: tuple[Conversation, ...] = ()


@dataclass(frozen=True)
class ShowResult(Conversation):
    """One conversation's row with every message in log order."""

    messages: tuple[ConversationMessage, ...] = ()


@dataclass(frozen=True)
class MessagesResult(Record):
    """``messages`` (each once, grouped by conversation in the order the ids first name them, in
    log order within one) and the ``missing`` ids (not stored)."""

    messages: tuple[Message, ...] = ()
    missing: tuple[int, ...] = ()


@dataclass(frozen=True)
class StatsResult(Record):
    """Conversations and messages in all, per agent (``agents``: name → counts) and per role (``roles``)."""

    conversations: int = 0
    messages: int = 0
    agents: Mapping[str, AgentCounts] = field(default_factory=dict)
    roles: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RecallResult(Record):
    """The best available nodes for ``when`` as asked: how it was read (``range``), the ``periods``
    covering it (``L<level>:<period>``), the first ``limit`` ``nodes`` with their sources; when
    no node covers it, the range's ``conversations`` instead; ``more``: nodes (or conversations)
    left out; ``agent``: the one asked for (``""``: all)."""

    when: str = ""
    range: TimeRange = field(default_factory=TimeRange)
    periods: tuple[str, ...] = ()
    nodes: tuple[SummaryNode, ...] = ()
    conversations: tuple[RangeConversation, ...] = ()
    more: int = 0
    limit: int = 50
    agent: str = ""


@dataclass(frozen=True)
class NodeResult(SummaryNode):
    """One node with its summary and its sources (children or messages)."""
