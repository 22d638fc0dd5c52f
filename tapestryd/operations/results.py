"""The result of every operation: one frozen dataclass each, turned to and from JSON.

Two shapes:

* a **record** (:class:`~tapestryd.operations.shape.Record`, or a
  :class:`~tapestryd.operations.shape.Listing` for a list answer): typed fields, nested records
  for hits, messages, conversations and context items; its JSON is the answer's object (or
  list) with the same keys in the same order as the query layer writes them, so every JSON
  field a script reads today stays (``SearchResult``, ``ContextResult``, ``PingResult`` …);
* a **document** (:class:`Document`): the JSON answer of an operation kept whole (``data``),
  for the operations not typed yet; the class says which operation answered.

Every result has ``to_json()`` (what the socket sends, what ``-f json`` prints) and
``from_json(value)`` (what a client rebuilds from the socket's answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Self

from tapestryd.operations.result_parts import (AgentCounts, ArchivedVersion, BackupFile, Check, ContextItem,
                                               ContextTokens, Conversation, ConversationMessage, ConversationRank,
                                               FileReceipt, Hit, IngestTotals, Message, ProjectionState,
                                               RangeConversation, StoreCounts, SummaryNode, TimeRange, TreeNode, Usage)
from tapestryd.operations.shape import Listing, Record, absent, rest

__all__ = [
    "ArchiveListResult", "BackupResult", "BackupsResult", "CatchUpResult", "CloseDaysResult", "CompactResult",
    "ContextResult",
    "ConversationsResult", "Document", "DriftResult", "EvalResult", "ForgetResult", "GenerateResult",
    "HierarchyStatusResult", "IngestResult", "IterateResult", "Listing", "MessagesResult", "NodeResult",
    "PauseResult", "PingResult", "RebuildResult", "RecallResult", "Record", "ReloadResult", "RepairResult",
    "RestoreResult", "ResumeResult", "SearchResult", "ShowResult", "SimilarResult", "StatsResult", "StatusResult",
    "SyncInitResult", "SyncResult", "SyncStatusResult", "TreeResult", "VerifyResult"
]


@dataclass(frozen=True)
class Document:
    """A result whose JSON is the operation's answer, kept whole (``data``)."""

    data: Any

    def to_json(self) -> Any:
        """The answer as JSON-ready values."""
        return self.data

    @classmethod
    def from_json(cls, value: Any) -> Self:
        """The document of a JSON answer."""
        return cls(value)

    def __getitem__(self, key: str) -> Any:
        """``result["hits"]``: a key of an object answer."""
        return self.data[key]


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


class HierarchyStatusResult(Document):
    """Counts per level and state, usage, last runs and errors, checks and the grade.

    A Document still: no front end reads it (``status`` shows the hierarchy's own section), and
    its runs and errors are read back from the summarizer's record file, whatever it wrote.
    """


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


class ReloadResult(Document):
    """``reloaded``, ``config_file``, ``restart_needed``, ``warnings``, ``web`` (and ``web_problem``).

    A Document still: the daemon's own report (:meth:`DaemonControl.reload`), read only as the
    socket's JSON by the fast path and ``tapestryctl reload`` (:func:`tapestryd.cli.fast.render_control`).
    """


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


class RepairResult(Document):
    """What the repair cascade refreshed (``grade``, ``dirty``, ``stale``, ``waiting``), or ``error`` / ``skipped``.

    A Document still: its shape differs by outcome (a report, an error, a skip) and is the repair
    job's own; the CLI prints it as JSON or one line.
    """


class EvalResult(Document):
    """Compression, retention, Tapestry Score and Recall Yield per level (see docs/EVAL.md).

    A Document still: a versioned report (``schema``) of the quality modules, which
    ``tapestryctl eval`` renders from its JSON.
    """


class DriftResult(Document):
    """Nodes whose successive summaries moved, by severity.

    A Document still: a versioned report (``schema``) like :class:`EvalResult`.
    """


class ForgetResult(Document):
    """The ``rule``, what it matches, and (unless ``dry_run``) the ``seq`` of the Forgotten event.

    A Document still: not typed yet: a dry run and a real one answer different keys (the archive preview, or the
    event's ``seq``).
    """


class CompactResult(Document):
    """What compaction rewrote (or would), and the backup it kept.

    A Document still: not typed yet: a dry run, a compaction and its confirmation answer different reports.
    """


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


class SyncResult(Document):
    """One sync round: ``push``, ``pull``, ``forgotten`` (each ``seen``, ``new``, ``skipped``,
    ``skipped_rows``), ``forgotten_pushed``, ``hub`` (its safe URL), ``machine``, ``seconds``.

    A Document still: not typed yet (built by :mod:`tapestryd.sync`, read only by ``tapestryctl sync``'s renderers).
    """


class SyncInitResult(Document):
    """``created`` (a new key), ``passphrase`` (shown once, only for a new key), ``key_id``, ``path``,
    ``machine``, ``hub`` (its safe URL, ``""`` when none is configured).

    A Document still: not typed yet (built by :mod:`tapestryd.sync`, read only by ``tapestryctl sync``'s renderers).
    """


class SyncStatusResult(Document):
    """``enabled``, ``machine``, ``key`` (present), ``hub``, ``to_push``, ``to_pull``, ``last_success``,
    ``last_error`` (``{"at", "message"}``), ``skipped_total``.

    A Document still: not typed yet (built by :mod:`tapestryd.sync`, read only by ``tapestryctl sync``'s renderers).
    """
