"""Run an operation: through the daemon's socket when it listens, else in this process.

:func:`call` is what the front ends use (the CLI, the calendar, MCP): a request in, its typed
result out, whichever process answers. :func:`run_here` runs it in this process: a read op on
a read-only Reader, a write op with the writer lock held through a Runtime for the length of
the call (so the CLI and a daemon never write the same home at once), after which the rest of an
older projections file's upgrade is written too (no daemon is there to write it in the background:
:mod:`tapestryd.projections.backfill`), a local op as is.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from tapestryd.clock import Clock, SystemClock
from tapestryd.config import Settings, SummarizeSettings
from tapestryd.errors import DaemonNotRunning
from tapestryd.operations.base import (
    CONTROL,
    LOCAL,
    READ,
    LocalDeps,
    Progress,
    ReadDeps,
    WriteDeps,
)
from tapestryd.operations.codec import decode, encode
from tapestryd.operations.registry import operation_for
from tapestryd.paths import paths_for

if TYPE_CHECKING:
    from tapestryd.queries.dense import DenseKeeper
    from tapestryd.summarize import Summarizer

__all__ = ["call", "call_json", "call_with", "in_process_summarizer", "run_here"]


def call(settings: Settings, request: Any, *, timeout: float = 30.0, progress: Progress | None = None,
         on_local: Callable[[str], None] | None = None, dense: DenseKeeper | None = None) -> Any:
    """The result of ``request``: from the daemon when it listens, else from :func:`run_here`.

    Only when the op runs here are ``progress`` and ``dense`` (a long-lived caller's dense index:
    the MCP server's, the calendar's) used and ``on_local(op)`` called first; a local op always
    runs here. ``timeout`` (seconds) bounds the socket round trip. Raises
    TapestryError (DaemonError, StoreLockedError, ParseError, ...) with a readable message.
    """
    from tapestryd.wire.client import request as ask

    operation = operation_for(request)
    sock = paths_for(settings).socket
    if operation.kind != LOCAL and sock.exists():
        try:
            return operation.result.from_json(ask(sock, operation.name, encode(request), timeout=timeout))
        except DaemonNotRunning:
            pass
    if on_local is not None:
        on_local(operation.name)
    return run_here(settings, request, progress=progress, dense=dense)


def call_with(settings: Settings, request_type: type[Any], args: Mapping[str, Any], **options: Any) -> Any:
    """:func:`call` with the request read from ``args`` (strictly: a key that is not a field of
    ``request_type`` raises TapestryError), answering the typed result."""
    return call(settings, decode(request_type, args, strict=True), **options)


def call_json(settings: Settings, request_type: type[Any], args: Mapping[str, Any], **options: Any) -> Any:
    """:func:`call_with`, answering the result's JSON."""
    return call_with(settings, request_type, args, **options).to_json()


def run_here(settings: Settings, request: Any, *, clock: Clock | None = None, progress: Progress | None = None,
             dense: DenseKeeper | None = None) -> Any:
    """Run ``request`` in this process (see the module docstring); returns its typed result.

    ``dense`` keeps a search's dense index for the caller's next ones (None: a search that uses
    embeddings loads one for itself)."""
    operation = operation_for(request)
    clock = clock or SystemClock()
    if operation.kind == LOCAL:
        return operation.run(request, LocalDeps(settings, clock))
    if operation.kind in (READ, CONTROL):
        from tapestryd.queries.reader import Reader

        with Reader.open(settings) as reader:
            return operation.run(request, ReadDeps(reader, clock, dense=dense))
    return _write_here(settings, request, clock, progress)


def _write_here(settings: Settings, request: Any, clock: Clock, progress: Progress | None) -> Any:
    from tapestryd.operations.results import RebuildResult
    from tapestryd.operations.runtime import Runtime

    set_aside = _prepare_write(settings, request)
    with Runtime.open(settings, role="cli") as runtime:
        result = operation_for(request).run(request, WriteDeps(runtime, clock, in_process_summarizer,
                                                               progress=progress))
        runtime.projector.upgrade()  # no daemon writes an older file's upgrade in the background: finish it here
    if isinstance(result, RebuildResult) and set_aside:
        return RebuildResult(replayed=result.replayed, last_seq=result.last_seq, set_aside=set_aside)
    return result


@contextmanager
def in_process_summarizer(conf: SummarizeSettings) -> Iterator[Summarizer]:
    """The configured provider in this process, closed after the run."""
    from tapestryd.summarize import make_summarizer

    summarizer = make_summarizer(conf)
    try:
        yield summarizer
    finally:
        summarizer.close()


def _prepare_write(settings: Settings, request: Any) -> str:
    """Check the home before a write op; returns where an unreadable ``projections.db`` was moved ('' if not).

    Raises StoreError when the home has no log yet (unless the request is an ingest, which may
    start a new home), and, except for a rebuild, when ``projections.db`` is unreadable. A
    rebuild moves an unreadable ``projections.db`` aside as ``projections.db.corrupt-<UTC
    time>`` first, so the projections are recreated from the log.
    """
    from tapestryd.queries.reader import (
        damaged,
        log_has_events,
        nothing_stored,
        unreadable,
        unreadable_error,
    )

    paths = paths_for(settings)
    from tapestryd.operations.requests import IngestRequest, RebuildRequest

    rebuild = isinstance(request, RebuildRequest)
    if not isinstance(request, IngestRequest) and not log_has_events(paths.events_db):
        raise nothing_stored(paths)
    # a missing file is recreated by the Runtime; rebuild also looks for damaged pages
    problem = damaged(paths.projections_db) if rebuild else unreadable(paths.projections_db)
    if not problem:
        return ""
    if not rebuild:
        raise unreadable_error(paths, problem)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    aside = paths.projections_db.with_name(f"{paths.projections_db.name}.corrupt-{stamp}")
    paths.projections_db.rename(aside)
    for suffix in ("-wal", "-shm"):
        Path(f"{paths.projections_db}{suffix}").unlink(missing_ok=True)
    return str(aside)
