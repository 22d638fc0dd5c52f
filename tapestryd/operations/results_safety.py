"""The results of forget, compact, backup, backups, verify, restore, archive_list, and the parts they are made of.

One module of the result types (see :mod:`tapestryd.operations.results`), imported on first use
of one of its names, so a command builds only the dataclasses its own answer needs. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from tapestryd.operations.shape import Listing, Record, absent

__all__ = ["ArchiveListResult", "ArchivedVersion", "BackupFile", "BackupResult", "BackupsResult", "Check",
    "CompactResult", "ForgetResult", "ForgetRuleSpec", "RestoreResult", "VerifyResult"]


@dataclass(frozen=True)
class ForgetRuleSpec(Record):
    """What a Forgotten event covers: a ``conversation`` key, everything ``before`` an instant (ISO UTC),
    or messages whose text ``match``es a regex (``""``: that one does not narrow)."""

    conversation: str = ""
    before: str = ""
    match: str = ""


@dataclass(frozen=True)
class BackupFile(Record):
    """One backup of the event log: its path, ``label`` (events, pre-restore, pre-compact), when it was
    taken (ISO UTC) and its ``size`` (bytes)."""

    path: str = ""
    label: str = ""
    taken_at: str = ""
    size: int = 0


@dataclass(frozen=True)
class Check(Record):
    """One check of ``verify``: its ``name``, whether it passed, one line of ``detail``, and the first
    ``problems`` found (one line each)."""

    name: str = ""
    ok: bool = False
    detail: str = ""
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArchivedVersion(Record):
    """One archived version of a file: its ``id`` (for ``archive extract``), path, ``version`` (1 up),
    the ``source`` that watched it, its ``original_bytes`` and ``stored_bytes``, whether forget
    rules ``edited`` it, its ``state`` (current, replaced) and its first and last capture (ISO UTC)."""

    id: int = 0
    path: str = ""
    version: int = 0
    source: str = ""
    original_bytes: int = 0
    stored_bytes: int = 0
    edited: bool = False
    state: str = ""
    first_capture: str = ""
    last_capture: str = ""


@dataclass(frozen=True)
class ForgetResult(Record):
    """The ``rule``, whether it was a ``dry_run``, the ``messages`` and ``conversations`` it covers (the
    first ``sample`` of conversation keys), how ``--before`` was read (``before_read``, only for
    it), for a real run the Forgotten event's ``seq`` (None: it was ``already_forgotten``) and that flag, and
    the raw ``archive``'s share (counts: events, dropped, rewritten, lines; would be, in a dry run;
    empty without an archive)."""

    rule: ForgetRuleSpec = field(default_factory=ForgetRuleSpec)
    dry_run: bool = False
    messages: int = 0
    conversations: int = 0
    sample: tuple[str, ...] = ()
    before_read: str | None = absent()
    seq: int | None = absent(along="already_forgotten")
    already_forgotten: bool | None = absent()
    archive: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class CompactResult(Record):
    """A compaction's report, or its confirmation's.

    A compaction (or a ``dry_run``): the events ``rewritten`` by type, the ``backup`` of the log
    before it (None: a dry run, or nothing to rewrite) and the log's size before and after
    (bytes). A confirmation: the pre-compact backups ``deleted`` (paths) and the other backups
    ``scrubbed`` (path → events rewritten).
    """

    dry_run: bool | None = absent()
    rewritten: Mapping[str, int] | None = absent()
    backup: str | None = absent(along="dry_run")
    bytes_before: int | None = absent()
    bytes_after: int | None = absent()
    deleted: tuple[str, ...] | None = absent()
    scrubbed: Mapping[str, int] | None = absent()


@dataclass(frozen=True)
class BackupResult(Record):
    """The ``backup`` written, the backups ``pruned`` (paths) and how many rotation backups are ``kept``."""

    backup: BackupFile = field(default_factory=BackupFile)
    pruned: tuple[str, ...] = ()
    kept: int = 0


@dataclass(frozen=True)
class BackupsResult(Listing):
    """The home's backups, oldest first; its JSON is the list of them."""

    backups: tuple[BackupFile, ...] = ()


@dataclass(frozen=True)
class VerifyResult(Record):
    """The integrity report: the log's path (``events_db``), its ``events`` and ``last_seq``, each
    ``check`` (integrity, seq order, payloads, checkpoints, archive, modes) and ``ok`` (all passed)."""

    events_db: str = ""
    events: int = 0
    last_seq: int = 0
    checks: tuple[Check, ...] = ()
    ok: bool = False


@dataclass(frozen=True)
class RestoreResult(Record):
    """The backup ``restored`` (path), the log's ``last_seq`` after it, where the ``previous`` log was
    kept (None: there was none) and the events ``replayed`` into the projections."""

    restored: str = ""
    last_seq: int = 0
    previous: str | None = None
    replayed: int = 0


@dataclass(frozen=True)
class ArchiveListResult(Listing):
    """Every archived file version (tombstones and files of sources that are off left out), by path and
    version; its JSON is the list of them."""

    files: tuple[ArchivedVersion, ...] = ()
