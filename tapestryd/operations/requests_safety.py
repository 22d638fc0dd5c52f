"""The requests of forget, compact, backup, backups, verify, restore, archive_list.

One module of the request types (see :mod:`tapestryd.operations.requests`), imported on first
use of one of its names. Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ArchiveListRequest", "BackupRequest", "BackupsRequest", "CompactRequest", "ForgetRequest",
    "RestoreRequest", "VerifyRequest"]


@dataclass(frozen=True)
class ForgetRequest:
    """Forget by exactly one rule: a ``conversation``, everything ``before`` a time, or a ``match`` regex."""

    conversation: str = ""
    before: str = ""
    match: str = ""
    dry_run: bool = False
    reason: str = ""
    now: str = ""


@dataclass(frozen=True)
class CompactRequest:
    """Rewrite forgotten payloads as tombstones (``dry_run``: only count), or ``confirm`` one."""

    dry_run: bool = False
    confirm: bool = False


@dataclass(frozen=True)
class BackupRequest:
    """Back up the event log now and prune old backups."""


@dataclass(frozen=True)
class BackupsRequest:
    """Every backup of the home, oldest first (read in the caller's process)."""


@dataclass(frozen=True)
class ArchiveListRequest:
    """Every version of every file in the raw archive, by path and version (read in the caller's process)."""


@dataclass(frozen=True)
class VerifyRequest:
    """The integrity report of the log, projections and file modes (read in the caller's process);
    ``fix`` makes data, backup and cache folders 0700 and databases, backups and .env 0600."""

    fix: bool = False


@dataclass(frozen=True)
class RestoreRequest:
    """Replace the log by the backup ``file`` and rebuild the projections (no daemon may run)."""

    file: str = ""
