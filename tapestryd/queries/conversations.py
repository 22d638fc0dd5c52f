"""Conversation listings, one conversation in full, and store-wide statistics."""

from __future__ import annotations

from typing import Any

from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.projections.messages_read import (CONVERSATION_COLUMNS, agent_totals, conversation_keys_ending,
                                                 conversation_messages, conversation_of, conversations_by_ref,
                                                 messages_with_titles, neighbour_ids, recent_conversations,
                                                 role_counts)
from tapestryd.queries.reader import Reader

__all__ = ["MAX_WINDOW", "ambiguity", "conversation_candidates", "find_conversation", "list_conversations",
           "messages_around", "resolve_conversation", "show_conversation", "stats"]

MAX_WINDOW = 50
"""Most neighbours :func:`messages_around` gives on each side of a message."""

def list_conversations(reader: Reader, *, agent: str = "", limit: int = 50) -> list[dict[str, Any]]:
    """The most recently active conversations first, at most ``limit``."""
    rows = recent_conversations(reader.conn, agent=agent, limit=limit)
    return [dict(zip(CONVERSATION_COLUMNS, row)) for row in rows]


def find_conversation(reader: Reader, ref: str) -> dict[str, Any] | None:
    """The conversation whose key is ``ref``, or whose key ends with ``ref`` (unique), or None (also for '')."""
    if not ref.strip():
        return None
    rows = conversations_by_ref(reader.conn, ref)
    exact = [r for r in rows if r[0] == ref]
    chosen = exact or (rows if len(rows) == 1 else [])
    return dict(zip(CONVERSATION_COLUMNS, chosen[0])) if chosen else None


def conversation_candidates(reader: Reader, ref: str, limit: int = 6) -> list[str]:
    """Up to ``limit`` conversation keys ending with ``ref``, in key order (to name an ambiguous end)."""
    return conversation_keys_ending(reader.conn, ref, limit)


def ambiguity(reader: Reader, ref: str) -> str:
    """A message naming up to 5 keys when ``ref`` ends several conversation keys, else ``''``."""
    keys = conversation_candidates(reader, ref) if ref.strip() else []
    if len(keys) < 2:
        return ""
    shown = ", ".join(keys[:5]) + (", …" if len(keys) > 5 else "")
    return f"{ref!r} is ambiguous: it ends several conversation keys ({shown}); give more of the key"


def resolve_conversation(reader: Reader, ref: str, flag: str = "--conversation") -> str:
    """The full key ``ref`` names: the key itself or any unique end of one, as ``show`` takes it.

    Raises TapestryError when ``ref`` is empty, ends several keys (naming up to 5) or ends none.
    """
    if not ref.strip():
        raise TapestryError(f"{flag} is empty: give a conversation key or a unique end of one"
                            " (see `tapestryctl conversations`)")
    found = find_conversation(reader, ref)
    if found is not None:
        return str(found["key"])
    why = ambiguity(reader, ref) or f"no conversation matches {ref!r}"
    raise TapestryError(f"{why} (see `tapestryctl conversations`)")


def show_conversation(reader: Reader, ref: str) -> dict[str, Any] | None:
    """One conversation with every message in log order (timestamps UTC and local), or None."""
    conv = find_conversation(reader, ref)
    if conv is None:
        return None
    rows = conversation_messages(reader.conn, conv["key"])
    conv["messages"] = [
        {"id": r[0], "message_key": r[1], "role": r[2], "ts": r[3],
         "local_time": parse_utc(r[3]).astimezone(reader.tz).isoformat(timespec="seconds"),
         "text": r[4], "model": r[5], "sidechain": bool(r[6])}
        for r in rows
    ]
    return conv


def messages_around(reader: Reader, ids: list[int], *, before: int = 0, after: int = 0) -> dict[str, Any]:
    """Messages ``ids`` with up to ``before`` / ``after`` neighbours each in their conversation.

    Returns ``{"messages": [...], "missing": [ids not stored]}``: every message once, grouped
    by conversation in the order the ids first name them, in log order within one; each has
    id, conversation, title, agent, role, ts (UTC), local_time, text and ``asked`` (True for
    the ids themselves). ``before`` and ``after`` are capped at :data:`MAX_WINDOW`.
    """
    before, after = max(0, min(before, MAX_WINDOW)), max(0, min(after, MAX_WINDOW))
    chosen: dict[str, set[int]] = {}
    missing = []
    for mid in dict.fromkeys(ids):
        conversation = conversation_of(reader.conn, mid)
        if conversation is None:
            missing.append(mid)
            continue
        earlier, later = neighbour_ids(reader.conn, conversation, mid, before, after)
        chosen.setdefault(conversation, set()).update([mid, *earlier, *later])
    messages = [m for window in chosen.values() for m in _messages(reader, sorted(window))]
    asked = set(ids)
    return {"messages": [{**m, "asked": m["id"] in asked} for m in messages], "missing": missing}


def _messages(reader: Reader, ids: list[int]) -> list[dict[str, Any]]:
    rows = messages_with_titles(reader.conn, ids)
    return [{"id": r[0], "conversation": r[1], "title": r[2] or "", "agent": r[3], "role": r[4], "ts": r[5],
             "local_time": parse_utc(r[5]).astimezone(reader.tz).isoformat(timespec="seconds"), "text": r[6]}
            for r in rows]


def stats(reader: Reader) -> dict[str, Any]:
    """Counts of conversations and messages per agent and role, and the covered time span."""
    per_agent, roles = agent_totals(reader.conn), role_counts(reader.conn)
    agents = {a: {"conversations": c, "messages": m or 0, "first": f, "last": last} for a, c, m, f, last in per_agent}
    return {
        "conversations": sum(a["conversations"] for a in agents.values()),
        "messages": sum(a["messages"] for a in agents.values()),
        "agents": agents,
        "roles": roles,
    }
