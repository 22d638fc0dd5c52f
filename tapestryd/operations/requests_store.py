"""The requests of ingest, rebuild, catch_up.

One module of the request types (see :mod:`tapestryd.operations.requests`), imported on first
use of one of its names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CatchUpRequest", "IngestRequest", "RebuildRequest"]


@dataclass(frozen=True)
class IngestRequest:
    """Import files, folders or ZIPs (absolute paths); ``parser``: auto or a parser's name."""

    paths: tuple[str, ...] = ()
    agent: str = ""
    parser: str = "auto"


@dataclass(frozen=True)
class RebuildRequest:
    """Drop every projection and replay the log (no provider calls)."""


@dataclass(frozen=True)
class CatchUpRequest:
    """Apply the events the projections have not seen yet."""
