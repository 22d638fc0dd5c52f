"""The table of operations: every front end (socket, CLI, fast path, calendar, MCP) reads it.

:data:`OPERATIONS` maps an operation's name (the socket's ``op``) to its
:class:`~tapestryd.operations.base.Operation`: kind, request and result types, and a loader that
imports the function's module on first use (so ``tapestryctl search`` without a daemon never
imports the summarizers or numpy). :func:`operation_for` finds the entry of a request instance.

Importing this module builds no request or result type: an entry's types, with their family,
are built when first asked for.
"""

from __future__ import annotations

import re
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


def _op(name: str, kind: Kind, request: Callable[[], type[Any]], result: Callable[[], type[Any]],
        load: Callable[[], Callable[[Any, Any], Any]]) -> Operation[Any, Any]:
    return Operation(name, kind, request, result, load)


OPERATIONS: dict[str, Operation[Any, Any]] = {op.name: op for op in (
    _op("ping", READ, lambda: rq.PingRequest, lambda: rs.PingResult, lambda: _query().ping),
    _op("search", READ, lambda: rq.SearchRequest, lambda: rs.SearchResult, lambda: _query().search),
    _op("similar", READ, lambda: rq.SimilarRequest, lambda: rs.SimilarResult, lambda: _query().similar),
    _op("context", READ, lambda: rq.ContextRequest, lambda: rs.ContextResult, lambda: _query().context),
    _op("recall", READ, lambda: rq.RecallRequest, lambda: rs.RecallResult, lambda: _query().recall),
    _op("show", READ, lambda: rq.ShowRequest, lambda: rs.ShowResult, lambda: _query().show),
    _op("node", READ, lambda: rq.NodeRequest, lambda: rs.NodeResult, lambda: _query().node),
    _op("messages", READ, lambda: rq.MessagesRequest, lambda: rs.MessagesResult, lambda: _query().messages),
    _op("conversations", READ, lambda: rq.ConversationsRequest, lambda: rs.ConversationsResult,
        lambda: _query().conversations),
    _op("stats", READ, lambda: rq.StatsRequest, lambda: rs.StatsResult, lambda: _query().stats),
    _op("status", READ, lambda: rq.StatusRequest, lambda: rs.StatusResult, lambda: _control().status),
    _op("pause", CONTROL, lambda: rq.PauseRequest, lambda: rs.PauseResult, lambda: _control().pause),
    _op("resume", CONTROL, lambda: rq.ResumeRequest, lambda: rs.ResumeResult, lambda: _control().resume),
    _op("reload", CONTROL, lambda: rq.ReloadRequest, lambda: rs.ReloadResult, lambda: _control().reload),
    _op("tree", READ, lambda: rq.TreeRequest, lambda: rs.TreeResult, lambda: _hierarchy().tree),
    _op("hierarchy_status", READ, lambda: rq.HierarchyStatusRequest, lambda: rs.HierarchyStatusResult,
        lambda: _hierarchy().hierarchy_status),
    _op("eval", READ, lambda: rq.EvalRequest, lambda: rs.EvalResult, lambda: _quality().evaluate),
    _op("drift", READ, lambda: rq.DriftRequest, lambda: rs.DriftResult, lambda: _quality().drift),
    _op("ingest", WRITE, lambda: rq.IngestRequest, lambda: rs.IngestResult, lambda: _store().ingest),
    _op("rebuild", WRITE, lambda: rq.RebuildRequest, lambda: rs.RebuildResult, lambda: _store().rebuild),
    _op("catch_up", WRITE, lambda: rq.CatchUpRequest, lambda: rs.CatchUpResult, lambda: _store().catch_up),
    _op("iterate", WRITE, lambda: rq.IterateRequest, lambda: rs.IterateResult, lambda: _hierarchy().iterate),
    _op("generate", WRITE, lambda: rq.GenerateRequest, lambda: rs.GenerateResult, lambda: _hierarchy().generate),
    _op("close_days", WRITE, lambda: rq.CloseDaysRequest, lambda: rs.CloseDaysResult, lambda: _hierarchy().close_days),
    _op("repair", WRITE, lambda: rq.RepairRequest, lambda: rs.RepairResult, lambda: _hierarchy().repair),
    _op("forget", WRITE, lambda: rq.ForgetRequest, lambda: rs.ForgetResult, lambda: _safety().forget),
    _op("compact", WRITE, lambda: rq.CompactRequest, lambda: rs.CompactResult, lambda: _safety().compact),
    _op("backup", WRITE, lambda: rq.BackupRequest, lambda: rs.BackupResult, lambda: _safety().backup),
    _op("backups", LOCAL, lambda: rq.BackupsRequest, lambda: rs.BackupsResult, lambda: _safety().list_backups),
    _op("archive_list", LOCAL, lambda: rq.ArchiveListRequest, lambda: rs.ArchiveListResult,
        lambda: _archive().list_archive),
    _op("verify", LOCAL, lambda: rq.VerifyRequest, lambda: rs.VerifyResult, lambda: _safety().verify),
    _op("restore", LOCAL, lambda: rq.RestoreRequest, lambda: rs.RestoreResult, lambda: _safety().restore),
    _op("sync", LOCAL, lambda: rq.SyncRequest, lambda: rs.SyncResult, lambda: _syncing().sync),
    _op("sync_round", CONTROL, lambda: rq.SyncRoundRequest, lambda: rs.SyncResult, lambda: _syncing().sync_round),
    _op("sync_status", LOCAL, lambda: rq.SyncStatusRequest, lambda: rs.SyncStatusResult,
        lambda: _syncing().sync_status_op),
    _op("sync_init", LOCAL, lambda: rq.SyncInitRequest, lambda: rs.SyncInitResult, lambda: _syncing().sync_init),
)}
"""Operation name → its entry."""



def operation_for(request: object) -> Operation[Any, Any]:
    """The entry whose request type ``request`` is; raises KeyError for any other object.

    A request type is named for its operation (``SyncRoundRequest``: ``sync_round``; a test holds
    every entry to it), so finding the entry builds no other family of request types.
    """
    kind = type(request)
    operation = OPERATIONS.get(re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__.removesuffix("Request")).lower())
    if operation is None or operation.request is not kind:
        raise KeyError(kind)
    return operation
