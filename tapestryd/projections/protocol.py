"""The projection protocol the projector runs, and its optional hooks.

Every shipped projection (:func:`tapestryd.projections.default_projections`) satisfies
:class:`Projection`, which mypy checks where they are listed; the hooks are separate protocols
the runner tests for with ``isinstance`` (``runtime_checkable`` looks at the methods' names,
mypy at their signatures). A projection reads another's rows only through that projection's
read functions (``*_read.py``), in the runner's transaction, never through objects they share.
"""

from __future__ import annotations

import sqlite3
from typing import Protocol, Sequence, runtime_checkable

from tapestryd.events.store import EventStore
from tapestryd.events.types import StoredEvent

__all__ = ["BatchProjection", "BufferedProjection", "LogReadingProjection", "Projection", "SettlingProjection",
           "UpgradingProjection"]


class Projection(Protocol):
    """A read model built from events.

    ``types`` lists the event type names it reads (the runner skips the rest). ``apply``
    must be deterministic: the same events in the same order give the same rows.
    """

    name: str
    types: tuple[str, ...]

    def create(self, conn: sqlite3.Connection) -> None:
        """Create its tables and indexes if missing."""

    def clear(self, conn: sqlite3.Connection) -> None:
        """Remove every row it owns."""

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        """Apply one event, inside the runner's transaction."""


@runtime_checkable
class BufferedProjection(Projection, Protocol):
    """A projection that holds some writes of a batch in memory (the messages projection's FTS rows)."""

    def flush(self, conn: sqlite3.Connection) -> None:
        """Write what it holds; the runner calls it after a batch's last event, before committing."""

    def discard(self) -> None:
        """Drop what it holds; the runner calls it when the batch's transaction rolled back."""


@runtime_checkable
class SettlingProjection(Projection, Protocol):
    """A projection that leaves some writes for later while events stream in (the messages
    projection's grown blocks), and writes them when the projector settles."""

    def unsettled(self, conn: sqlite3.Connection) -> bool:
        """Whether something was left for later (a read; the runner takes the write lock only then)."""

    def settle(self, conn: sqlite3.Connection) -> None:
        """Write what was left for later, inside the runner's transaction; afterwards its rows are
        those a rebuild gives."""


@runtime_checkable
class BatchProjection(Projection, Protocol):
    """A projection that applies a batch of events in one call, with the rows ``apply`` would give."""

    def apply_batch(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> None:
        """Apply ``events`` (already filtered to its types and checkpoint) in order, in the runner's transaction."""

    def batch_safe(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> bool:
        """Whether the projections after it may see the whole batch's effect at once: True when the
        batch changes none of its rows that others read except by adding rows."""


@runtime_checkable
class LogReadingProjection(Projection, Protocol):
    """A projection that reads events back from the log (the messages projection joins a streamed
    reply's parts from their verbatim texts)."""

    def attach_log(self, store: EventStore) -> None:
        """Keep ``store`` to read from; the projector calls it once, before any event is applied."""


@runtime_checkable
class UpgradingProjection(Projection, Protocol):
    """A projection that fills what a file made by an older version lacks after ``create``, a chunk at a time
    (the messages projection's windows, blocks and speaker names: :mod:`tapestryd.projections.backfill`)."""

    def upgrade_step(self, conn: sqlite3.Connection) -> bool:
        """Write one bounded chunk, in the caller's transaction; return whether more is left."""
