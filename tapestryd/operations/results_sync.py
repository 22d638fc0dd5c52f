"""The results of sync, sync_round, sync_init, sync_status, and the parts they are made of.

One module of the result types (see :mod:`tapestryd.operations.results`), imported on first use
of one of its names, so a command builds only the dataclasses its own answer needs. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from tapestryd.operations.shape import Record, absent

__all__ = ["SkippedRow", "SyncInitResult", "SyncResult", "SyncStatusResult", "Transfer"]


@dataclass(frozen=True)
class SkippedRow(Record):
    """A hub row a sync round passed over: its ``seq`` on the hub, the ``event_id`` and the ``reason``."""

    seq: int = 0
    event_id: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Transfer(Record):
    """One direction of a sync round: rows ``seen``, events ``new`` on the receiving side, rows
    ``skipped`` (the first few in ``skipped_rows``) and the new events by type (``new_types``)."""

    seen: int = 0
    new: int = 0
    skipped: int = 0
    skipped_rows: tuple[SkippedRow, ...] = ()
    new_types: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SyncResult(Record):
    """One sync round of ``machine`` with the ``hub`` (its URL without the password): what it pushed,
    pulled, and the tombstones it pulled (``forgotten``) and sent (``forgotten_pushed``), in ``seconds``."""

    machine: str = ""
    hub: str = ""
    push: Transfer = field(default_factory=Transfer)
    pull: Transfer = field(default_factory=Transfer)
    forgotten_pushed: int = 0
    forgotten: Transfer = field(default_factory=Transfer)
    seconds: float = 0.0


@dataclass(frozen=True)
class SyncInitResult(Record):
    """This machine's sync key: ``created`` (a new one), its ``key_id``, ``path``, the ``machine``, the
    ``hub`` (its URL without the password, ``""`` when none is configured) and, for a new key
    only, its ``passphrase`` (shown once)."""

    created: bool = False
    key_id: str = ""
    path: str = ""
    machine: str = ""
    hub: str = ""
    passphrase: str | None = absent()


@dataclass(frozen=True)
class SyncStatusResult(Record):
    """Sync ``enabled`` or not, the ``machine``, whether its ``key`` is here; once enabled, the ``hub``
    (its URL without the password), the ``last_success`` (ISO UTC, ``""``: never), the
    ``last_error`` (``{"at", "message"}``, empty: none), hub rows ``skipped_total``; with a log,
    events ``to_push`` and hub rows ``to_pull`` (as of the last contact), or the ``error``
    reading the log."""

    enabled: bool = False
    machine: str = ""
    key: bool = False
    hub: str | None = absent()
    last_success: str | None = absent()
    last_error: Mapping[str, str] | None = absent()
    skipped_total: int | None = absent()
    to_push: int | None = absent()
    error: str | None = absent()
    to_pull: int | None = absent()
