"""Event types: frozen dataclasses named in the past tense, each with a type name and schema.

An event is a fact that happened; it is never changed once stored. A new schema version of
a type is read through an upcaster in :mod:`tapestryd.events.codec`, so old logs replay.

The envelope (:class:`NewEvent` before storing, :class:`StoredEvent` after) carries what
every event has: the idempotency key ``event_id``, when it happened (UTC), the agent label,
the source (file path + byte offset, or export sha256 + conversation/message id) and the
origin (the name of the machine that captured it; sync carries it unchanged).
"""

from __future__ import annotations

import builtins
import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, ClassVar, TypeVar

__all__ = [
    "ConversationTitled",
    "DayClosed",
    "Event",
    "Forgotten",
    "ImportFinished",
    "ImportReceived",
    "MessageRecorded",
    "NewEvent",
    "NodeSummarized",
    "StoredEvent",
    "TITLE_KINDS",
    "UnknownEvent",
    "event_id",
    "format_utc",
    "parse_utc",
]


def event_id(*parts: str) -> str:
    """A stable idempotency key: the first 32 hex digits of sha256 over the parts (128 bits)."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def format_utc(ts: datetime) -> str:
    """``2026-03-04T05:06:07.123456Z``: fixed width, so text order is time order.

    The text ``isoformat(timespec="microseconds")`` gives for the UTC time, built with ``%``
    (about twice as fast: the keyword argument is what costs).
    """
    if ts.tzinfo is not None and ts.tzinfo is not timezone.utc:
        ts = ts.astimezone(timezone.utc)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ" % (ts.year, ts.month, ts.day, ts.hour, ts.minute, ts.second,
                                                    ts.microsecond)


def parse_utc(text: str) -> datetime:
    """Parse an ISO 8601 timestamp (``Z`` or an offset; naive means UTC) into aware UTC.

    Raises ValueError for text that is not ISO 8601, and for a date without a time of day
    (``2024-12-05``): a day is a local period, not an instant (callers read it as one).
    """
    ts = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if len(text) <= 10:
        raise ValueError(f"{text!r} is a date, not an instant")
    return ts.replace(tzinfo=timezone.utc) if ts.tzinfo is None else ts.astimezone(timezone.utc)


@dataclass(frozen=True)
class Event:
    """Base of every event payload."""

    type: ClassVar[str] = ""
    schema: ClassVar[int] = 1


E = TypeVar("E", bound=Event)


@dataclass(frozen=True)
class MessageRecorded(Event):
    """One message (or one streamed part of it) as the user saw it.

    ``conversation`` is a global key (``claude-code:<session>``, ``chatgpt:<id>``,
    ``claude-ai:<uuid>``); ``message`` is the key within it. Parts that share a message key
    (a Claude Code reply streamed over several lines) are joined in log order by the
    messages projection. ``text`` is the verbatim visible text; ``skipped`` counts content
    kinds that are not message text (``thinking``, ``tool_use``, ``image``, ...); ``meta``
    holds source details (``cwd``, ``git_branch``, ``sidechain``, ``attachments``, ...).

    Schema 2: a Claude.ai reply's ``<antThinking>`` spans are in ``meta["thinking"]``, not in
    ``text`` (:mod:`tapestryd.events.thinking` upcasts schema 1).
    """

    type: ClassVar[str] = "MessageRecorded"
    schema: ClassVar[int] = 2
    conversation: str
    message: str
    role: str
    text: str
    timestamp: str
    model: str = ""
    session: str = ""
    skipped: dict[str, int] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ConversationTitled(Event):
    """A conversation got (or changed) its title.

    ``updated`` is the source's last-update time of the conversation (ISO UTC, e.g. a
    ChatGPT ``update_time`` or a Claude.ai ``updated_at``), ``""`` when unknown (events
    written before the field existed decode with ``""``). Of titles with a known time the
    latest wins, whatever the import order.

    ``kind`` says where the title comes from, in rising precedence (:data:`TITLE_KINDS`):
    ``prompt`` (a stand-in made from the first prompt), ``""`` (the export's or session's
    own title, a Claude Code ``summary``; events written before the field existed decode
    with ``""``), ``ai`` (Claude Code's ``ai-title``), ``custom`` (a title the user set,
    Claude Code's ``custom-title``). A title never replaces one of a higher kind.
    """

    type: ClassVar[str] = "ConversationTitled"
    conversation: str
    title: str
    updated: str = ""
    kind: str = ""


TITLE_KINDS = ("prompt", "", "ai", "custom")
"""``ConversationTitled.kind`` values from lowest to highest precedence (an unknown kind ranks as ``""``)."""


@dataclass(frozen=True)
class ImportReceived(Event):
    """An import of one file began: its sha256, path, size (bytes) and parser."""

    type: ClassVar[str] = "ImportReceived"
    sha256: str
    path: str
    size: int
    parser: str


@dataclass(frozen=True)
class ImportFinished(Event):
    """The receipt of one file's import: counts of new, known and skipped items and errors."""

    type: ClassVar[str] = "ImportFinished"
    sha256: str
    path: str
    counts: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DayClosed(Event):
    """A local day closed for an agent (``agent`` empty: for every agent)."""

    type: ClassVar[str] = "DayClosed"
    date: str
    timezone: str
    agent: str = ""


@dataclass(frozen=True)
class NodeSummarized(Event):
    """The summarizer's output for one node, with what it was made from and what it cost.

    ``usage`` holds ``calls``, ``tokens_in`` and ``tokens_out``; ``mode`` is ``context``
    (telescoping context given) or ``catchup`` (built without context).
    """

    type: ClassVar[str] = "NodeSummarized"
    node: str
    level: int
    fingerprint: str
    provider: str
    model: str
    prompt_version: str
    title: str
    text: str
    usage: dict[str, int] = field(default_factory=dict)
    mode: str = "context"
    context_fingerprint: str = ""


@dataclass(frozen=True)
class Forgotten(Event):
    """The user asked to forget: a conversation, everything before an instant, or a regex."""

    type: ClassVar[str] = "Forgotten"
    conversation: str = ""
    before: str = ""
    match: str = ""
    reason: str = ""


@dataclass(frozen=True)
class UnknownEvent(Event):
    """An event of a type this version does not know; kept as raw payload, never dropped."""

    type: ClassVar[str] = "Unknown"
    name: str = ""
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NewEvent:
    """An event ready to append: idempotency key, payload, time (UTC), agent and source.

    ``origin`` is the machine that captured it; ``""`` means this one (the store's
    configured machine). ``recorded_at`` is None for an event recorded now; an event copied
    from another machine's log keeps the time that log recorded it.
    """

    event_id: str
    event: Event
    occurred_at: datetime
    agent: str = ""
    source: str = ""
    origin: str = ""
    recorded_at: datetime | None = None


@dataclass(frozen=True)
class StoredEvent:
    """An event as read back from the log, with its ``seq`` and times as ISO UTC text.

    ``origin`` names the machine that captured it (``[sync] machine`` there).
    """

    seq: int
    event_id: str
    event: Event
    occurred_at: str
    recorded_at: str
    agent: str
    source: str
    origin: str = ""

    @property
    def type(self) -> str:
        """The event's type name."""
        return self.event.type if not isinstance(self.event, UnknownEvent) else self.event.name

    def payload(self, kind: builtins.type[E]) -> E:
        """The event as a ``kind`` (one read with ``types=[kind.type]``); raises TypeError when it is another."""
        if not isinstance(self.event, kind):
            raise TypeError(f"event {self.seq} is a {self.type} event, not {kind.type}")
        return self.event

    def as_new(self) -> NewEvent:
        """This event ready to append to another log: its id, payload, agent, source, origin
        and both times unchanged (its seq is that log's to give)."""
        return NewEvent(self.event_id, self.event, parse_utc(self.occurred_at), self.agent, self.source,
                        self.origin, parse_utc(self.recorded_at))
