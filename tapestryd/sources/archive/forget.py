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
  force: lines captured later are screened the same way. A covered line that is a part of a
  message written over several lines (a Claude Code reply streamed one content block a line:
  :mod:`tapestryd.sources.archive.parts`) takes every line of that message with it, in every
  version, and the message's key is kept in the archive, so its parts captured later (also
  after a restart) are not kept either, as the messages projection forgets the message whole.

Re-applying a rule (after a crash before the checkpoint moved) removes nothing more, so when
the log no longer holds the checkpoint's event at its seq (restored from a backup) every
Forgotten event is followed again from the start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from tapestryd.events.store import EventStore
from tapestryd.events.types import Forgotten, StoredEvent, format_utc
from tapestryd.lazylog import get_logger
from tapestryd.sources.archive.lines import LineRules
from tapestryd.sources.archive.rewrite import count_removed, messages_covered, rewrite_without
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
        files = archive.listing()
        reached = _messages_reached(archive, files, rules)
        for file in files:
            covered = count_removed(archive, file, rules,
                                    archive.forgotten_messages(file.source) | reached.get(file.source, set()))
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
        files = archive.listing()
        for source, keys in _messages_reached(archive, files, rules).items():
            archive.forget_messages(source, keys)  # before any rewrite: a crash mid-way leaves them known
        forgotten = {source: archive.forgotten_messages(source) for source in {file.source for file in files}}
        for file in files:
            removed = rewrite_without(archive, file, rules, forgotten[file.source])
            done.rewritten += removed > 0
            done.lines += removed


def _messages_reached(archive: ArchiveStore, files: list[ArchivedFile], rules: LineRules) -> dict[str, set[str]]:
    """source → the keys of the messages written over several lines that ``rules`` cover a line of, in
    any of ``files`` (every line of them goes, in every version: :mod:`tapestryd.sources.archive.parts`)."""
    reached: dict[str, set[str]] = {}
    for file in files:
        if keys := messages_covered(archive, file, rules):
            reached.setdefault(file.source, set()).update(keys)
    return reached


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
