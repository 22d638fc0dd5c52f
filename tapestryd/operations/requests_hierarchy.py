"""The requests of iterate, generate, close_days, repair, tree, hierarchy_status.

One module of the request types (see :mod:`tapestryd.operations.requests`), imported on first
use of one of its names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CloseDaysRequest", "GenerateRequest", "HierarchyStatusRequest", "IterateRequest", "RepairRequest",
    "TreeRequest"]


@dataclass(frozen=True)
class TreeRequest:
    """The summary tree between two local ISO dates, from ``min_level`` (0 to 4) up."""

    agent: str = ""
    start: str = ""
    end: str = ""
    min_level: int = 1


@dataclass(frozen=True)
class HierarchyStatusRequest:
    """Counts per level, usage, last runs and errors, and (``checks``) the structural checks."""

    checks: bool = True


@dataclass(frozen=True)
class IterateRequest:
    """Summarize dirty closed nodes up to ``until`` (ISO date; "" for everything closed).

    ``mode``: context (telescoping) or catchup (bulk, without context); ``max_seconds``:
    stop after about this long (a slice; None: no limit); ``failed_in_a_row``: failures in a
    row in the earlier slices of the same command.
    """

    until: str = ""
    agent: str = ""
    mode: str = "context"
    max_seconds: float | None = None
    failed_in_a_row: int = 0


@dataclass(frozen=True)
class GenerateRequest:
    """Summarize one period's node(s) now, dirty descendants first (``level`` 0 to 4)."""

    level: int | None = None
    when: str = ""
    agent: str = ""
    conversation: str = ""


@dataclass(frozen=True)
class CloseDaysRequest:
    """Append the DayClosed events that are due now."""


@dataclass(frozen=True)
class RepairRequest:
    """Run the nightly repair cascade now."""
