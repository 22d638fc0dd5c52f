"""Run an operation in this process, as the CLI does when no daemon runs.

Read ops get a read-only Reader; write ops take the writer lock through a Runtime for the
length of the call, so the CLI and a daemon never write the same home at once.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from tapestryd.config import Settings
from tapestryd.daemon.ops import find_op
from tapestryd.daemon.runtime import Runtime
from tapestryd.daemon.client import request
from tapestryd.errors import DaemonNotRunning, TapestryError
from tapestryd.paths import paths_for
from tapestryd.queries.reader import Reader, damaged, log_has_events, nothing_stored, unreadable, unreadable_error

__all__ = ["CREATES_STORE", "call", "call_local"]

CREATES_STORE = frozenset({"ingest"})
"""Write ops that may start a new home; any other refuses a home with no log (a mistyped ``--home``)."""


def call(settings: Settings, op: str, args: dict[str, Any], *, timeout: float = 30.0,
         local_args: dict[str, Any] | None = None, on_local: Callable[[str], None] | None = None) -> Any:
    """Run ``op`` through the daemon's socket when it listens, else here (:func:`call_local`).

    Only when the op runs here are ``local_args`` added (a progress callback, for instance)
    and ``on_local(op)`` called first. ``timeout`` (seconds) bounds the socket round trip.
    Raises TapestryError (DaemonError, StoreLockedError, ParseError, ...) with a readable message.
    """
    sock = paths_for(settings).socket
    if sock.exists():
        try:
            return request(sock, op, args, timeout=timeout)
        except DaemonNotRunning:
            pass
    if on_local is not None:
        on_local(op)
    return call_local(settings, op, {**args, **(local_args or {})})


def call_local(settings: Settings, op: str, args: dict[str, Any]) -> Any:
    """Run operation ``op`` with ``args`` here; raises TapestryError for an unknown op.

    Only the module of ``op`` is imported (:func:`tapestryd.daemon.ops.find_op`).
    """
    spec = find_op(op)
    if spec is None:
        raise TapestryError(f"unknown operation {op!r}")
    if spec.kind == "write":
        args = {**args, **_prepare_write(settings, op)}
        with Runtime.open(settings, role="cli") as runtime:
            return spec.fn(runtime, args)
    with Reader.open(settings) as reader:
        return spec.fn(reader, args)


def _prepare_write(settings: Settings, op: str) -> dict[str, Any]:
    """Check the home before a write op; returns args to add (``_set_aside`` for a rebuild).

    Raises StoreError when the home has no log yet (unless ``op`` creates stores), and,
    except for ``rebuild``, when ``projections.db`` is unreadable. ``rebuild`` moves an
    unreadable ``projections.db`` aside as ``projections.db.corrupt-<UTC time>`` first, so
    the projections are recreated from the log.
    """
    paths = paths_for(settings)
    if op not in CREATES_STORE and not log_has_events(paths.events_db):
        raise nothing_stored(paths)
    # a missing file is recreated by the Runtime; rebuild also looks for damaged pages
    problem = damaged(paths.projections_db) if op == "rebuild" else unreadable(paths.projections_db)
    if not problem:
        return {}
    if op != "rebuild":
        raise unreadable_error(paths, problem)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    aside = paths.projections_db.with_name(f"{paths.projections_db.name}.corrupt-{stamp}")
    paths.projections_db.rename(aside)
    for suffix in ("-wal", "-shm"):
        Path(f"{paths.projections_db}{suffix}").unlink(missing_ok=True)
    return {"_set_aside": str(aside)}
