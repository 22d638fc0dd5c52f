"""The results of iterate, generate, close_days, repair, tree, hierarchy_status, and the parts they are made of.

One module of the result types (see :mod:`tapestryd.operations.results`), imported on first use
of one of its names, so a command builds only the dataclasses its own answer needs. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from tapestryd.operations.shape import Listing, Record, absent

__all__ = ["CloseDaysResult", "GenerateResult", "HierarchyCheck", "HierarchyStatusResult", "IterateResult",
    "ProviderUsage", "RepairResult", "SummaryRun", "TreeNode", "TreeResult", "Usage"]


@dataclass(frozen=True)
class Usage(Record):
    """What a summarizer run asked of its provider: ``calls`` and tokens in and out."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0


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
class CloseDaysResult(Record):
    """DayClosed events appended."""

    days_closed: int = 0


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
