"""The results of ingest, rebuild, catch_up, and the parts they are made of.

One module of the result types (see :mod:`tapestryd.operations.results`), imported on first use
of one of its names, so a command builds only the dataclasses its own answer needs. Standard
library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from tapestryd.operations.shape import Record

__all__ = ["CatchUpResult", "ConversationCounts", "FileReceipt", "IngestResult", "IngestTotals", "MessageCounts",
    "RebuildResult"]


@dataclass(frozen=True)
class ConversationCounts(Record):
    """Conversations an import found ``new``, ``updated`` (more messages) and already ``known``."""

    new: int = 0
    updated: int = 0
    known: int = 0


@dataclass(frozen=True)
class MessageCounts(Record):
    """Messages an import found ``new`` and already ``known``."""

    new: int = 0
    known: int = 0


@dataclass(frozen=True)
class FileReceipt(Record):
    """What one file (or ZIP) of an import gave: its path and sha256, the ``parser`` that read it and the
    ``agent`` label (``""`` when it was never read), the counts, what was ``skipped`` by reason, and
    the ``errors`` (at most the first few, each one line)."""

    path: str = ""
    sha256: str = ""
    parser: str = ""
    agent: str = ""
    conversations: ConversationCounts = field(default_factory=ConversationCounts)
    messages: MessageCounts = field(default_factory=MessageCounts)
    skipped: Mapping[str, int] = field(default_factory=dict)
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class IngestTotals(Record):
    """An import's sums: files, conversations new and known (an updated one counts as known), messages
    new and known, what was skipped by reason (files passed over too), and the number of errors."""

    files: int = 0
    conversations_new: int = 0
    conversations_known: int = 0
    messages_new: int = 0
    messages_known: int = 0
    skipped: Mapping[str, int] = field(default_factory=dict)
    errors: int = 0


@dataclass(frozen=True)
class IngestResult(Record):
    """The import receipt: each file's (see :class:`~tapestryd.operations.result_parts.FileReceipt`),
    the ``totals``, and ``failed`` (true only when nothing could be imported: no message new or
    known, and some error)."""

    files: tuple[FileReceipt, ...] = ()
    totals: IngestTotals = field(default_factory=IngestTotals)
    failed: bool = False


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
