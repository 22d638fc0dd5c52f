"""ChatGPT data exports: ``conversations.json`` (also split ``conversations-NNN.json``).

The export is a list of conversations, a ``{"conversations": [...]}`` object holding that
list, or (from the web API) one conversation object
(:func:`~tapestryd.sources.parsers.jsonstream.iter_conversations`).
Each has a ``mapping`` of nodes forming a tree; the branch the user sees is walked from
``current_node`` up the ``parent`` links to the root (format: the export as of 2023–2026,
see ``shared/corpus/SOURCES.md``). When ``current_node`` is missing, the leaf with the
latest message is used; when no node names a parent, every node is taken in time order.

* Kept: every content type that carries user-visible text (``text``,
  ``multimodal_text`` string parts, ``code``, ``execution_output``, ``system_error``, and
  unknown types with text parts).
  Image, audio and file pointers are counted in ``skipped``; attachment names go to
  ``meta["attachments"]``.
* Skipped (counted): hidden messages (``is_visually_hidden_from_conversation``), empty
  ones, reasoning (``thoughts``, ``reasoning_recap`` → ``thinking``), custom instructions
  (``user_editable_context``), memory context, pages the browsing tool scraped
  (``sonic_webpage``, ``tether_browsing_display``, ``tether_quote`` → ``scraped-page``:
  the web's text, not the conversation's), messages off the visible branch
  (``other-branch``) and internal tool calls (``recipient`` other than ``all``; code sent
  to ``python`` is kept, as the user sees it in the analysis block).
* ``create_time`` is epoch seconds (UTC); a null one takes the previous message's time, or
  when no message before it has one, the conversation's ``create_time`` (else its
  ``update_time``, else the next message's); langchain-ai/langchain #23252.

Keys: conversation ``chatgpt:<conversation_id or id>``, message ``message.id`` (else the
node id). Event ids derive from those keys, so a newer export adds only what is new.
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone
from typing import Any, IO, Iterator, NamedTuple

from tapestryd.clock import STORABLE_FROM, STORABLE_UNTIL
from tapestryd.events.types import ConversationTitled, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip, json_kind
from tapestryd.sources.parsers.jsonstream import each_conversation, skips_for

__all__ = ["ChatGPTParser", "visible_branch"]

_SKIPPED_TYPES = {"thoughts": "thinking", "reasoning_recap": "thinking", "user_editable_context": "custom-instructions",
                  "model_editable_context": "memory", "sonic_webpage": "scraped-page",
                  "tether_browsing_display": "scraped-page", "tether_quote": "scraped-page"}
_TEXT_FIELDS = ("text", "result")
_FIRST_EPOCH = datetime.combine(STORABLE_FROM, time(), timezone.utc).timestamp()
_END_EPOCH = datetime.combine(STORABLE_UNTIL + timedelta(days=1), time(), timezone.utc).timestamp()
_SNIFF = (re.compile(rb'"mapping"\s*:\s*\{'), re.compile(rb'"current_node"'), re.compile(rb'"create_time"\s*:\s*[\d.]'),
          re.compile(rb'"content_type"'), re.compile(rb'"conversation_id"'))


class ChatGPTParser:
    """Parser of ChatGPT ``conversations.json`` exports (``--parser chatgpt``)."""

    name = "chatgpt"

    def sniff(self, head: bytes) -> bool:
        """Whether the head holds at least two ChatGPT export markers (mapping, current_node...)."""
        return head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"[", b"{") and sum(
            1 for marker in _SNIFF if marker.search(head)) >= 2

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Items of every conversation in file order; Problems name ``path#conversation``."""
        return each_conversation(stream, origin, _conversation)


def _conversation(conv: dict[str, Any], where: str, origin: Origin) -> Iterator[Item]:
    conv_id = conv.get("conversation_id") or conv.get("id")
    mapping = conv.get("mapping")
    if not isinstance(conv_id, str) or not conv_id:
        yield Problem(where, "conversation has no id or conversation_id")
        return
    where = f"{origin.path}#{conv_id}"
    if not isinstance(mapping, dict):
        yield Problem(where, "conversation has no mapping of messages")
        return
    yield from _messages(conv, conv_id, mapping, where, origin)


def _messages(conv: dict[str, Any], conv_id: str, mapping: dict[str, Any], where: str,
              origin: Origin) -> Iterator[Item]:
    branch = visible_branch(mapping, conv.get("current_node"))
    on_branch = set(branch)
    for node_id, node in mapping.items():
        if node_id not in on_branch and isinstance(node, dict) and node.get("message"):
            yield Skip("other-branch", where)
    times = _branch_times(mapping, branch, conv)
    recorded = 0
    for node_id, ts in zip(branch, times):
        for out in _node(node_id, mapping[node_id], ts, conv_id, where, origin):
            recorded += isinstance(out, NewEvent)
            yield out
    title = conv.get("title")
    if recorded and isinstance(title, str) and title.strip():
        first = next(t for t in times if t is not None)
        updated = _epoch(conv.get("update_time"))
        stamp = format_utc(datetime.fromtimestamp(updated, timezone.utc)) if updated is not None else ""
        yield NewEvent(event_id("chatgpt", conv_id, "title", title),
                       ConversationTitled(f"chatgpt:{conv_id}", title, stamp),
                       first, origin.agent, f"{origin.sha256}#{conv_id}")


def visible_branch(mapping: dict[str, Any], current: Any) -> list[str]:
    """Node ids from the root to the visible leaf (``current`` if it is a node, else a fallback leaf)."""
    parents = {k: n.get("parent") for k, n in mapping.items() if isinstance(n, dict)}
    if not any(isinstance(p, str) and p in parents for p in parents.values()):
        return sorted(parents, key=lambda k: _epoch(_message_of(mapping[k]).get("create_time")) or 0.0)
    node: Any = current if isinstance(current, str) and current in parents else _latest_leaf(mapping, parents)
    chain: list[str] = []
    seen: set[str] = set()
    while isinstance(node, str) and node in parents and node not in seen:
        chain.append(node)
        seen.add(node)
        node = parents[node]
    chain.reverse()
    return chain


def _latest_leaf(mapping: dict[str, Any], parents: dict[str, Any]) -> str:
    named = {p for p in parents.values() if isinstance(p, str)}
    leaves = [k for k in parents if k not in named] or list(parents)
    return max(reversed(leaves), key=lambda k: _epoch(_message_of(mapping[k]).get("create_time")) or 0.0)


def _message_of(node: Any) -> dict[str, Any]:
    message = node.get("message") if isinstance(node, dict) else None
    return message if isinstance(message, dict) else {}


def _branch_times(mapping: dict[str, Any], branch: list[str], conv: dict[str, Any]) -> list[datetime | None]:
    """Each branch node's time (UTC); nulls take the previous, else the conversation's, else the next."""
    raw = [_epoch(_message_of(mapping[k]).get("create_time")) for k in branch]
    known = [t for t in raw if t is not None]
    fallback = _epoch(conv.get("create_time")) or _epoch(conv.get("update_time")) or (known[0] if known else None)
    filled: list[float | None] = []
    for t in raw:
        filled.append(t if t is not None else (filled[-1] if filled else fallback))
    return [datetime.fromtimestamp(t, timezone.utc) if t is not None else None for t in filled]


class _Message(NamedTuple):
    """What the parser reads of one export message, type-checked once (a tuple: cheap to build)."""

    key: str
    role: str
    author: dict[str, Any]
    content: dict[str, Any]
    metadata: dict[str, Any]
    recipient: Any


def _node(node_id: str, node: Any, ts: datetime | None, conv_id: str, where: str,
          origin: Origin) -> Iterator[Item]:
    raw = node.get("message") if isinstance(node, dict) else None
    if raw is None:
        return
    msg = _read(node_id, raw)
    if isinstance(raw, dict) and _unstorable(raw.get("create_time")):
        yield Problem(f"{where}/{node_id}", f"create_time {raw['create_time']!r} is outside the dates tapestryd "
                                            f"stores, {STORABLE_FROM} to {STORABLE_UNTIL} UTC")
        return
    if isinstance(msg, str) or ts is None:
        yield Problem(f"{where}/{node_id}", msg if isinstance(msg, str) else
                      "no create_time on this message, its neighbours or the conversation")
        return
    skip = _skip_reason(msg)
    if skip:
        yield Skip(skip, f"{where}/{node_id}")
        return
    text, kinds = _text(msg.content)
    if not text.strip():
        yield from skips_for(kinds, f"{where}/{node_id}")
        return
    yield _event(msg, text, kinds, ts, conv_id, origin)


def _read(node_id: str, msg: Any) -> _Message | str:
    """The message's parts, or what is wrong with it."""
    if not isinstance(msg, dict):
        return f"message is {json_kind(msg)}, not an object"
    author = msg.get("author")
    if not isinstance(author, dict) or not isinstance(author.get("role"), str):
        return "message has no author role"
    content = msg.get("content")
    if content is not None and not isinstance(content, dict):
        return f"content is {json_kind(content)}, not an object"
    key = msg.get("id")
    metadata = msg.get("metadata")
    return _Message(key if isinstance(key, str) and key else node_id, author["role"], author, content or {},
                    metadata if isinstance(metadata, dict) else {}, msg.get("recipient"))


def _skip_reason(msg: _Message) -> str:
    ctype = msg.content.get("content_type")
    if msg.metadata.get("is_visually_hidden_from_conversation") is True:
        return "hidden"
    if isinstance(ctype, str) and ctype in _SKIPPED_TYPES:
        return _SKIPPED_TYPES[ctype]
    if msg.recipient not in (None, "", "all") and not (ctype == "code" and str(msg.recipient).startswith("python")):
        return "tool-call"
    return "" if msg.content else "empty"


def _text(content: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """Visible text of a content object (parts, then text/result fields) and skipped kinds."""
    pieces: list[str] = []
    kinds: dict[str, int] = {}
    parts = content.get("parts")
    for part in parts if isinstance(parts, list) else ():
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            _part(part, pieces, kinds)
    pieces.extend(content[f] for f in _TEXT_FIELDS if isinstance(content.get(f), str))
    ctype = content.get("content_type")
    if ctype in ("image", "image_asset_pointer") and not any(p.strip() for p in pieces):
        kinds["image"] = kinds.get("image", 0) + 1
    return "\n\n".join(p for p in pieces if p.strip()), kinds


def _part(part: dict[str, Any], pieces: list[str], kinds: dict[str, int]) -> None:
    if isinstance(part.get("text"), str):
        pieces.append(part["text"])
        return
    kind = str(part.get("content_type") or "object")
    if kind.endswith("asset_pointer"):
        kind = "image" if "image" in kind else "audio" if "audio" in kind else "file"
    kinds[kind] = kinds.get(kind, 0) + 1


def _event(msg: _Message, text: str, kinds: dict[str, int], ts: datetime, conv_id: str, origin: Origin) -> NewEvent:
    payload = MessageRecorded(
        conversation=f"chatgpt:{conv_id}", message=msg.key, role=msg.role, text=text, timestamp=format_utc(ts),
        model=str(msg.metadata.get("model_slug") or ""), session=conv_id, skipped=kinds, meta=_meta(msg),
    )
    return NewEvent(event_id("chatgpt", conv_id, msg.key), payload, ts, origin.agent,
                    f"{origin.sha256}#{conv_id}/{msg.key}")


def _meta(msg: _Message) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    ctype = msg.content.get("content_type")
    if isinstance(ctype, str) and ctype not in ("text", "multimodal_text"):
        meta["content_type"] = ctype
    name = msg.author.get("name")
    if msg.role == "tool" and isinstance(name, str) and name:
        meta["tool"] = name
    attachments = msg.metadata.get("attachments")
    if isinstance(attachments, list):
        names = [str(a.get("name") or a.get("id") or "") for a in attachments if isinstance(a, dict)]
        if any(names):
            meta["attachments"] = [n for n in names if n]
    return meta


def _epoch(value: Any) -> float | None:
    """Epoch seconds as a float within the dates tapestryd stores (:data:`tapestryd.clock.STORABLE_FROM`
    … ``STORABLE_UNTIL``), else None (a null, a string, or year 1 or 9999 are not usable times)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if _FIRST_EPOCH <= value < _END_EPOCH else None


def _unstorable(value: Any) -> bool:
    """Whether ``value`` is a number of epoch seconds outside the dates tapestryd stores."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and _epoch(value) is None
