"""Claude.ai "Export data" ``conversations.json`` (also one conversation from the web API).

Each conversation has ``uuid``, ``name`` and ``chat_messages`` (format: exports of
2024–2025, see ``shared/corpus/SOURCES.md``). Messages are sorted by ``created_at``
(stable: ties keep array order), because exports do not always list them in time order.

* ``sender`` ``human`` → ``user``, ``assistant`` → ``assistant``.
* Text comes from the ``content`` blocks (``text``, ``voice_note`` transcripts, unknown
  blocks with a text field); when ``content`` is missing, empty, a string or holds only
  empty text blocks, the message's ``text`` field is used.
* ``thinking`` blocks are skipped and counted; ``<antThinking>…</antThinking>`` spans in a
  reply's text are thinking too: moved to ``meta["thinking"]`` and counted
  (:mod:`tapestryd.events.thinking`); ``tool_use`` / ``tool_result`` are counted (tool use
  noted in ``skipped``); ``files`` are noted in ``meta["files"]``.
* A message holding only files or images (no text, no extracted attachment text) is a
  message whose text names them, ``[image: NAME]`` / ``[file: NAME]`` one a line, not
  dropped (Superkikim/nexus-ai-chat-importer #76).
* An attachment's ``extracted_content`` is kept as an attachment part: a second
  MessageRecorded with the same message key, ``[attachment: NAME]`` then the text, which
  the messages projection joins to the message.
* ``projects.json``, ``users.json`` and ``memories.json`` of the same export are not
  conversations; :mod:`tapestryd.sources.parsers.detect` recognises and ignores them.

Keys: conversation ``claude-ai:<uuid>``, message its ``uuid``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, IO, Iterator

from tapestryd.clock import UnsupportedDateError, check_storable
from tapestryd.events.thinking import split_thinking
from tapestryd.events.types import ConversationTitled, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip, json_kind
from tapestryd.sources.parsers.jsonstream import each_conversation, parse_iso, skips_for

__all__ = ["ClaudeAIParser"]

_ROLES = {"human": "user", "assistant": "assistant"}
_SNIFF = (re.compile(rb'"chat_messages"'), re.compile(rb'"sender"\s*:\s*"(human|assistant)"'),
          re.compile(rb'"uuid"\s*:\s*"'), re.compile(rb'"created_at"\s*:\s*"'), re.compile(rb'"name"\s*:\s*"'))


class _BadMessage(Exception):
    """A message that cannot become an event; its text goes into a Problem."""


class ClaudeAIParser:
    """Parser of Claude.ai ``conversations.json`` exports (``--parser claude``)."""

    name = "claude"

    def sniff(self, head: bytes) -> bool:
        """Whether the head names ``chat_messages``, or a human/assistant sender with uuids and ISO times."""
        if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (b"[", b"{"):
            return False
        hits = [bool(marker.search(head)) for marker in _SNIFF]
        return hits[0] or (hits[1] and sum(hits) >= 3)

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Items of every conversation in file order; Problems name ``path#uuid/message``."""
        return each_conversation(stream, origin, _conversation)


def _conversation(conv: dict[str, Any], where: str, origin: Origin) -> Iterator[Item]:
    uuid = conv.get("uuid")
    if not isinstance(uuid, str) or not uuid:
        yield Problem(where, "conversation has no uuid")
        return
    where = f"{origin.path}#{uuid}"
    messages = conv.get("chat_messages")
    if not isinstance(messages, list):
        yield Problem(where, "conversation has no chat_messages list")
        return
    if not messages:
        yield Skip("empty-conversation", where)
        return
    yield from _messages(conv, uuid, messages, where, origin)


def _messages(conv: dict[str, Any], uuid: str, messages: list[Any], where: str, origin: Origin) -> Iterator[Item]:
    fallback = parse_iso(conv.get("created_at")) or parse_iso(conv.get("updated_at"))
    timed: list[tuple[datetime, int, dict[str, Any]]] = []
    first: dict[str, tuple[int, dict[str, Any]]] = {}  # each uuid's first message: its index and itself
    for index, msg in enumerate(messages):
        try:
            ts = _checked_time(msg, fallback)
        except _BadMessage as exc:
            yield Problem(_where_message(where, msg, index), str(exc))
            continue
        if msg["uuid"] in first:  # its event id is the first's: the log would keep the first alone, silently
            yield _repeated(msg, index, *first[msg["uuid"]], _where_message(where, msg, index))
            continue
        first[msg["uuid"]] = (index, msg)
        timed.append((ts, index, msg))
    timed.sort(key=lambda t: (t[0], t[1]))
    recorded = 0
    for ts, index, msg in timed:
        for out in _message(msg, ts, uuid, conv, _where_message(where, msg, index), origin):
            recorded += isinstance(out, NewEvent)
            yield out
    name = conv.get("name")
    if recorded and isinstance(name, str) and name.strip():
        updated = parse_iso(conv.get("updated_at"))
        yield NewEvent(event_id("claude-ai", uuid, "title", name),
                       ConversationTitled(f"claude-ai:{uuid}", name, format_utc(updated) if updated else ""),
                       fallback or timed[0][0], origin.agent, f"{origin.sha256}#{uuid}")


def _repeated(msg: dict[str, Any], index: int, first_index: int, first: dict[str, Any], where: str) -> Item:
    """A message whose uuid an earlier one of its conversation has: a Skip (``repeated-uuid``) when it says the
    same, else a Problem naming both (only the first is stored)."""
    if all(msg.get(k) == first.get(k) for k in ("sender", "text", "content")):
        return Skip("repeated-uuid", where)
    return Problem(where, f"message {index + 1} has the uuid of message {first_index + 1} but other content: only "
                          f"message {first_index + 1} is stored")


def _where_message(where: str, msg: Any, index: int) -> str:
    key = msg.get("uuid") if isinstance(msg, dict) else None
    return f"{where}/{key}" if isinstance(key, str) and key else f"{where}/message {index + 1}"


def _checked_time(msg: Any, fallback: datetime | None) -> datetime:
    """The message's created_at (else the conversation's); raises _BadMessage for a bad message."""
    if not isinstance(msg, dict):
        raise _BadMessage(f"message is {json_kind(msg)}, not an object")
    if not isinstance(msg.get("uuid"), str) or not msg["uuid"]:
        raise _BadMessage("message has no uuid")
    if not isinstance(msg.get("sender"), str) or msg["sender"] not in _ROLES:
        sender = msg.get("sender")
        said = "missing" if "sender" not in msg else repr(sender) if isinstance(sender, str) else json_kind(sender)
        raise _BadMessage(f"sender is {said}; expected 'human' or 'assistant'")
    own = parse_iso(msg.get("created_at"))
    ts = own or fallback
    if ts is None:
        raise _BadMessage(f"created_at {msg.get('created_at')!r} is not ISO 8601")
    try:
        check_storable(ts, f"created_at {msg['created_at']!r}" if own else "the conversation's created_at")
    except UnsupportedDateError as exc:
        raise _BadMessage(exc.message) from exc
    return ts


def _message(msg: dict[str, Any], ts: datetime, uuid: str, conv: dict[str, Any], where: str,
             origin: Origin) -> Iterator[Item]:
    try:
        text, kinds = _text(msg)
    except _BadMessage as exc:
        yield Problem(where, str(exc))
        return
    files = _file_names(msg.get("files"))
    if files:
        kinds["file"] = kinds.get("file", 0) + len(files)
    meta: dict[str, Any] = {"files": files} if files else {}
    if msg["sender"] == "assistant":
        text, thoughts = split_thinking(text)
        if thoughts:
            kinds["thinking"] = kinds.get("thinking", 0) + len(thoughts)
            meta["thinking"] = thoughts
    parts = _attachments(msg.get("attachments"))
    if not text.strip() and not parts:
        text = _placeholder(msg)
    if not text.strip() and not parts:
        yield from skips_for(kinds, where)
        return
    base = MessageRecorded(
        conversation=f"claude-ai:{uuid}", message=msg["uuid"], role=_ROLES[msg["sender"]], text=text,
        timestamp=format_utc(ts), model=str(conv.get("model") or "") if msg["sender"] == "assistant" else "",
        session=uuid, skipped=kinds, meta=meta,
    )
    source = f"{origin.sha256}#{uuid}/{msg['uuid']}"
    if text.strip():
        yield NewEvent(event_id("claude-ai", uuid, msg["uuid"]), base, ts, origin.agent, source)
    for index, (name, content) in enumerate(parts):
        part = MessageRecorded(base.conversation, base.message, base.role, f"[attachment: {name}]\n{content}",
                               base.timestamp, session=uuid, meta={"part": "attachment", "file_name": name})
        yield NewEvent(event_id("claude-ai", uuid, msg["uuid"], "attachment", str(index)), part, ts, origin.agent,
                       source)


def _text(msg: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """The message's visible text and skipped kinds; raises _BadMessage for a malformed block."""
    content = msg.get("content")
    texts: list[str] = []
    kinds: dict[str, int] = {}
    if isinstance(content, list):
        for index, block in enumerate(content):
            _block(block, index, texts, kinds)
    elif isinstance(content, str):
        texts.append(content)
    elif content is not None:
        raise _BadMessage(f"content is {json_kind(content)}, not a list of blocks")
    fallback = msg.get("text")
    if not any(t.strip() for t in texts) and not kinds and isinstance(fallback, str):
        texts = [fallback]
    return "\n\n".join(t for t in texts if t.strip()), kinds


def _block(block: Any, index: int, texts: list[str], kinds: dict[str, int]) -> None:
    if not isinstance(block, dict):
        raise _BadMessage(f"content block {index} is {json_kind(block)}, not an object")
    kind = block.get("type")
    text = block.get("text")
    if kind == "voice_note":
        text = block.get("transcript") if isinstance(block.get("transcript"), str) else text
    if text is not None and not isinstance(text, str):
        raise _BadMessage(f"content block {index}: text is {json_kind(text)}, not a string")
    if kind in ("text", "voice_note") or (text and kind not in ("thinking", "tool_use", "tool_result")):
        if text:
            texts.append(text)
        return
    name = kind if isinstance(kind, str) and kind else "unknown"
    kinds[name] = kinds.get(name, 0) + 1


def _placeholder(msg: dict[str, Any]) -> str:
    """``[image: NAME]`` / ``[file: NAME]`` lines for a message's files, attachments and image blocks (``""``: none)."""
    lines = [f"[{_file_kind(f)}: {name}]" for f, name in zip(_listed(msg.get("files")), _file_names(msg.get("files")))]
    lines += [f"[file: {a.get('file_name') or '(unnamed)'}]" for a in _listed(msg.get("attachments"))
              if isinstance(a, dict)]
    lines += ["[image]" for b in _listed(msg.get("content")) if isinstance(b, dict) and b.get("type") == "image"]
    return "\n".join(lines)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _file_kind(entry: Any) -> str:
    """``image`` for a file the export marks as one (``file_kind``, or an image name), else ``file``."""
    if isinstance(entry, dict):
        kind = str(entry.get("file_kind") or entry.get("file_type") or "")
        name = str(entry.get("file_name") or "")
        if kind.startswith("image") or name.lower().endswith((".png", ".jpg", ".jpeg", ".gif", ".webp", ".heic")):
            return "image"
    return "file"


def _file_names(files: Any) -> list[str]:
    if not isinstance(files, list):
        return []
    names = (f if isinstance(f, str) else f.get("file_name") if isinstance(f, dict) else None for f in files)
    return [n if isinstance(n, str) and n else "(unnamed)" for n in names]


def _attachments(attachments: Any) -> list[tuple[str, str]]:
    """``(file name, extracted text)`` of attachments that carry extracted text."""
    if not isinstance(attachments, list):
        return []
    return [(str(a.get("file_name") or "(unnamed)"), a["extracted_content"]) for a in attachments
            if isinstance(a, dict) and isinstance(a.get("extracted_content"), str) and a["extracted_content"].strip()]
