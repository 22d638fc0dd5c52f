"""Daemon operations: status, pause, resume, reload.

``status`` works everywhere: through the daemon it includes the daemon's own state, run in
the CLI's process it says the daemon is not running. ``pause``, ``resume`` and ``reload``
steer the running daemon through the :class:`~tapestryd.operations.base.DaemonControl` in
their deps; they touch no database, so the daemon runs them at once on a server thread
(never behind a long import on the writer). Without a daemon they raise DaemonNotRunning.
"""

from __future__ import annotations

from tapestryd.errors import DaemonNotRunning
from tapestryd.operations.archive_section import archive_status
from tapestryd.operations.base import DaemonControl, ReadDeps
from tapestryd.operations.requests import (
    PauseRequest,
    ReloadRequest,
    ResumeRequest,
    StatusRequest,
)
from tapestryd.operations.sync_section import sync_status
from tapestryd.operations.results import (
    PauseResult,
    ReloadResult,
    ResumeResult,
    StatusResult,
)
from tapestryd.queries import sources as _sources  # noqa: F401  (registers the status section "sources")
from tapestryd.queries.status import build_status

__all__ = ["pause", "reload", "resume", "status"]


def _control(deps: ReadDeps) -> DaemonControl:
    if deps.control is None:
        raise DaemonNotRunning("tapestryd is not running (start it with `tapestryd`, or `tapestryctl install-service`)")
    return deps.control


def status(request: StatusRequest, deps: ReadDeps) -> StatusResult:
    """Counts, projection lag, the daemon's state (see :mod:`tapestryd.queries.status`), the raw archive
    and sync (:func:`~tapestryd.operations.syncing.sync_status`)."""
    reader = deps.reader
    found = build_status(reader, daemon=deps.control.snapshot() if deps.control else None)
    return StatusResult.from_json({**found, "archive": archive_status(reader.settings, reader.paths),
                                   "sync": sync_status(reader.settings, reader.paths)})


def pause(request: PauseRequest, deps: ReadDeps) -> PauseResult:
    """Pause tailing, the inbox and scheduled jobs."""
    return PauseResult.from_json(_control(deps).pause())


def resume(request: ResumeRequest, deps: ReadDeps) -> ResumeResult:
    """Resume after :func:`pause`."""
    return ResumeResult.from_json(_control(deps).resume())


def reload(request: ReloadRequest, deps: ReadDeps) -> ReloadResult:
    """Reload tapestry.toml in the running daemon."""
    return ReloadResult.from_json(_control(deps).reload())
