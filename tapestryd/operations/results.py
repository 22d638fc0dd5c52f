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

The types live in one module per family of operations (``results_query``, ``results_control``,
``results_store``, ``results_hierarchy``, ``results_quality``, ``results_safety``,
``results_sync``), each with the parts its results are made of; this module (and
:mod:`~tapestryd.operations.result_parts` for the parts) names them all and imports a family
on first use of one of its names (PEP 562): a frozen dataclass costs about half a millisecond
to build, so ``tapestryctl status`` builds the 6 its answer needs, not all 74.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tapestryd.operations.families import FamilyModules

from tapestryd.operations.shape import Listing, Record

if TYPE_CHECKING:
    from tapestryd.operations.results_query import (ContextResult, ConversationsResult, MessagesResult, NodeResult,
                                                    PingResult, RecallResult, SearchResult, ShowResult, SimilarResult,
                                                    StatsResult)
    from tapestryd.operations.results_control import PauseResult, ReloadResult, ResumeResult, StatusResult
    from tapestryd.operations.results_store import CatchUpResult, IngestResult, RebuildResult
    from tapestryd.operations.results_hierarchy import (CloseDaysResult, GenerateResult, HierarchyStatusResult,
                                                        IterateResult, RepairResult, TreeResult)
    from tapestryd.operations.results_quality import DriftResult, EvalResult
    from tapestryd.operations.results_safety import (ArchiveListResult, BackupResult, BackupsResult, CompactResult,
                                                     ForgetResult, RestoreResult, VerifyResult)
    from tapestryd.operations.results_sync import SyncInitResult, SyncResult, SyncStatusResult

__all__ = ["ArchiveListResult", "BackupResult", "BackupsResult", "CatchUpResult", "CloseDaysResult", "CompactResult",
    "ContextResult", "ConversationsResult", "DriftResult", "EvalResult", "ForgetResult", "GenerateResult",
    "HierarchyStatusResult", "IngestResult", "IterateResult", "MessagesResult", "NodeResult", "PauseResult",
    "PingResult", "RebuildResult", "RecallResult", "ReloadResult", "RepairResult", "RestoreResult", "ResumeResult",
    "SearchResult", "ShowResult", "SimilarResult", "StatsResult", "StatusResult", "SyncInitResult", "SyncResult",
    "SyncStatusResult", "TreeResult", "VerifyResult", "Listing", "Record"]

FAMILIES: dict[str, tuple[str, ...]] = {
    "query": ("AgentCounts", "ContextCut", "ContextItem", "ContextResult", "ContextTokens", "Conversation",
        "ConversationDay", "ConversationMessage", "ConversationRank", "ConversationsResult", "Hit", "Message",
        "MessagesResult", "NodeResult", "NodeSource", "PingResult", "RangeConversation", "RecallResult",
        "SearchResult", "ShowResult", "SimilarResult", "StatsResult", "SummaryNode", "TimeRange"),
    "control": ("PauseResult", "ProjectionState", "ReloadResult", "ResumeResult", "StatusResult", "StoreCounts"),
    "store": ("CatchUpResult", "ConversationCounts", "FileReceipt", "IngestResult", "IngestTotals", "MessageCounts",
        "RebuildResult"),
    "hierarchy": ("CloseDaysResult", "GenerateResult", "HierarchyCheck", "HierarchyStatusResult", "IterateResult",
        "ProviderUsage", "RepairResult", "SummaryRun", "TreeNode", "TreeResult", "Usage"),
    "quality": ("DriftResult", "DriftStep", "DriftedNode", "EvalFacts", "EvalMethod", "EvalResult", "LevelEval",
        "LevelYield", "ProviderName", "RecallYield"),
    "safety": ("ArchiveListResult", "ArchivedVersion", "BackupFile", "BackupResult", "BackupsResult", "Check",
        "CompactResult", "ForgetResult", "ForgetRuleSpec", "RestoreResult", "VerifyResult"),
    "sync": ("SkippedRow", "SyncInitResult", "SyncResult", "SyncStatusResult", "Transfer"),
}
"""Family → the names its module (``results_<family>``) defines: its results and their parts."""

_MODULES = FamilyModules("results", FAMILIES)
family_module = _MODULES.module
"""The module of one family of :data:`FAMILIES` (``results_<family>``, imported now); KeyError for another name."""


def __getattr__(name: str) -> Any:
    """A result type (or a part: :mod:`~tapestryd.operations.result_parts`) from its family's module,
    imported now; AttributeError for any other name."""
    return _MODULES.attribute(__name__, name)
