"""The privacy screen: what a source passes through before its events are appended.

Every source (``tapestryctl ingest``, the inbox, the web upload, the Claude Code tailer)
screens its batches with one :class:`Screen`:

* a conversation holding an exclusion marker (:func:`tapestryd.privacy.has_exclusion_marker`)
  is recorded only as skipped (reason ``exclusion-marker``): none of its messages or
  titles is stored, and a ``Forgotten`` event for it is appended, so later lines of a
  live session, or a later import, stay out too (``forgotten-conversation``) and any part
  stored before the marker appeared leaves the projections;
* agents and project paths matching ``[privacy] exclude_agents`` / ``exclude_projects``
  are skipped (``excluded-agent``, ``excluded-project``; the project is a message's
  ``cwd``); so are the titles of a conversation one of whose messages this screen found in
  an excluded project, in the same batch or an earlier one (a Claude Code session's title
  may be its first prompt);
* with ``redact_at_rest = true`` secrets are replaced before storing
  (:func:`tapestryd.privacy.redact_at_rest`).

Events that belong to no conversation (import receipts, day closes) pass unchanged. A
file whose bytes hold a marker is read twice by ingest: :meth:`Screen.learn` first notes
which conversations hold one, so even their first batch is kept out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, IO, Iterable

from tapestryd.config import PrivacySettings
from tapestryd.events.store import EventStore
from tapestryd.events.types import ConversationTitled, Forgotten, MessageRecorded, NewEvent
from tapestryd.privacy import Exclusions, forgotten_id, has_exclusion_marker, redact_at_rest

__all__ = ["Screen", "Screened", "holds_marker"]

_MARKER_WORDS = (b"instructions-to-episodic-memory", b"tapestry:ignore")  # lower case
_OVERLAP = 64  # bytes kept between chunks so a marker cut by a chunk edge is still seen


def holds_marker(open_stream: Callable[[], IO[bytes]], chunk: int = 1 << 20) -> bool:
    """Whether the raw bytes hold a marker's words in any ASCII case (JSON escapes of ``<`` and ``>`` included).

    Each chunk is lowercased and searched with plain ``in`` (about ten times faster than
    one case-insensitive regex over the same bytes).
    """
    tail = b""
    with open_stream() as fh:
        while data := fh.read(chunk):
            lowered = (tail + data).lower()
            if any(word in lowered for word in _MARKER_WORDS):
                return True
            tail = data[-_OVERLAP:]
    return False


@dataclass
class Screened:
    """The events to append (Forgotten events of newly marked conversations included) and skip counts."""

    events: list[NewEvent]
    skipped: Counter[str] = field(default_factory=Counter)


def _conversation(new: NewEvent) -> str:
    event = new.event
    return event.conversation if isinstance(event, (MessageRecorded, ConversationTitled)) else ""


def _marked(new: NewEvent) -> bool:
    event = new.event
    if isinstance(event, MessageRecorded):
        return has_exclusion_marker(event.text)
    return isinstance(event, ConversationTitled) and has_exclusion_marker(event.title)


class Screen:
    """Screens event batches of one source against ``privacy`` settings and the log ``store``."""

    def __init__(self, store: EventStore, privacy: PrivacySettings) -> None:
        self.store = store
        self.exclusions = Exclusions.from_settings(privacy)
        self.redact = privacy.redact_at_rest
        self.marked: set[str] = set()
        self._forgotten: set[str] = set()
        self._not_forgotten: set[str] = set()  # looked up during the current batch only
        self._agents: dict[str, bool] = {}  # agent label -> excluded
        self._excluded: set[str] = set()  # conversations with a message in an excluded project

    def learn(self, events: Iterable[object]) -> None:
        """Note the conversations of ``events`` (a first pass over a file) that hold a marker."""
        for item in events:
            if isinstance(item, NewEvent) and _marked(item):
                self.marked.add(_conversation(item))

    def screen(self, batch: list[NewEvent]) -> Screened:
        """The batch as it may be stored (see the module docstring)."""
        self.learn(batch)
        if self.exclusions.projects:
            self._excluded.update(_conversation(new) for new in batch if self._in_excluded_project(new))
        self._not_forgotten.clear()
        out = Screened([])
        marked_now: dict[str, NewEvent] = {}
        for new in batch:
            reason = self._reason(new)
            if not reason:
                out.events.append(redact_at_rest(new) if self.redact else new)
                continue
            if isinstance(new.event, MessageRecorded):
                out.skipped[reason] += 1
            if reason == "exclusion-marker":
                marked_now.setdefault(_conversation(new), new)
        out.events.extend(self._forget(conv, new) for conv, new in marked_now.items()
                          if not self.store.contains(forgotten_id(conv)))
        return out

    def _reason(self, new: NewEvent) -> str:
        conv = _conversation(new)
        if not conv:
            return ""
        if self._excludes_agent(new.agent):
            return "excluded-agent"
        if self.exclusions.projects and (self._in_excluded_project(new) or conv in self._excluded
                                         and isinstance(new.event, ConversationTitled)):
            return "excluded-project"
        if conv in self.marked:
            return "exclusion-marker"
        return "forgotten-conversation" if self._is_forgotten(conv) else ""

    def _in_excluded_project(self, new: NewEvent) -> bool:
        """Whether ``new`` is a message whose ``cwd`` is in an excluded project."""
        event = new.event
        return isinstance(event, MessageRecorded) and self.exclusions.excludes_project(str(event.meta.get("cwd") or ""))

    def _excludes_agent(self, agent: str) -> bool:
        """``exclusions.excludes_agent``, matched once per agent label (a batch has one or two)."""
        excluded = self._agents.get(agent)
        if excluded is None:
            excluded = self._agents[agent] = self.exclusions.excludes_agent(agent)
        return excluded

    def _is_forgotten(self, conv: str) -> bool:
        if conv in self._forgotten or conv in self._not_forgotten:
            return conv in self._forgotten
        (self._forgotten if self.store.contains(forgotten_id(conv)) else self._not_forgotten).add(conv)
        return conv in self._forgotten

    @staticmethod
    def _forget(conv: str, new: NewEvent) -> NewEvent:
        event = Forgotten(conversation=conv, reason="exclusion-marker")
        return NewEvent(forgotten_id(conv), event, datetime.now(timezone.utc), new.agent, new.source)
