"""The request of every operation: one frozen dataclass each, its fields the operation's options.

A field's name is the JSON key of the socket protocol (``{"op": "search", "args": {...}}``)
and the name every front end uses (the CLI, the fast path, the calendar, MCP). Defaults are
those of the CLI. Relative times ("yesterday", "last week") are read from ``now`` (ISO 8601,
for tests and evaluations) when it is given, else from the clock the operation is handed.

The types live in one module per family of operations (``requests_query``, ``requests_control``,
``requests_store``, ``requests_hierarchy``, ``requests_quality``, ``requests_safety``,
``requests_sync``, as the results: :mod:`tapestryd.operations.results`); this module names them
all and imports a family on first use of one of its names (PEP 562), so a command builds the
dataclasses of its own request only. Standard library only: the registry imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tapestryd.operations.families import FamilyModules

if TYPE_CHECKING:
    from tapestryd.operations.requests_query import (ContextRequest, ConversationsRequest, MessagesRequest,
                                                     NodeRequest, PingRequest, RecallRequest, SearchRequest,
                                                     ShowRequest, SimilarRequest, StatsRequest)
    from tapestryd.operations.requests_control import PauseRequest, ReloadRequest, ResumeRequest, StatusRequest
    from tapestryd.operations.requests_store import CatchUpRequest, IngestRequest, RebuildRequest
    from tapestryd.operations.requests_hierarchy import (CloseDaysRequest, GenerateRequest, HierarchyStatusRequest,
                                                         IterateRequest, RepairRequest, TreeRequest)
    from tapestryd.operations.requests_quality import DriftRequest, EvalRequest
    from tapestryd.operations.requests_safety import (ArchiveListRequest, BackupRequest, BackupsRequest,
                                                      CompactRequest, ForgetRequest, RestoreRequest, VerifyRequest)
    from tapestryd.operations.requests_sync import SyncInitRequest, SyncRequest, SyncRoundRequest, SyncStatusRequest

__all__ = ["ArchiveListRequest", "BackupRequest", "BackupsRequest", "CatchUpRequest", "CloseDaysRequest",
    "CompactRequest", "ContextRequest", "ConversationsRequest", "DriftRequest", "EvalRequest", "ForgetRequest",
    "GenerateRequest", "HierarchyStatusRequest", "IngestRequest", "IterateRequest", "MessagesRequest", "NodeRequest",
    "PauseRequest", "PingRequest", "RebuildRequest", "RecallRequest", "ReloadRequest", "RepairRequest",
    "RestoreRequest", "ResumeRequest", "SearchRequest", "ShowRequest", "SimilarRequest", "StatsRequest",
    "StatusRequest", "SyncInitRequest", "SyncRequest", "SyncRoundRequest", "SyncStatusRequest", "TreeRequest",
    "VerifyRequest"]

FAMILIES: dict[str, tuple[str, ...]] = {
    "query": ("ContextRequest", "ConversationsRequest", "MessagesRequest", "NodeRequest", "PingRequest",
        "RecallRequest", "SearchRequest", "ShowRequest", "SimilarRequest", "StatsRequest"),
    "control": ("PauseRequest", "ReloadRequest", "ResumeRequest", "StatusRequest"),
    "store": ("CatchUpRequest", "IngestRequest", "RebuildRequest"),
    "hierarchy": ("CloseDaysRequest", "GenerateRequest", "HierarchyStatusRequest", "IterateRequest", "RepairRequest",
        "TreeRequest"),
    "quality": ("DriftRequest", "EvalRequest"),
    "safety": ("ArchiveListRequest", "BackupRequest", "BackupsRequest", "CompactRequest", "ForgetRequest",
        "RestoreRequest", "VerifyRequest"),
    "sync": ("SyncInitRequest", "SyncRequest", "SyncRoundRequest", "SyncStatusRequest"),
}
"""Family → the request types its module (``requests_<family>``) defines."""

_MODULES = FamilyModules("requests", FAMILIES)
family_module = _MODULES.module
"""The module of one family of :data:`FAMILIES` (``requests_<family>``, imported now); KeyError for another name."""


def __getattr__(name: str) -> Any:
    """A request type from its family's module, imported now; AttributeError for any other name."""
    return _MODULES.attribute(__name__, name)
