"""The result of every operation: one frozen dataclass each, turned to and from JSON.

Two shapes:

* a **record** (:class:`Record`): named fields, JSON an object with those keys
  (``PingResult``, ``RebuildResult`` …);
* a **document** (:class:`Document`): the JSON answer of a query as the query layer builds it
  (``data``: an object, or a list for ``conversations``, ``tree`` and ``backups``), kept whole
  because its keys are the protocol's contract (every JSON field of ``search``, ``context`` or
  ``status`` a script reads today stays); the class says which operation answered.

Every result has ``to_json()`` (what the socket sends, what ``-f json`` prints) and
``from_json(value)`` (what a client rebuilds from the socket's answer).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping, Self

__all__ = [
    "ArchiveListResult", "BackupResult", "BackupsResult", "CatchUpResult", "CloseDaysResult", "CompactResult",
    "ContextResult",
    "ConversationsResult", "Document", "DriftResult", "EvalResult", "ForgetResult", "GenerateResult",
    "HierarchyStatusResult", "IngestResult", "IterateResult", "MessagesResult", "NodeResult", "PauseResult",
    "PingResult", "RebuildResult", "RecallResult", "Record", "ReloadResult", "RepairResult", "RestoreResult",
    "ResumeResult", "SearchResult", "ShowResult", "SimilarResult", "StatsResult", "StatusResult", "SyncInitResult",
    "SyncResult", "SyncStatusResult", "TreeResult", "VerifyResult"
]


@dataclass(frozen=True)
class Record:
    """A result with named fields; its JSON is an object with one key per field."""

    def to_json(self) -> dict[str, Any]:
        """``{field: value}`` for every field."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, value: Any) -> Self:
        """The record of a JSON object (keys it does not have are ignored; missing ones take defaults)."""
        data = value if isinstance(value, Mapping) else {}
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


@dataclass(frozen=True)
class Document:
    """A result whose JSON is the query layer's answer, kept whole (``data``)."""

    data: Any

    def to_json(self) -> Any:
        """The answer as JSON-ready values."""
        return self.data

    @classmethod
    def from_json(cls, value: Any) -> Self:
        """The document of a JSON answer."""
        return cls(value)

    def __getitem__(self, key: str) -> Any:
        """``result["hits"]``: a key of an object answer."""
        return self.data[key]


@dataclass(frozen=True)
class PingResult(Record):
    """``pong`` true, the daemon's (or this process's) version and the home's data dir."""

    pong: bool = True
    version: str = ""
    data_dir: str = ""


@dataclass(frozen=True)
class PauseResult(Record):
    """The daemon's paused state after ``pause``."""

    paused: bool = True


@dataclass(frozen=True)
class ResumeResult(Record):
    """The daemon's paused state after ``resume``."""

    paused: bool = False


@dataclass(frozen=True)
class RebuildResult(Record):
    """Events replayed, the log's last seq, and the unreadable projections file moved aside ('' if none)."""

    replayed: int = 0
    last_seq: int = 0
    set_aside: str = ""


@dataclass(frozen=True)
class CatchUpResult(Record):
    """Events applied, and each projection's lag behind the log after it (events)."""

    applied: int = 0
    lag: Mapping[str, int] | None = None


@dataclass(frozen=True)
class CloseDaysResult(Record):
    """DayClosed events appended."""

    days_closed: int = 0


class SearchResult(Document):
    """``query``, ``hits`` (each with timestamps, conversation, role, snippet), ``time`` when a phrase was read."""


class SimilarResult(Document):
    """``hits`` by cosine and the ``index`` that answered (warm, documents, fit seconds)."""


class ContextResult(Document):
    """The context's parts and ``rendered`` (its text or markdown)."""


class ConversationsResult(Document):
    """A list of conversations (key, agent, title, counts, first and last message)."""


class ShowResult(Document):
    """One conversation with every message in order."""


class MessagesResult(Document):
    """``messages`` (each once, grouped by conversation, in log order) and the ``missing`` ids."""


class StatsResult(Document):
    """Counts per agent and role."""


class RecallResult(Document):
    """``nodes`` for the period asked, with links down to their sources."""


class NodeResult(Document):
    """One node with its text and sources."""


class TreeResult(Document):
    """A list of nodes, parents before children."""


class HierarchyStatusResult(Document):
    """Counts per level and state, usage, last runs and errors, checks and the grade."""


class StatusResult(Document):
    """``store``, ``projections``, ``daemon`` and further sections (see :mod:`tapestryd.queries.status`)."""


class ReloadResult(Document):
    """``reloaded``, ``config_file``, ``restart_needed``, ``warnings``, ``web`` (and ``web_problem``)."""


class IngestResult(Document):
    """The import receipt: per file new, known, skipped, errors; ``totals``; ``failed``."""


class IterateResult(Document):
    """Nodes summarized, failed, remaining; ``days_closed``; ``stopped``; ``failed_in_a_row``."""


class GenerateResult(Document):
    """The ``nodes`` generated and the run report."""


class RepairResult(Document):
    """What the repair cascade refreshed."""


class EvalResult(Document):
    """Compression, retention, Tapestry Score and Recall Yield per level (see docs/EVAL.md)."""


class DriftResult(Document):
    """Nodes whose successive summaries moved, by severity."""


class ForgetResult(Document):
    """The ``rule``, what it matches, and (unless ``dry_run``) the ``seq`` of the Forgotten event."""


class CompactResult(Document):
    """What compaction rewrote (or would), and the backup it kept."""


class BackupResult(Document):
    """The backup written and the ones pruned."""


class BackupsResult(Document):
    """A list of backups, oldest first."""


class ArchiveListResult(Document):
    """Archived file versions: id, path, version, source, original and stored bytes, edited, state, captures."""


class VerifyResult(Document):
    """The integrity report of the log and projections."""


class RestoreResult(Document):
    """The backup restored, the log kept aside and the events replayed."""


class SyncResult(Document):
    """One sync round: ``push``, ``pull``, ``forgotten`` (each ``seen``, ``new``, ``skipped``,
    ``skipped_rows``), ``forgotten_pushed``, ``hub`` (its safe URL), ``machine``, ``seconds``."""


class SyncInitResult(Document):
    """``created`` (a new key), ``passphrase`` (shown once, only for a new key), ``key_id``, ``path``,
    ``machine``, ``hub`` (its safe URL, ``""`` when none is configured)."""


class SyncStatusResult(Document):
    """``enabled``, ``machine``, ``key`` (present), ``hub``, ``to_push``, ``to_pull``, ``last_success``,
    ``last_error`` (``{"at", "message"}``), ``skipped_total``."""
