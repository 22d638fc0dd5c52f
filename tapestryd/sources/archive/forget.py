"""What ``forget`` removes from the archive: it follows the log's ``Forgotten`` events.

The archive is not rebuilt from the log, so it applies each Forgotten event once, in log
order, and remembers the last seq applied (its checkpoint). A rule

* naming a **conversation** (``forget --conversation``, or a conversation holding an
  exclusion marker) drops, whole and in every version, each archived file that any of
  that conversation's events was read from (and the file the Forgotten event itself came
  from), and leaves a tombstone: the path is never captured again. A transcript is one
  session: its tool calls, thinking and attachments go with its messages.
* ``before`` an instant or matching a ``match`` pattern (and naming no conversation)
  removes the lines it covers (:mod:`tapestryd.sources.archive.lines`) from every
  archived version, which is then marked ``edited`` (no longer byte-exact), and stays in
  force: lines captured later are screened the same way.

Re-applying a rule (after a crash before the checkpoint moved) removes nothing more, so when
the log no longer holds the checkpoint's event at its seq (restored from a backup) every
Forgotten event is followed again from the start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterator

from tapestryd.events.store import EventStore
from tapestryd.events.types import Forgotten, StoredEvent, format_utc
from tapestryd.lazylog import get_logger
from tapestryd.sources.archive.lines import LineRules, split_lines
from tapestryd.sources.archive.store import ArchivedFile, ArchiveStore

__all__ = ["ArchiveForgotten", "follow_forgotten", "preview_forgotten"]

log = get_logger(__name__)


@dataclass
class ArchiveForgotten:
    """What following the log did: Forgotten events applied, versions dropped, versions rewritten, lines removed."""

    events: int = 0
    dropped: int = 0
    rewritten: int = 0
    lines: int = 0

    def to_dict(self) -> dict[str, int]:
        """JSON-ready counts."""
        return {"events": self.events, "dropped": self.dropped, "rewritten": self.rewritten, "lines": self.lines}


def follow_forgotten(archive: ArchiveStore, log_store: EventStore) -> ArchiveForgotten:
    """Apply every Forgotten event of ``log_store`` after the archive's checkpoint (see the module docstring)."""
    done = ArchiveForgotten()
    for stored in log_store.read(_resume_after(archive, log_store), types=[Forgotten.type]):
        assert isinstance(stored.event, Forgotten)
        _apply(archive, log_store, stored, stored.event, done)
        archive.set_checkpoint(stored.seq, stored.event_id)
        done.events += 1
    if done.events:
        log.info("archive.forgotten", **done.to_dict())
    return done


def preview_forgotten(archive: ArchiveStore, log_store: EventStore, rule: Forgotten) -> ArchiveForgotten:
    """What applying ``rule`` would remove, changing nothing (``forget --dry-run``); ``events`` stays 0."""
    done = ArchiveForgotten()
    if rule.conversation:
        paths = _files_of(log_store, rule.conversation)
        done.dropped = sum(1 for file in archive.listing() if file.path in paths)
    elif rule.before or rule.match:
        rules = LineRules.of([(rule.before, rule.match)])
        for file in archive.listing():
            covered = _count(archive, file, rules)
            done.rewritten += covered > 0
            done.lines += covered
    return done


def _resume_after(archive: ArchiveStore, log_store: EventStore) -> int:
    """The checkpoint's seq, or 0 when the log holds another event there (or none)."""
    seq, event_id = archive.checkpoint()
    if not seq:
        return 0
    there = next(log_store.read(seq - 1, types=[Forgotten.type], until=seq), None)
    return seq if there is not None and there.event_id == event_id else 0


def _apply(archive: ArchiveStore, log_store: EventStore, stored: StoredEvent, rule: Forgotten,
           done: ArchiveForgotten) -> None:
    if rule.conversation:
        now = format_utc(datetime.now(timezone.utc))
        for path in sorted(_files_of(log_store, rule.conversation) | _paths({stored.source})):
            done.dropped += archive.forget_path(path, now)
    elif rule.before or rule.match:
        archive.add_rule(stored.seq, rule.before, rule.match)
        rules = LineRules.of([(rule.before, rule.match)])
        for file in archive.listing():
            removed = _rewrite(archive, file, rules)
            done.rewritten += removed > 0
            done.lines += removed


def _files_of(log_store: EventStore, conversation: str) -> set[str]:
    return _paths(log_store.sources_of(conversation))


def _paths(sources: set[str]) -> set[str]:
    """The file paths of ``path:offset`` sources (other sources, such as an export's hash, are left out)."""
    paths = set()
    for source in sources:
        path, _, offset = source.rpartition(":")
        if path and offset.isdigit() and os.path.isabs(path):
            paths.add(path)
    return paths


def _rewrite(archive: ArchiveStore, file: ArchivedFile, rules: LineRules) -> int:
    """Rewrite ``file`` without the lines ``rules`` cover; returns how many lines went (0: left alone)."""
    removed = _count(archive, file, rules)
    if removed:
        archive.rewrite(file, (rules.keep(piece) for piece in _pieces(archive, file)))
    return removed


def _count(archive: ArchiveStore, file: ArchivedFile, rules: LineRules) -> int:
    """How many lines of ``file`` the rules cover."""
    return sum(len(split_lines(piece)) - len(split_lines(rules.keep(piece))) for piece in _pieces(archive, file))


def _pieces(archive: ArchiveStore, file: ArchivedFile) -> Iterator[bytes]:
    """The kept bytes of ``file`` in pieces cut after a newline (a block may end mid-line)."""
    pending = b""
    for block in archive.read(file.id):
        data = pending + block
        cut = data.rfind(b"\n") + 1
        pending = data[cut:]
        if cut:
            yield data[:cut]
    if pending:
        yield pending

