"""Privacy: what may leave the event log, and what never enters it.

* :func:`outbound` is the one filter for every text that leaves the log (search
  snippets, context, hook output, summaries and every provider request, web pages):
  private spans stripped, then secrets replaced by ``[secret:<kind>]``.
* :func:`redact` alone is what ``redact_at_rest = true`` applies before storing
  (:func:`redact_at_rest`): private spans stay in the log, it is the user's machine.
* :func:`has_exclusion_marker` and :class:`Exclusions` decide what is never imported.

This package imports only config, errors and events, so every layer may use it.
"""

from __future__ import annotations

import dataclasses

from tapestryd.events.types import ConversationTitled, Forgotten, MessageRecorded, NewEvent, event_id
from tapestryd.privacy.exclusions import Exclusions, encode_project_dir
from tapestryd.privacy.secrets import KINDS, Finding, find_secrets, placeholder, redact
from tapestryd.privacy.spans import EXCLUSION_MARKERS, has_exclusion_marker, has_private, strip_private

__all__ = [
    "EXCLUSION_MARKERS",
    "KINDS",
    "Exclusions",
    "Finding",
    "encode_project_dir",
    "find_secrets",
    "forgotten_id",
    "has_exclusion_marker",
    "has_private",
    "outbound",
    "placeholder",
    "redact",
    "redact_at_rest",
    "strip_private",
]


def outbound(text: str) -> str:
    """``text`` as it may leave the log: private spans stripped, then secrets redacted."""
    return redact(strip_private(text))


def forgotten_id(conversation: str = "", before: str = "", match: str = "") -> str:
    """The event id of the Forgotten event for one rule: the same rule twice is one event.

    ``tapestryctl forget`` and the sources (a conversation with an exclusion marker) use
    it, so a source can tell from the log alone that a conversation is forgotten.
    """
    return event_id(Forgotten.type, conversation, before, match)


def redact_at_rest(new: NewEvent) -> NewEvent:
    """``new`` with secrets redacted from a message's text or a conversation's title.

    Other events are returned as they are. Private spans are kept (see the module doc).
    """
    event = new.event
    if isinstance(event, MessageRecorded):
        cleaned = redact(event.text)
        if cleaned == event.text:
            return new
        return dataclasses.replace(new, event=dataclasses.replace(event, text=cleaned))
    if isinstance(event, ConversationTitled):
        title = redact(event.title)
        return new if title == event.title else dataclasses.replace(new, event=dataclasses.replace(event, title=title))
    return new
