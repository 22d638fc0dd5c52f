"""The requests of sync, sync_round, sync_init, sync_status.

One module of the request types (see :mod:`tapestryd.operations.requests`), imported on first
use of one of its names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SyncInitRequest", "SyncRequest", "SyncRoundRequest", "SyncStatusRequest"]


@dataclass(frozen=True)
class SyncRequest:
    """One sync round with the hub now: push this machine's events, pull the others' (run in the
    caller's process; through the running daemon when there is one). ``from_start`` pulls the
    whole hub again (after a key was fixed or tapestryd upgraded: what was skipped comes in).
    ``batch``: events per hub transaction and per local append (1 to 50,000)."""

    from_start: bool = False
    batch: int = 2000


@dataclass(frozen=True)
class SyncRoundRequest:
    """The running daemon's half of ``sync``: the round on its own sync thread, local writes on the writer."""

    from_start: bool = False
    batch: int = 2000


@dataclass(frozen=True)
class SyncInitRequest:
    """Set up this machine's sync key: a new one (shown once as a passphrase), or ``key``, the
    passphrase another machine showed. ``force`` replaces a different key already here."""

    key: str = ""
    force: bool = False


@dataclass(frozen=True)
class SyncStatusRequest:
    """The sync lag (events to push, to pull), last success and last error (read in the caller's process)."""
