"""The request of every operation: one frozen dataclass each, its fields the operation's options.

A field's name is the JSON key of the socket protocol (``{"op": "search", "args": {...}}``)
and the name every front end uses (the CLI, the fast path, the calendar, MCP). Defaults are
those of the CLI. Relative times ("yesterday", "last week") are read from ``now`` (ISO 8601,
for tests and evaluations) when it is given, else from the clock the operation is handed.

Standard library only: the fast path of ``tapestryctl`` and the registry import it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ArchiveListRequest", "BackupRequest", "BackupsRequest", "CatchUpRequest", "CloseDaysRequest", "CompactRequest",
    "ContextRequest",
    "ConversationsRequest", "DriftRequest", "EvalRequest", "ForgetRequest", "GenerateRequest",
    "HierarchyStatusRequest", "IngestRequest", "IterateRequest", "MessagesRequest", "NodeRequest", "PauseRequest",
    "PingRequest", "RebuildRequest", "RecallRequest", "ReloadRequest", "RepairRequest", "RestoreRequest",
    "ResumeRequest", "SearchRequest", "ShowRequest", "SimilarRequest", "StatsRequest", "StatusRequest",
    "SyncInitRequest", "SyncRequest", "SyncRoundRequest", "SyncStatusRequest", "TreeRequest", "VerifyRequest"
]


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


@dataclass(frozen=True)
class TreeRequest:
    """The summary tree between two local ISO dates, from ``min_level`` (0 to 4) up."""

    agent: str = ""
    start: str = ""
    end: str = ""
    min_level: int = 1


@dataclass(frozen=True)
class HierarchyStatusRequest:
    """Counts per level, usage, last runs and errors, and (``checks``) the structural checks."""

    checks: bool = True


@dataclass(frozen=True)
class StatusRequest:
    """Counts, projection lag and, through the daemon, the daemon's own state."""


@dataclass(frozen=True)
class PauseRequest:
    """Stop tailing, inbox imports, scheduled jobs and summarizing in the running daemon."""


@dataclass(frozen=True)
class ResumeRequest:
    """Undo a pause and catch up with what changed meanwhile."""


@dataclass(frozen=True)
class ReloadRequest:
    """Read tapestry.toml again in the running daemon (as SIGHUP does)."""


@dataclass(frozen=True)
class IngestRequest:
    """Import files, folders or ZIPs (absolute paths); ``parser``: auto or a parser's name."""

    paths: tuple[str, ...] = ()
    agent: str = ""
    parser: str = "auto"


@dataclass(frozen=True)
class RebuildRequest:
    """Drop every projection and replay the log (no provider calls)."""


@dataclass(frozen=True)
class CatchUpRequest:
    """Apply the events the projections have not seen yet."""


@dataclass(frozen=True)
class IterateRequest:
    """Summarize dirty closed nodes up to ``until`` (ISO date; "" for everything closed).

    ``mode``: context (telescoping) or catchup (bulk, without context); ``max_seconds``:
    stop after about this long (a slice; None: no limit); ``failed_in_a_row``: failures in a
    row in the earlier slices of the same command.
    """

    until: str = ""
    agent: str = ""
    mode: str = "context"
    max_seconds: float | None = None
    failed_in_a_row: int = 0


@dataclass(frozen=True)
class GenerateRequest:
    """Summarize one period's node(s) now, dirty descendants first (``level`` 0 to 4)."""

    level: int | None = None
    when: str = ""
    agent: str = ""
    conversation: str = ""


@dataclass(frozen=True)
class CloseDaysRequest:
    """Append the DayClosed events that are due now."""


@dataclass(frozen=True)
class RepairRequest:
    """Run the nightly repair cascade now."""


@dataclass(frozen=True)
class EvalRequest:
    """Evaluate memory quality.

    ``levels``: 0-4 or L0-L4 (empty: every level); ``facts``: a facts file; ``method``:
    tfidf or another similarity; ``threshold``: a cosine in (0, 1] (None: the method's);
    ``sample``: nodes per level for Recall Yield (None: 3 with a local provider, 0 with a
    remote one).
    """

    agent: str = ""
    levels: tuple[str, ...] = ()
    facts: str = ""
    method: str = "tfidf"
    threshold: float | None = None
    sample: int | None = None


@dataclass(frozen=True)
class DriftRequest:
    """Nodes whose successive summaries moved (``all``: list every node compared)."""

    agent: str = ""
    level: str = ""
    threshold: float | None = None
    method: str = "tfidf"
    all: bool = False


@dataclass(frozen=True)
class ForgetRequest:
    """Forget by exactly one rule: a ``conversation``, everything ``before`` a time, or a ``match`` regex."""

    conversation: str = ""
    before: str = ""
    match: str = ""
    dry_run: bool = False
    reason: str = ""
    now: str = ""


@dataclass(frozen=True)
class CompactRequest:
    """Rewrite forgotten payloads as tombstones (``dry_run``: only count), or ``confirm`` one."""

    dry_run: bool = False
    confirm: bool = False


@dataclass(frozen=True)
class BackupRequest:
    """Back up the event log now and prune old backups."""


@dataclass(frozen=True)
class BackupsRequest:
    """Every backup of the home, oldest first (read in the caller's process)."""


@dataclass(frozen=True)
class ArchiveListRequest:
    """Every version of every file in the raw archive, by path and version (read in the caller's process)."""


@dataclass(frozen=True)
class VerifyRequest:
    """The integrity report of the log, projections and file modes (read in the caller's process);
    ``fix`` makes data, backup and cache folders 0700 and databases, backups and .env 0600."""

    fix: bool = False


@dataclass(frozen=True)
class RestoreRequest:
    """Replace the log by the backup ``file`` and rebuild the projections (no daemon may run)."""

    file: str = ""


@dataclass(frozen=True)
class SyncRequest:
    """One sync round with the hub now: push this machine's events, pull the others' (run in the
    caller's process; through the running daemon when there is one). ``from_start`` pulls the
    whole hub again (after a key was fixed or tapestryd upgraded: what was skipped comes in).
    ``batch``: events per hub transaction and per local append (1 to 50,000)."""

    from_start: bool = False
    batch: int = 2000


@dataclass(frozen=True)
class SyncRoundRequest:
    """The running daemon's half of ``sync``: the round on its own sync thread, local writes on the writer."""

    from_start: bool = False
    batch: int = 2000


@dataclass(frozen=True)
class SyncInitRequest:
    """Set up this machine's sync key: a new one (shown once as a passphrase), or ``key``, the
    passphrase another machine showed. ``force`` replaces a different key already here."""

    key: str = ""
    force: bool = False


@dataclass(frozen=True)
class SyncStatusRequest:
    """The sync lag (events to push, to pull), last success and last error (read in the caller's process)."""
