"""The parts results are made of: search hits, conversations, messages, counts, context items, nodes,
import receipts, summarizer runs and checks, evaluation and drift figures, sync transfers.

Each is a frozen :class:`~tapestryd.operations.shape.Record` whose fields are the JSON keys
of that part, in the order the query layer writes them (the socket's and ``-f json``'s
contract); each lives in the module of the family of results it is part of, imported on first
use (see :mod:`tapestryd.operations.results`). Timestamps are ISO 8601 strings as stored (UTC,
``...Z``) or local with an offset (``local_time``); counts are whole numbers. Standard library only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tapestryd.operations.results_query import (AgentCounts, ContextCut, ContextItem, ContextTokens, Conversation,
                                                    ConversationDay, ConversationMessage, ConversationRank, Hit,
                                                    Message, NodeSource, RangeConversation, SummaryNode, TimeRange)
    from tapestryd.operations.results_control import ProjectionState, StoreCounts
    from tapestryd.operations.results_store import ConversationCounts, FileReceipt, IngestTotals, MessageCounts
    from tapestryd.operations.results_hierarchy import HierarchyCheck, ProviderUsage, SummaryRun, TreeNode, Usage
    from tapestryd.operations.results_quality import (DriftStep, DriftedNode, EvalFacts, EvalMethod, LevelEval,
                                                      LevelYield, ProviderName, RecallYield)
    from tapestryd.operations.results_safety import ArchivedVersion, BackupFile, Check, ForgetRuleSpec
    from tapestryd.operations.results_sync import SkippedRow, Transfer

__all__ = ["AgentCounts", "ArchivedVersion", "BackupFile", "Check", "ContextCut", "ContextItem", "ContextTokens",
    "Conversation", "ConversationCounts", "ConversationDay", "ConversationMessage", "ConversationRank", "DriftStep",
    "DriftedNode", "EvalFacts", "EvalMethod", "FileReceipt", "ForgetRuleSpec", "HierarchyCheck", "Hit",
    "IngestTotals", "LevelEval", "LevelYield", "Message", "MessageCounts", "NodeSource", "ProjectionState",
    "ProviderName", "ProviderUsage", "RangeConversation", "RecallYield", "SkippedRow", "StoreCounts", "SummaryNode",
    "SummaryRun", "TimeRange", "Transfer", "TreeNode", "Usage"]


def __getattr__(name: str) -> Any:
    """A part, from its family's module (imported now); AttributeError for any other name."""
    from tapestryd.operations import results

    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(results, name)
