"""Operations on the log and the projections: ingest, rebuild, catch_up."""

from __future__ import annotations

from pathlib import Path

from tapestryd.operations.base import WriteDeps
from tapestryd.operations.checks import check_agent
from tapestryd.operations.readable import check_readable
from tapestryd.operations.requests import CatchUpRequest, IngestRequest, RebuildRequest
from tapestryd.operations.results import CatchUpResult, IngestResult, RebuildResult

__all__ = ["catch_up", "ingest", "rebuild"]


def ingest(request: IngestRequest, deps: WriteDeps) -> IngestResult:
    """Import files, folders or ZIPs; the result is the receipt.

    Over the socket only what the peer's uid may read is imported (TapestryError otherwise).
    The projections are caught up before it returns; an import that runs longer than
    :data:`~tapestryd.projections.runner.FOLLOW_AFTER` seconds has them applied alongside by
    a child process (:meth:`~tapestryd.projections.runner.Projector.alongside`).
    """
    from tapestryd.sources.ingest import ingest_paths

    runtime = deps.runtime
    agent = check_agent(runtime.settings, runtime.projector.conn, request.agent, new_label=True)
    paths = [Path(p) for p in request.paths]
    check_readable(paths, deps.peer_uid)
    receipt = runtime.projector.alongside(lambda: ingest_paths(
        runtime.store, paths, settings=runtime.settings, agent=agent or None,
        parser=request.parser or "auto", progress=deps.progress))
    return IngestResult.from_json(receipt.to_dict())


def rebuild(request: RebuildRequest, deps: WriteDeps) -> RebuildResult:
    """Drop every projection and replay the log."""
    replayed = deps.runtime.projector.rebuild()
    return RebuildResult(replayed=replayed, last_seq=deps.runtime.store.last_seq())


def catch_up(request: CatchUpRequest, deps: WriteDeps) -> CatchUpResult:
    """Apply events the projections have not seen yet."""
    return CatchUpResult(applied=deps.runtime.projector.catch_up(), lag=deps.runtime.projector.lag())
