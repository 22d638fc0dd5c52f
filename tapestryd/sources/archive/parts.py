"""Which message an archived line is a part of, for the formats that write one message over several lines.

A forget line rule (:mod:`tapestryd.sources.archive.lines`) that covers one part of such a
message removes every part (:mod:`tapestryd.sources.archive.forget`), and the message's key is
kept (``forgotten_messages`` in :mod:`tapestryd.sources.archive.store`) so parts captured later go
too, as the messages projection's ``forgotten_keys`` does for the stored message. The key of a
line is the field its parser makes the message key from:

* ``claude-code``: ``message.id`` of a ``user`` / ``assistant`` record (the API's ``msg_…``): Claude
  Code writes one assistant message as one record per content block (text, thinking, tool_use…),
  streamed over time, and :mod:`tapestryd.sources.parsers.claude_code` joins them by this id. A
  record without it (a user turn, keyed by its ``uuid``) is a message of one line.
* ``gemini``: the ``id`` of a message record: Gemini CLI appends a record again, whole, each time it
  changes (:mod:`tapestryd.sources.parsers.gemini`), so the versions of one message are several
  lines. A ``$set`` line (or the header) whose ``messages`` holds a copy of every record (written at a
  session's start, a compression, a rollback) is a part of none: a rule covering it does not reach
  each message it holds, but it holds copies of them (:func:`messages_held`), so it goes with any of
  them that is forgotten.
* ``codex`` (and any other source): none. A rollout writes each message as one ``response_item``
  line (its key is the segment and an ordinal, not a field of the line); reasoning and tool calls
  are items of their own, not parts of a message.

The keys are ids the tool generates per message (``msg_…`` from the Anthropic API, a random UUID from
Gemini CLI), so they are kept per source, not per conversation: a forked or resumed session's copy of
a forgotten message's lines goes too.
"""

from __future__ import annotations

from typing import Any

__all__ = ["message_key", "messages_held"]


def message_key(source: str, record: Any) -> str:
    """The message key of one parsed JSON line of ``source`` (a parser name), or "" when the line is not a part
    of a message written over several lines (see the module docstring)."""
    if not isinstance(record, dict):
        return ""
    if source == "claude-code":
        message = record.get("message")
        if record.get("type") in ("user", "assistant") and isinstance(message, dict):
            key = message.get("id")
            return key if isinstance(key, str) else ""
    elif source == "gemini":
        key = record.get("id")
        if isinstance(key, str) and "$set" not in record and "$rewindTo" not in record:
            return key
    return ""


def messages_held(source: str, record: Any) -> tuple[str, ...]:
    """The keys of every message one parsed JSON line of ``source`` holds a part or a copy of: its own
    :func:`message_key`, and for a Gemini CLI ``$set`` or header line the ids of the records in its ``messages``
    (see the module docstring); ``()`` for none."""
    own = message_key(source, record)
    if own:
        return (own,)
    if source != "gemini" or not isinstance(record, dict) or "$rewindTo" in record:
        return ()
    body = record["$set"] if isinstance(record.get("$set"), dict) else record
    copies = body.get("messages")
    if not isinstance(copies, list):
        return ()
    return tuple(item["id"] for item in copies if isinstance(item, dict) and isinstance(item.get("id"), str))
