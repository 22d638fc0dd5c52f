"""The table of operations: every front end (socket, CLI, fast path, calendar, MCP) reads it.

:data:`OPERATIONS` maps an operation's name (the socket's ``op``) to its
:class:`~tapestryd.operations.base.Operation`: kind, request and result types, and a loader that
imports the function's module on first use (so ``tapestryctl search`` without a daemon never
imports the summarizers or numpy). :func:`operation_for` finds the entry of a request instance.

Importing this module imports only the request and result types (standard library).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

from tapestryd.operations import requests as rq
from tapestryd.operations import results as rs
from tapestryd.operations.base import CONTROL, LOCAL, READ, WRITE, Kind, Operation

__all__ = ["OPERATIONS", "operation_for"]


def _query() -> ModuleType:
    from tapestryd.operations import query

    return query


def _control() -> ModuleType:
    from tapestryd.operations import control

    return control


def _store() -> ModuleType:
    from tapestryd.operations import store

    return store


def _hierarchy() -> ModuleType:
    from tapestryd.operations import hierarchy

    return hierarchy


def _quality() -> ModuleType:
    from tapestryd.operations import quality

    return quality


def _archive() -> ModuleType:
    from tapestryd.operations import archive

    return archive


def _safety() -> ModuleType:
    from tapestryd.operations import safety

    return safety


def _syncing() -> ModuleType:
    from tapestryd.operations import syncing

    return syncing


def _op(name: str, kind: Kind, request: type[Any], result: type[Any],
        load: Callable[[], Callable[[Any, Any], Any]]) -> Operation[Any, Any]:
    return Operation(name, kind, request, result, load)


OPERATIONS: dict[str, Operation[Any, Any]] = {op.name: op for op in (
    _op("ping", READ, rq.PingRequest, rs.PingResult, lambda: _query().ping),
    _op("search", READ, rq.SearchRequest, rs.SearchResult, lambda: _query().search),
    _op("similar", READ, rq.SimilarRequest, rs.SimilarResult, lambda: _query().similar),
    _op("context", READ, rq.ContextRequest, rs.ContextResult, lambda: _query().context),
    _op("recall", READ, rq.RecallRequest, rs.RecallResult, lambda: _query().recall),
    _op("show", READ, rq.ShowRequest, rs.ShowResult, lambda: _query().show),
    _op("node", READ, rq.NodeRequest, rs.NodeResult, lambda: _query().node),
    _op("messages", READ, rq.MessagesRequest, rs.MessagesResult, lambda: _query().messages),
    _op("conversations", READ, rq.ConversationsRequest, rs.ConversationsResult, lambda: _query().conversations),
    _op("stats", READ, rq.StatsRequest, rs.StatsResult, lambda: _query().stats),
    _op("status", READ, rq.StatusRequest, rs.StatusResult, lambda: _control().status),
    _op("pause", CONTROL, rq.PauseRequest, rs.PauseResult, lambda: _control().pause),
    _op("resume", CONTROL, rq.ResumeRequest, rs.ResumeResult, lambda: _control().resume),
    _op("reload", CONTROL, rq.ReloadRequest, rs.ReloadResult, lambda: _control().reload),
    _op("tree", READ, rq.TreeRequest, rs.TreeResult, lambda: _hierarchy().tree),
    _op("hierarchy_status", READ, rq.HierarchyStatusRequest, rs.HierarchyStatusResult,
        lambda: _hierarchy().hierarchy_status),
    _op("eval", READ, rq.EvalRequest, rs.EvalResult, lambda: _quality().evaluate),
    _op("drift", READ, rq.DriftRequest, rs.DriftResult, lambda: _quality().drift),
    _op("ingest", WRITE, rq.IngestRequest, rs.IngestResult, lambda: _store().ingest),
    _op("rebuild", WRITE, rq.RebuildRequest, rs.RebuildResult, lambda: _store().rebuild),
    _op("catch_up", WRITE, rq.CatchUpRequest, rs.CatchUpResult, lambda: _store().catch_up),
    _op("iterate", WRITE, rq.IterateRequest, rs.IterateResult, lambda: _hierarchy().iterate),
    _op("generate", WRITE, rq.GenerateRequest, rs.GenerateResult, lambda: _hierarchy().generate),
    _op("close_days", WRITE, rq.CloseDaysRequest, rs.CloseDaysResult, lambda: _hierarchy().close_days),
    _op("repair", WRITE, rq.RepairRequest, rs.RepairResult, lambda: _hierarchy().repair),
    _op("forget", WRITE, rq.ForgetRequest, rs.ForgetResult, lambda: _safety().forget),
    _op("compact", WRITE, rq.CompactRequest, rs.CompactResult, lambda: _safety().compact),
    _op("backup", WRITE, rq.BackupRequest, rs.BackupResult, lambda: _safety().backup),
    _op("backups", LOCAL, rq.BackupsRequest, rs.BackupsResult, lambda: _safety().list_backups),
    _op("archive_list", LOCAL, rq.ArchiveListRequest, rs.ArchiveListResult, lambda: _archive().list_archive),
    _op("verify", LOCAL, rq.VerifyRequest, rs.VerifyResult, lambda: _safety().verify),
    _op("restore", LOCAL, rq.RestoreRequest, rs.RestoreResult, lambda: _safety().restore),
    _op("sync", LOCAL, rq.SyncRequest, rs.SyncResult, lambda: _syncing().sync),
    _op("sync_round", CONTROL, rq.SyncRoundRequest, rs.SyncResult, lambda: _syncing().sync_round),
    _op("sync_status", LOCAL, rq.SyncStatusRequest, rs.SyncStatusResult, lambda: _syncing().sync_status_op),
    _op("sync_init", LOCAL, rq.SyncInitRequest, rs.SyncInitResult, lambda: _syncing().sync_init),
)}
"""Operation name → its entry."""

_BY_REQUEST = {op.request: op for op in OPERATIONS.values()}


def operation_for(request: object) -> Operation[Any, Any]:
    """The entry whose request type ``request`` is; raises KeyError for any other object."""
    return _BY_REQUEST[type(request)]
