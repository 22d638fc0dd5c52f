"""Gemini CLI chats: ``~/.gemini/tmp/<project hash>/chats/session-*.jsonl`` (and the older ``.json``).

Format as written by gemini-cli's chat recording service (``chatRecordingService.ts``):

* ``.jsonl``: a header line ``{"sessionId", "projectHash", "startTime", "lastUpdated",
  "kind"?}``, then one record a line. A message record is ``{"id", "timestamp", "type":
  "user"|"gemini"|"info"|"error"|"warning", "content", "displayContent"?, "model"?,
  "toolCalls"?, "thoughts"?}``; it is appended again, whole, each time it changes (its
  tool calls, tokens or text). ``{"$set": {...}}`` updates the header (``summary`` is the
  title; ``messages`` is a checkpoint of every record); ``{"$rewindTo": id}`` marks a
  rewind (Skip ``rewind``: what was said stays in the log).
* ``.json`` (older versions): one object, the header's fields plus ``messages``.

What becomes what: ``user`` and ``gemini`` records with text → :class:`MessageRecorded`
(roles ``user`` / ``assistant``; the user's ``displayContent`` when present, since that
is what they typed; parts marked ``thought`` and non-text parts are counted in
``skipped``); ``info``, ``error`` and ``warning`` records are UI notices (Skips); a
subagent's file (``kind: "subagent"``, written to ``chats/<parent session id>/``) is
marked ``sidechain`` and filed under its parent's conversation.

Upsert by record id: the message key is the record id and every event carries
``meta.replaces``, so a later version of a record replaces the stored text (the last
version wins, never two messages); the event id hashes the session, record id and text,
so a record appended again unchanged adds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePath
from typing import Any, IO, Iterable, Iterator

from tapestryd.clock import UnsupportedDateError, check_storable
from tapestryd.events.codec import loads
from tapestryd.events.types import ConversationTitled, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip, json_kind
from tapestryd.sources.parsers.jsonstream import parse_iso
from tapestryd.sources.parsers.lines import Line, iter_lines, json_error

__all__ = ["GeminiParser"]

_SNIFF = re.compile(rb'"(sessionId|projectHash)"\s*:')
_ROLES = {"user": "user", "gemini": "assistant"}
_NOTICES = ("info", "error", "warning")
_INJECTED = ("<session_context>", "<hook_context>")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class _BadRecord(Exception):
    """A record that cannot become an event; its message goes into a Problem."""


@dataclass
class _State:
    """The file's session (from its header), start time, whether it is a subagent's."""

    hint: str
    parent: str = ""
    session: str = ""
    start: str = ""
    subagent: bool = False


class GeminiParser:
    """Parser of Gemini CLI chat files (``--parser gemini``); a :class:`~tapestryd.sources.parsers.lines.LineParser`."""

    name = "gemini"

    def sniff(self, head: bytes) -> bool:
        """Whether ``head`` starts a JSON object naming both ``sessionId`` and ``projectHash``."""
        body = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        return body.startswith(b"{") and len(set(_SNIFF.findall(body))) == 2

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Every item of a ``.jsonl`` chat (streamed) or of an older whole-object ``.json`` chat."""
        state, lines = self.begin(origin), iter_lines(stream)
        head = next(lines, None)
        if head is None:
            return
        offset, first = head
        try:
            loads(first.decode("utf-8").lstrip("\ufeff"))
        except (ValueError, RecursionError):  # a pretty-printed whole object: read it as one line
            whole = first + b"".join(raw for _, raw in lines)
            yield from self.feed([(offset, whole + b"\n")], origin, state)
            return
        yield from self.feed([head], origin, state)
        yield from self.feed(lines, origin, state)

    def begin(self, origin: Origin) -> _State:
        """The state of a file read from byte 0 (a file in ``chats/<id>/`` may be the subagent of session ``id``)."""
        path = PurePath(origin.path.replace("!/", "/"))
        return _State(hint=path.stem, parent=path.parent.name if path.parent.parent.name == "chats" else "")

    def feed(self, lines: Iterable[Line], origin: Origin, state: _State) -> Iterator[Item]:
        """The items of the next complete lines; see the module docstring."""
        for offset, raw in lines:
            where = f"{origin.path}:byte {offset}"
            try:
                record = loads(raw.decode("utf-8").lstrip("\ufeff"))
            except (ValueError, RecursionError) as exc:
                yield Skip("unfinished-line", where) if not raw.endswith(b"\n") else Problem(where, json_error(exc))
                continue
            yield from self._line(record, offset, where, origin, state)

    def _line(self, rec: Any, offset: int, where: str, origin: Origin, state: _State) -> Iterator[Item]:
        if not isinstance(rec, dict):
            yield Problem(where, f"not a JSON object ({json_kind(rec)})")
        elif "$rewindTo" in rec:
            yield Skip("rewind", where)
        elif isinstance(rec.get("$set"), dict):
            yield from self._header(rec["$set"], offset, where, origin, state)
        elif isinstance(rec.get("id"), str):
            yield self._checked(rec, offset, where, origin, state)
        elif isinstance(rec.get("sessionId"), str):
            yield from self._header(rec, offset, where, origin, state)
        else:
            yield Problem(where, "not a Gemini CLI record (no id, sessionId, $set or $rewindTo)")

    def _header(self, rec: dict[str, Any], offset: int, where: str, origin: Origin, state: _State) -> Iterator[Item]:
        if isinstance(rec.get("sessionId"), str) and rec["sessionId"] and not state.session:
            state.session = rec["sessionId"]
            state.start = _str(rec.get("startTime"))
            state.subagent = rec.get("kind") == "subagent"
        messages = rec.get("messages")
        for index, message in enumerate(messages if isinstance(messages, list) else []):
            yield self._checked(message, offset, f"{where} message {index}", origin, state)
        summary = rec.get("summary")
        if isinstance(summary, str) and summary.strip():
            session = state.session or state.hint
            ts = parse_iso(rec.get("lastUpdated")) or parse_iso(state.start)
            yield NewEvent(event_id("gemini", session, "title", summary.strip()),
                           ConversationTitled(f"gemini:{session}", summary.strip(), format_utc(ts) if ts else ""),
                           ts or _EPOCH, origin.agent, f"{origin.path}:{offset}")
        elif not messages:
            yield Skip("meta", where)

    def _checked(self, rec: Any, offset: int, where: str, origin: Origin, state: _State) -> Item:
        try:
            return self._record(rec, offset, where, origin, state)
        except _BadRecord as exc:
            return Problem(where, str(exc))

    def _record(self, rec: Any, offset: int, where: str, origin: Origin, state: _State) -> Item:
        if not isinstance(rec, dict) or not isinstance(rec.get("id"), str):
            raise _BadRecord("message record without an id")
        kind = rec.get("type")
        if kind in _NOTICES:
            return Skip(str(kind), where)
        role = _ROLES.get(kind) if isinstance(kind, str) else None
        if role is None:
            raise _BadRecord(f"record type {kind!r} is not user, gemini, info, error or warning")
        shown = rec.get("displayContent") if role == "user" and rec.get("displayContent") else rec.get("content")
        text, kinds = _text(shown)
        _count_extras(rec, kinds)
        if not text.strip():
            return Skip(next(iter(kinds)) if kinds else "empty", where)
        if role == "user" and text.lstrip().startswith(_INJECTED):
            return Skip("injected-context", where)
        ts = _timestamp(rec.get("timestamp"))
        session = state.session or state.hint
        meta: dict[str, Any] = {"replaces": True}
        if state.subagent:
            meta["sidechain"] = True
        conversation = f"gemini:{state.parent if state.subagent and state.parent else session}"
        msg = MessageRecorded(conversation=conversation, message=rec["id"], role=role, text=text,
                              timestamp=format_utc(ts), model=_str(rec.get("model")), session=session,
                              skipped=kinds, meta=meta)
        return NewEvent(event_id("gemini", session, rec["id"], text), msg, ts, origin.agent, f"{origin.path}:{offset}")


def _text(content: Any) -> tuple[str, dict[str, int]]:
    """Text of a ``PartListUnion`` (a string, a part, or a list of strings and parts) and skipped part kinds."""
    parts = content if isinstance(content, list) else [] if content is None else [content]
    texts: list[str] = []
    kinds: dict[str, int] = {}
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
        elif isinstance(part, dict):
            name = "thinking" if part.get("thought") else next((k for k in part if k != "text"), "unknown")
            kinds[name] = kinds.get(name, 0) + 1
        else:
            raise _BadRecord(f"content part is {json_kind(part)}, not a string or an object")
    return "".join(texts), kinds


def _count_extras(rec: dict[str, Any], kinds: dict[str, int]) -> None:
    for key, kind in (("toolCalls", "tool_use"), ("thoughts", "thinking")):
        if isinstance(rec.get(key), list) and rec[key]:
            kinds[kind] = kinds.get(kind, 0) + len(rec[key])


def _timestamp(value: Any) -> datetime:
    ts = parse_iso(value)
    if ts is None:
        raise _BadRecord("timestamp is missing" if value is None else f"timestamp {value!r} is not ISO 8601")
    try:
        check_storable(ts, f"timestamp {value!r}")
    except UnsupportedDateError as exc:
        raise _BadRecord(exc.message) from exc
    return ts


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
