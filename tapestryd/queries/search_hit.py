"""A search hit: a message or a summary, where it is, when, its snippet and score."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

__all__ = ["SearchHit"]


@dataclass(frozen=True)
class SearchHit:
    """One match: a message or a summary, where it is, when, its snippet and score.

    ``kind`` is ``message`` or ``summary``; ``key`` is the node key of a summary (``''``
    for a message) and ``level`` its level (``message`` for messages). ``score`` is
    SQLite's ``bm25()`` (lower is better) or 0 for regex and time listings. ``origin`` is the
    machine that captured a message (``''`` for a summary: it may cover several machines).
    """

    kind: str
    id: int
    conversation: str
    message_key: str
    title: str
    agent: str
    role: str
    ts: str
    local_time: str
    snippet: str
    score: float
    key: str = ""
    level: str = "message"
    extra: dict[str, object] = field(default_factory=dict)
    origin: str = ""

    def to_dict(self) -> dict[str, object]:
        """The hit as a JSON-ready dict (a shallow copy of ``extra``), with the source's own ids.

        ``message_uuid`` is the message's id in its source (its ``message_key``; ``''`` for
        a summary) and ``conversation_uuid`` the conversation's (its key without the
        ``agent:`` prefix; ``''`` for a summary of no one conversation), so outside tools
        can join on the ids of the export.
        """
        return ({name: getattr(self, name) for name in _HIT_FIELDS}
                | {"message_uuid": self.message_key if self.kind == "message" else "",
                   "conversation_uuid": self.conversation.partition(":")[2] or self.conversation,
                   "extra": dict(self.extra)})


_HIT_FIELDS = tuple(f.name for f in fields(SearchHit) if f.name != "extra")
