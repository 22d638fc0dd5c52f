"""The requests of status, pause, resume, reload.

One module of the request types (see :mod:`tapestryd.operations.requests`), imported on first
use of one of its names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PauseRequest", "ReloadRequest", "ResumeRequest", "StatusRequest"]


@dataclass(frozen=True)
class StatusRequest:
    """Counts, projection lag and, through the daemon, the daemon's own state."""


@dataclass(frozen=True)
class PauseRequest:
    """Stop tailing, inbox imports, scheduled jobs and summarizing in the running daemon."""


@dataclass(frozen=True)
class ResumeRequest:
    """Undo a pause and catch up with what changed meanwhile."""


@dataclass(frozen=True)
class ReloadRequest:
    """Read tapestry.toml again in the running daemon (as SIGHUP does)."""
