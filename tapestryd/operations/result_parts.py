"""The parts results are made of: search hits, conversations, messages, counts, context items, nodes,
import receipts, summarizer runs and checks, evaluation and drift figures, sync transfers.

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
    "AgentCounts", "ArchivedVersion", "BackupFile", "Check", "ContextCut", "ContextItem", "ContextTokens",
    "Conversation", "ConversationCounts", "ConversationDay", "ConversationMessage", "ConversationRank", "DriftStep",
    "DriftedNode", "EvalFacts", "EvalMethod", "FileReceipt", "ForgetRuleSpec", "HierarchyCheck", "Hit",
    "IngestTotals", "LevelEval", "LevelYield", "Message", "MessageCounts", "NodeSource", "ProjectionState",
    "ProviderName", "ProviderUsage", "RangeConversation", "RecallYield", "SkippedRow", "StoreCounts", "SummaryNode",
    "SummaryRun", "TimeRange", "Transfer", "TreeNode", "Usage",
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
class TreeNode(Record):
    """A node of the summary tree: its labels, ``closed`` (its period is over), messages under it,
    how and by which provider it was summarized (``""``: not yet), and its ``children`` in time order."""

    key: str = ""
    level: int = 0
    agent: str = ""
    parent: str = ""
    period_start: str = ""
    period_end: str = ""
    conversation: str = ""
    title: str = ""
    state: str = ""
    closed: bool = False
    message_count: int = 0
    mode: str = ""
    provider: str = ""
    children: tuple[TreeNode, ...] = ()


@dataclass(frozen=True)
class StoreCounts(Record):
    """Conversations and messages the projections hold, and the messages of each machine that captured
    them (``machines``: machine → messages, most first)."""

    conversations: int = 0
    messages: int = 0
    machines: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ProjectionState(Record):
    """The log's ``last_seq``, each projection's ``checkpoints`` (seq), and the seqs each is behind (``lag``)."""

    last_seq: int = 0
    checkpoints: Mapping[str, int] = field(default_factory=dict)
    lag: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ConversationCounts(Record):
    """Conversations an import found ``new``, ``updated`` (more messages) and already ``known``."""

    new: int = 0
    updated: int = 0
    known: int = 0


@dataclass(frozen=True)
class MessageCounts(Record):
    """Messages an import found ``new`` and already ``known``."""

    new: int = 0
    known: int = 0


@dataclass(frozen=True)
class FileReceipt(Record):
    """What one file (or ZIP) of an import gave: its path and sha256, the ``parser`` that read it and the
    ``agent`` label (``""`` when it was never read), the counts, what was ``skipped`` by reason, and
    the ``errors`` (at most the first few, each one line)."""

    path: str = ""
    sha256: str = ""
    parser: str = ""
    agent: str = ""
    conversations: ConversationCounts = field(default_factory=ConversationCounts)
    messages: MessageCounts = field(default_factory=MessageCounts)
    skipped: Mapping[str, int] = field(default_factory=dict)
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class IngestTotals(Record):
    """An import's sums: files, conversations new and known (an updated one counts as known), messages
    new and known, what was skipped by reason (files passed over too), and the number of errors."""

    files: int = 0
    conversations_new: int = 0
    conversations_known: int = 0
    messages_new: int = 0
    messages_known: int = 0
    skipped: Mapping[str, int] = field(default_factory=dict)
    errors: int = 0


@dataclass(frozen=True)
class Usage(Record):
    """What a summarizer run asked of its provider: ``calls`` and tokens in and out."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True)
class BackupFile(Record):
    """One backup of the event log: its path, ``label`` (events, pre-restore, pre-compact), when it was
    taken (ISO UTC) and its ``size`` (bytes)."""

    path: str = ""
    label: str = ""
    taken_at: str = ""
    size: int = 0


@dataclass(frozen=True)
class Check(Record):
    """One check of ``verify``: its ``name``, whether it passed, one line of ``detail``, and the first
    ``problems`` found (one line each)."""

    name: str = ""
    ok: bool = False
    detail: str = ""
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArchivedVersion(Record):
    """One archived version of a file: its ``id`` (for ``archive extract``), path, ``version`` (1 up),
    the ``source`` that watched it, its ``original_bytes`` and ``stored_bytes``, whether forget
    rules ``edited`` it, its ``state`` (current, replaced) and its first and last capture (ISO UTC)."""

    id: int = 0
    path: str = ""
    version: int = 0
    source: str = ""
    original_bytes: int = 0
    stored_bytes: int = 0
    edited: bool = False
    state: str = ""
    first_capture: str = ""
    last_capture: str = ""


@dataclass(frozen=True)
class SummaryRun(Record):
    """What one summarizer run did (a part of ``repair``): nodes ``summarized`` (of which ``unchanged``),
    the ``failed`` ones (node key → error), provider ``usage``, nodes ``remaining``, why it
    ``stopped`` (``""``: out of work) and the ``reason`` in words, and its ``seconds``."""

    summarized: int = 0
    unchanged: int = 0
    failed: Mapping[str, str] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    remaining: int = 0
    stopped: str = ""
    reason: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class HierarchyCheck(Record):
    """One structural check of the summary tree: its ``name``, whether it passed, how many nodes
    offend (``failures``) and the first few of them (``examples``, node keys)."""

    name: str = ""
    ok: bool = False
    failures: int = 0
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProviderUsage(Record):
    """What one provider and model summarized in all: ``summaries``, ``calls``, tokens in and out."""

    provider: str = ""
    model: str = ""
    summaries: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True)
class EvalMethod(Record):
    """How ``eval`` measured: the ``similarity`` (tfidf, embedding), the cosine ``threshold`` at which a
    fact counts as retained, and the ``match``, ``compression`` and ``score`` rules in words."""

    similarity: str = ""
    threshold: float = 0.0
    match: str = ""
    compression: str = ""
    score: str = ""


@dataclass(frozen=True)
class EvalFacts(Record):
    """The facts ``eval`` looked for: their ``source`` (``file`` or ``extracted``), the ``file`` (None:
    extracted), how many in all, ``matched`` to a node and not (``unmatched``), and the lines of the
    file ``skipped`` with their ``problems`` (one line each)."""

    source: str = ""
    file: str | None = None
    total: int = 0
    matched: int = 0
    unmatched: int = 0
    skipped: int = 0
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class LevelEval(Record):
    """One level's evaluation (docs/EVAL.md): nodes and those not summarized, source and summary size
    (chars, tokens), compression ratios, facts and those retained, retention, Tapestry Score, facts
    without a summary, the chance retention and the recall decay (ratios None when undefined)."""

    level: int = 0
    nodes: int = 0
    unsummarized: int = 0
    source_chars: int = 0
    summary_chars: int = 0
    source_tokens: int = 0
    summary_tokens: int = 0
    compression_chars: float | None = None
    compression_tokens: float | None = None
    facts: int = 0
    retained: int = 0
    retention: float | None = None
    tapestry_score: float | None = None
    facts_without_summary: int = 0
    chance_retention: float | None = None
    recall_decay: float | None = None


@dataclass(frozen=True)
class LevelYield(Record):
    """One level's Recall Yield: nodes that could be sampled (``candidates``) and were, the similarity
    of fresh summaries to the stored ones (mean, min, max; None when none was sampled), the facts
    and their retention with and without telescoping context."""

    level: int = 0
    candidates: int = 0
    sampled: int = 0
    similarity_mean: float | None = None
    similarity_min: float | None = None
    similarity_max: float | None = None
    facts: int = 0
    retention_with_context: float | None = None
    retention_without_context: float | None = None


@dataclass(frozen=True)
class RecallYield(Record):
    """Recall Yield: nodes sampled per level at most (``sample``) and each level's figures."""

    sample: int = 0
    levels: tuple[LevelYield, ...] = ()


@dataclass(frozen=True)
class ProviderName(Record):
    """A summarizer provider's ``name`` and ``model`` (``""``: its default)."""

    name: str = ""
    model: str = ""


@dataclass(frozen=True)
class DriftStep(Record):
    """One step between two successive summaries of a node: the events' seqs, when the later was
    made, the cosine ``similarity``, ``drift`` (1 - cosine), its ``severity`` label and whether the
    provider changed between them."""

    from_seq: int = 0
    to_seq: int = 0
    at: str = ""
    similarity: float = 0.0
    drift: float = 0.0
    severity: str = ""
    provider_changed: bool = False


@dataclass(frozen=True)
class DriftedNode(Record):
    """A node with two or more summaries: its key, level, agent, ``versions``, the largest drift of a
    step and its severity, the latest step's drift, and the ``steps``, oldest first."""

    node: str = ""
    level: int = 0
    agent: str = ""
    versions: int = 0
    max_drift: float = 0.0
    severity: str = ""
    latest_drift: float = 0.0
    steps: tuple[DriftStep, ...] = ()


@dataclass(frozen=True)
class ForgetRuleSpec(Record):
    """What a Forgotten event covers: a ``conversation`` key, everything ``before`` an instant (ISO UTC),
    or messages whose text ``match``es a regex (``""``: that one does not narrow)."""

    conversation: str = ""
    before: str = ""
    match: str = ""


@dataclass(frozen=True)
class SkippedRow(Record):
    """A hub row a sync round passed over: its ``seq`` on the hub, the ``event_id`` and the ``reason``."""

    seq: int = 0
    event_id: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Transfer(Record):
    """One direction of a sync round: rows ``seen``, events ``new`` on the receiving side, rows
    ``skipped`` (the first few in ``skipped_rows``) and the new events by type (``new_types``)."""

    seen: int = 0
    new: int = 0
    skipped: int = 0
    skipped_rows: tuple[SkippedRow, ...] = ()
    new_types: Mapping[str, int] = field(default_factory=dict)
