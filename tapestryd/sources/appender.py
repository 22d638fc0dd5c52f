"""Appending the events of an ingest in large transactions, counting per file what was new.

One :class:`BatchAppender` serves a whole ingest: the events of many small files (a
Claude Code projects folder holds thousands) share transactions of about :data:`BATCH`
events, so the log is not synced once per file. Each file's events first pass its
privacy :class:`~tapestryd.sources.screen.Screen`. A file's ``ImportFinished`` (its receipt)
can only be written once its counts are known, so it goes with the batch after the one
that stored the file's last events; :meth:`BatchAppender.close` writes what remains.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone

import structlog

from tapestryd.events.store import AppendResult, EventStore
from tapestryd.events.types import MessageRecorded, NewEvent
from tapestryd.sources.receipts import FileReceipt, Tally, scrub
from tapestryd.sources.screen import Screen

__all__ = ["BATCH", "BatchAppender", "FileRun"]

log = structlog.get_logger(__name__)

BATCH = 5000


@dataclass
class FileRun:
    """One file being imported: its receipt, privacy screen, the event id its receipt is logged
    under, its tally and events not yet screened."""

    receipt: FileReceipt
    screen: Screen
    finished_id: str
    chunk: list[NewEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tally = Tally(self.receipt)

    def count(self, new: NewEvent, fresh: bool) -> None:
        """Count one appended event (``fresh``: it was not in the log before)."""
        event = new.event
        if isinstance(event, MessageRecorded):
            self.tally.add(event.conversation, event.message, fresh)
            for kind, n in event.skipped.items():
                self.receipt.skip(kind, n)

    def finished(self) -> NewEvent:
        """Close the tally; the ImportFinished event recording the receipt (id from the sha256)."""
        self.tally.close()
        r = self.receipt
        log.info("import.finished", path=r.path, parser=r.parser, messages_new=r.messages["new"],
                 messages_known=r.messages["known"], errors=r.error_count)
        return NewEvent(self.finished_id, r.finished_event(), datetime.now(timezone.utc),
                        r.agent, r.path)


class BatchAppender:
    """Screens, batches and appends events of many files; see the module docstring."""

    def __init__(self, store: EventStore, batch: int = BATCH) -> None:
        self.store = store
        self.batch = batch
        self.pending: list[tuple[NewEvent, FileRun | None]] = []
        self.done: list[FileRun] = []

    def add(self, run: FileRun, new: NewEvent) -> None:
        """Queue one event of ``run``'s file."""
        run.chunk.append(new)
        if len(run.chunk) >= self.batch:
            self._screen(run)

    def finish(self, run: FileRun) -> None:
        """The file has no more events: its receipt is written after they are stored."""
        self._screen(run)
        self.done.append(run)

    def close(self) -> None:
        """Store everything queued and every finished file's receipt."""
        while self.pending or self.done:
            self._flush()

    def _screen(self, run: FileRun) -> None:
        screened = run.screen.screen(run.chunk)
        run.chunk = []
        for reason, n in screened.skipped.items():
            run.receipt.skip(reason, n)
        self.pending.extend((new, run) for new in screened.events)
        if len(self.pending) >= self.batch:
            self._flush()

    def _flush(self) -> None:
        batch, self.pending = self.pending, []
        done, self.done = self.done, []
        if batch:
            result = _append(self.store, [new for new, _ in batch])
            for (new, run), seq in zip(batch, result.seqs):
                if run is not None:
                    run.count(new, seq is not None)
        self.pending.extend((run.finished(), None) for run in done)


def _append(store: EventStore, batch: list[NewEvent]) -> AppendResult:
    """Append; text with lone surrogates (from ``\\ud800`` escapes) is retried with U+FFFD instead."""
    try:
        return store.append(batch)
    except UnicodeEncodeError:
        return store.append([scrub(new) for new in batch])
