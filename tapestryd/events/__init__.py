"""The event log: event types, their codec, and the append-only SQLite store."""

from tapestryd.events.store import AppendResult, EventStore, SourceOffset
from tapestryd.events.types import (
    ConversationTitled,
    DayClosed,
    Event,
    Forgotten,
    ImportFinished,
    ImportReceived,
    MessageRecorded,
    NewEvent,
    NodeSummarized,
    StoredEvent,
    UnknownEvent,
    event_id,
    format_utc,
    parse_utc,
)

__all__ = [
    "AppendResult",
    "ConversationTitled",
    "DayClosed",
    "Event",
    "EventStore",
    "Forgotten",
    "ImportFinished",
    "ImportReceived",
    "MessageRecorded",
    "NewEvent",
    "NodeSummarized",
    "SourceOffset",
    "StoredEvent",
    "UnknownEvent",
    "event_id",
    "format_utc",
    "parse_utc",
]
