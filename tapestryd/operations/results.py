"""The result of every operation: one frozen dataclass each, turned to and from JSON.

Each is a **record** (:class:`~tapestryd.operations.shape.Record`, or a
:class:`~tapestryd.operations.shape.Listing` for a list answer): typed fields, nested records
for hits, messages, conversations, context items, checks and reports; its JSON is the answer's
object (or list) with the same keys in the same order as the query layer writes them, so every
JSON field a script reads today stays (``SearchResult``, ``ContextResult``, ``PingResult`` …).
Where an answer's keys depend on the outcome (a dry run or a real one, a report, an error or a
skip), the keys only some outcomes have are :func:`~tapestryd.operations.shape.absent` fields.

Every result has ``to_json()`` (what the socket sends, what ``-f json`` prints) and
``from_json(value)`` (what a client rebuilds from the socket's answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tapestryd.operations.result_parts import (AgentCounts, ArchivedVersion, BackupFile, Check, ContextItem,
                                               ContextTokens, Conversation, ConversationMessage, ConversationRank,
                                               DriftedNode, EvalFacts, EvalMethod, FileReceipt, ForgetRuleSpec,
                                               HierarchyCheck, Hit, IngestTotals, LevelEval, Message, ProjectionState,
                                               ProviderName, ProviderUsage, RangeConversation, RecallYield,
                                               StoreCounts, SummaryNode, SummaryRun, TimeRange, Transfer, TreeNode,
                                               Usage)
from tapestryd.operations.shape import Listing, Record, absent, rest

__all__ = [
    "ArchiveListResult", "BackupResult", "BackupsResult", "CatchUpResult", "CloseDaysResult", "CompactResult",
    "ContextResult",
    "ConversationsResult", "DriftResult", "EvalResult", "ForgetResult", "GenerateResult",
    "HierarchyStatusResult", "IngestResult", "IterateResult", "Listing", "MessagesResult", "NodeResult",
    "PauseResult", "PingResult", "RebuildResult", "RecallResult", "Record", "ReloadResult", "RepairResult",
    "RestoreResult", "ResumeResult", "SearchResult", "ShowResult", "SimilarResult", "StatsResult", "StatusResult",
    "SyncInitResult", "SyncResult", "SyncStatusResult", "TreeResult", "VerifyResult"
]


@dataclass(frozen=True)
class PingResult(Record):
    """``pong`` true, the daemon's (or this process's) version and the home's data dir."""

    pong: bool = True
    version: str = ""
    data_dir: str = ""


@dataclass(frozen=True)
class PauseResult(Record):
    """The daemon's paused state after ``pause``."""

    paused: bool = True


@dataclass(frozen=True)
class ResumeResult(Record):
    """The daemon's paused state after ``resume``."""

    paused: bool = False


@dataclass(frozen=True)
class RebuildResult(Record):
    """Events replayed, the log's last seq, and the unreadable projections file moved aside ('' if none)."""

    replayed: int = 0
    last_seq: int = 0
    set_aside: str = ""


@dataclass(frozen=True)
class CatchUpResult(Record):
    """Events applied, and each projection's lag behind the log after it (events)."""

    applied: int = 0
    lag: Mapping[str, int] | None = None


@dataclass(frozen=True)
class CloseDaysResult(Record):
    """DayClosed events appended."""

    days_closed: int = 0


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


@dataclass(frozen=True)
class TreeResult(Listing):
    """The summary tree: the years (per agent) with their ``children`` nested; its JSON is the list of roots."""

    roots: tuple[TreeNode, ...] = ()


@dataclass(frozen=True)
class HierarchyStatusResult(Record):
    """The summary tree's health: nodes per level (``levels``: ``L<n>`` → counts per state: total,
    clean, dirty, context_stale, open ...), nodes ``waiting``, provider ``usage``, the last ``runs``
    (kind → the run's record) and ``errors`` (node key → ``{error, at}``) as the summarizer's record
    file holds them, the structural ``checks`` and when they ran (``checks_at``: ``now``, an ISO
    time, ``""``: never; absent while no node exists) and the ``grade`` (A best)."""

    levels: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    waiting: int = 0
    usage: tuple[ProviderUsage, ...] = ()
    runs: Mapping[str, Any] = field(default_factory=dict)
    errors: Mapping[str, Any] = field(default_factory=dict)
    checks: tuple[HierarchyCheck, ...] = ()
    checks_at: str | None = absent()
    grade: str = "A"


@dataclass(frozen=True)
class StatusResult(Record):
    """The home's state: ``store`` counts, the ``projections``' checkpoints and lag, the ``daemon``'s
    own state, the further ``sections`` (see :mod:`tapestryd.queries.status`), the raw ``archive``
    and ``sync``.

    ``daemon`` is open-ended: ``{"running": false}``, or the running daemon's snapshot (pid,
    uptime, socket, paused, watched sources, tail and inbox counters, config warnings, last
    errors). ``sections`` holds the sections queries register (``hierarchy``, ``sources`` ...),
    each written as a key of its own between ``daemon`` and ``archive``; ``archive`` and ``sync``
    are their modules' reports (``archive`` and ``sync`` absent from an older daemon's answer).
    """

    store: StoreCounts = field(default_factory=StoreCounts)
    projections: ProjectionState = field(default_factory=ProjectionState)
    daemon: Mapping[str, Any] = field(default_factory=dict)
    sections: Mapping[str, Any] = rest()
    archive: Mapping[str, Any] | None = absent()
    sync: Mapping[str, Any] | None = absent()


@dataclass(frozen=True)
class ReloadResult(Record):
    """The daemon read its config again: ``reloaded``, the ``config_file``, the changed settings kept
    until a restart (``restart_needed``), the file's ``warnings``, the calendar's URL (``web``, None
    when off) and, only when its new address could not be taken, ``web_problem``."""

    reloaded: bool = True
    config_file: str = ""
    restart_needed: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    web: str | None = None
    web_problem: str | None = absent()


@dataclass(frozen=True)
class IngestResult(Record):
    """The import receipt: each file's (see :class:`~tapestryd.operations.result_parts.FileReceipt`),
    the ``totals``, and ``failed`` (true only when nothing could be imported: no message new or
    known, and some error)."""

    files: tuple[FileReceipt, ...] = ()
    totals: IngestTotals = field(default_factory=IngestTotals)
    failed: bool = False


@dataclass(frozen=True)
class IterateResult(Record):
    """One slice of summarizing: ``days_closed`` first, nodes ``summarized`` and ``unchanged``, the
    ``failed`` ones (node key → error), provider ``usage``, nodes ``remaining`` dirty, why it
    ``stopped`` (``""``: done, ``time``, ``budget``, ``errors`` ...) and the ``reason``, its
    ``seconds``, and the failures in a row carried to the next slice (``failed_in_a_row``)."""

    days_closed: int = 0
    summarized: int = 0
    unchanged: int = 0
    failed: Mapping[str, str] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    remaining: int = 0
    stopped: str = ""
    reason: str = ""
    seconds: float = 0.0
    failed_in_a_row: int = 0


@dataclass(frozen=True)
class GenerateResult(Record):
    """The ``nodes`` asked for (keys) and the run's report, as in :class:`IterateResult`."""

    nodes: tuple[str, ...] = ()
    summarized: int = 0
    unchanged: int = 0
    failed: Mapping[str, str] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    remaining: int = 0
    stopped: str = ""
    reason: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class RepairResult(Record):
    """What the repair cascade did, or why it did not run; three outcomes, each with its own keys.

    A report: ``days_closed``, the checks that failed before (``checks_failed_before``), events
    ``replayed_events`` to rebuild a broken tree, the runs over ``dirty``, ``stale`` (context
    changed) and ``outdated`` (older provider or prompt) nodes and the ``cascade`` they caused,
    the ``checks`` after, nodes still ``waiting`` and the ``grade``. An ``error`` (the run
    failed) or ``skipped`` (another summarizer run held the lock) has that one key only.
    """

    days_closed: int | None = absent()
    checks_failed_before: tuple[HierarchyCheck, ...] | None = absent()
    replayed_events: int | None = absent()
    dirty: SummaryRun | None = absent()
    stale: SummaryRun | None = absent()
    outdated: SummaryRun | None = absent()
    cascade: SummaryRun | None = absent()
    checks: tuple[HierarchyCheck, ...] | None = absent()
    waiting: int | None = absent()
    grade: str | None = absent()
    error: str | None = absent()
    skipped: str | None = absent()


@dataclass(frozen=True)
class EvalResult(Record):
    """The memory's quality (docs/EVAL.md), report version ``schema``: the ``agent`` evaluated (None:
    all), the ``levels_evaluated``, the ``method``, the ``facts`` looked for, each level's figures
    (compression, retention, Tapestry Score), ``recall_yield`` (None when not run) and the
    summarizer ``provider`` (None only in a report built without the operation, as the eval bench's)."""

    schema: int = 1
    agent: str | None = None
    levels_evaluated: tuple[int, ...] = ()
    method: EvalMethod = field(default_factory=EvalMethod)
    facts: EvalFacts = field(default_factory=EvalFacts)
    levels: tuple[LevelEval, ...] = ()
    recall_yield: RecallYield | None = None
    provider: ProviderName | None = None


@dataclass(frozen=True)
class DriftResult(Record):
    """Nodes whose successive summaries moved, report version ``schema``: the similarity ``method``,
    the drift ``threshold`` that flags a node, the severity ``labels`` (label → lowest drift), the
    summaries read (``versions``) and nodes compared, how many nodes each severity has
    (``by_severity``), the ``flagged`` nodes, most drifted first, and with ``--all`` every compared
    node (``nodes``; None without it)."""

    schema: int = 1
    method: str = ""
    threshold: float = 0.0
    labels: Mapping[str, float] = field(default_factory=dict)
    versions: int = 0
    nodes_compared: int = 0
    by_severity: Mapping[str, int] = field(default_factory=dict)
    flagged: tuple[DriftedNode, ...] = ()
    nodes: tuple[DriftedNode, ...] | None = None


@dataclass(frozen=True)
class ForgetResult(Record):
    """The ``rule``, whether it was a ``dry_run``, the ``messages`` and ``conversations`` it covers (the
    first ``sample`` of conversation keys), how ``--before`` was read (``before_read``, only for
    it), for a real run the Forgotten event's ``seq`` (None: it was ``already_forgotten``) and that flag, and
    the raw ``archive``'s share (counts: events, dropped, rewritten, lines; would be, in a dry run;
    empty without an archive)."""

    rule: ForgetRuleSpec = field(default_factory=ForgetRuleSpec)
    dry_run: bool = False
    messages: int = 0
    conversations: int = 0
    sample: tuple[str, ...] = ()
    before_read: str | None = absent()
    seq: int | None = absent(along="already_forgotten")
    already_forgotten: bool | None = absent()
    archive: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CompactResult(Record):
    """A compaction's report, or its confirmation's.

    A compaction (or a ``dry_run``): the events ``rewritten`` by type, the ``backup`` of the log
    before it (None: a dry run, or nothing to rewrite) and the log's size before and after
    (bytes). A confirmation: the pre-compact backups ``deleted`` (paths) and the other backups
    ``scrubbed`` (path → events rewritten).
    """

    dry_run: bool | None = absent()
    rewritten: Mapping[str, int] | None = absent()
    backup: str | None = absent(along="dry_run")
    bytes_before: int | None = absent()
    bytes_after: int | None = absent()
    deleted: tuple[str, ...] | None = absent()
    scrubbed: Mapping[str, int] | None = absent()


@dataclass(frozen=True)
class BackupResult(Record):
    """The ``backup`` written, the backups ``pruned`` (paths) and how many rotation backups are ``kept``."""

    backup: BackupFile = field(default_factory=BackupFile)
    pruned: tuple[str, ...] = ()
    kept: int = 0


@dataclass(frozen=True)
class BackupsResult(Listing):
    """The home's backups, oldest first; its JSON is the list of them."""

    backups: tuple[BackupFile, ...] = ()


@dataclass(frozen=True)
class ArchiveListResult(Listing):
    """Every archived file version (tombstones and files of sources that are off left out), by path and
    version; its JSON is the list of them."""

    files: tuple[ArchivedVersion, ...] = ()


@dataclass(frozen=True)
class VerifyResult(Record):
    """The integrity report: the log's path (``events_db``), its ``events`` and ``last_seq``, each
    ``check`` (integrity, seq order, payloads, checkpoints, archive, modes) and ``ok`` (all passed)."""

    events_db: str = ""
    events: int = 0
    last_seq: int = 0
    checks: tuple[Check, ...] = ()
    ok: bool = False


@dataclass(frozen=True)
class RestoreResult(Record):
    """The backup ``restored`` (path), the log's ``last_seq`` after it, where the ``previous`` log was
    kept (None: there was none) and the events ``replayed`` into the projections."""

    restored: str = ""
    last_seq: int = 0
    previous: str | None = None
    replayed: int = 0


@dataclass(frozen=True)
class SyncResult(Record):
    """One sync round of ``machine`` with the ``hub`` (its URL without the password): what it pushed,
    pulled, and the tombstones it pulled (``forgotten``) and sent (``forgotten_pushed``), in ``seconds``."""

    machine: str = ""
    hub: str = ""
    push: Transfer = field(default_factory=Transfer)
    pull: Transfer = field(default_factory=Transfer)
    forgotten_pushed: int = 0
    forgotten: Transfer = field(default_factory=Transfer)
    seconds: float = 0.0


@dataclass(frozen=True)
class SyncInitResult(Record):
    """This machine's sync key: ``created`` (a new one), its ``key_id``, ``path``, the ``machine``, the
    ``hub`` (its URL without the password, ``""`` when none is configured) and, for a new key
    only, its ``passphrase`` (shown once)."""

    created: bool = False
    key_id: str = ""
    path: str = ""
    machine: str = ""
    hub: str = ""
    passphrase: str | None = absent()


@dataclass(frozen=True)
class SyncStatusResult(Record):
    """Sync ``enabled`` or not, the ``machine``, whether its ``key`` is here; once enabled, the ``hub``
    (its URL without the password), the ``last_success`` (ISO UTC, ``""``: never), the
    ``last_error`` (``{"at", "message"}``, empty: none), hub rows ``skipped_total``; with a log,
    events ``to_push`` and hub rows ``to_pull`` (as of the last contact), or the ``error``
    reading the log."""

    enabled: bool = False
    machine: str = ""
    key: bool = False
    hub: str | None = absent()
    last_success: str | None = absent()
    last_error: Mapping[str, str] | None = absent()
    skipped_total: int | None = absent()
    to_push: int | None = absent()
    error: str | None = absent()
    to_pull: int | None = absent()
