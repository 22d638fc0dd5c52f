"""Claude Code session transcripts: ``~/.claude/projects/<project>/<session>.jsonl``.

One JSON record per line (format as written by Claude Code 1.x–2.x; see the corpus notes
in ``shared/corpus/SOURCES.md``). What becomes what:

* ``user`` / ``assistant`` lines with text → one :class:`MessageRecorded` each. Its
  message key is ``message.id`` when present, so a reply streamed over several lines
  sharing one id becomes one message (the messages projection joins the parts in log
  order, each block once, and filters the joined text as a whole); else the line's
  ``uuid``; else ``@<byte offset>``. Every part carries the time of the first line of its
  ``message.id`` met in the same read (a thinking or tool line included), so a reply that
  crosses midnight stays on the day it started. Content is a string or a list
  of blocks; ``thinking``, ``redacted_thinking``, ``tool_use``, ``tool_result`` and
  ``image`` blocks are counted in ``skipped``, not kept as text.
* A line with no text left (tool calls, tool results, thinking only) → one Skip per block.
* ``isMeta`` lines (``null`` means false), ``isCompactSummary`` lines and older compact
  summaries (the injected summary is not a human turn), user lines that are only
  slash-command envelopes, ``[Request interrupted by user]`` markers, ``system``,
  ``file-history-snapshot``, ``queue-operation``, untyped and unknown records → Skips
  (:mod:`tapestryd.sources.parsers.claude_code_turns`).
* A ``queued_command`` attachment a person typed (a prompt absorbed mid-turn, written
  nowhere else) → a user message keyed by the line's uuid, unless the same prompt was
  already a user line of this read; a user line repeating a queued prompt → Skip.
* Titles, as :class:`ConversationTitled` for the file's session (the first ``sessionId``
  the file names, else the file name's stem): ``summary`` lines (kind ``""``),
  ``ai-title`` and ``custom-title`` lines (kinds ``ai``, ``custom``), and each session's
  first prompt that is not a sidechain's (kind ``prompt``, one event id per session, so
  the first stored stays whatever later reads meet first).
* Broken lines (not JSON, not an object, no content, bad timestamp...) → Problems
  located ``file:line N`` (``file:byte N`` when tailing); the rest imports. A last line
  without newline that does not parse is unfinished, not an error.
* Lines end with ``\n``, ``\r\n`` or a lone ``\r`` (old Mac style: such a file used to read
  as one unfinished line, importing nothing); blank lines, however many, are passed over.
  Only these bytes end a line: U+2028 and U+2029 inside a JSON string are text.

Event ids depend only on (session id, line uuid), or (session id, byte offset) for a line
without uuid, so reading a file whole, tailing it in pieces, or reading a copy elsewhere
gives the same ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, time, timedelta, timezone
from pathlib import PurePath
from typing import Any, IO, Iterable, Iterator

from tapestryd.clock import STORABLE_FROM, STORABLE_UNTIL, UnsupportedDateError, check_storable
from tapestryd.events.codec import loads
from tapestryd.events.types import ConversationTitled, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip, json_kind
from tapestryd.sources.parsers.claude_code_turns import (
    COMPACT_PREFIX,
    TITLE_RECORDS,
    is_command_envelope,
    prompt_title,
    queued_prompt,
)
from tapestryd.sources.parsers.jsonstream import parse_iso, skips_for
from tapestryd.sources.parsers.lines import split_lines

__all__ = ["ClaudeCodeParser"]

_NON_MESSAGE = ("system", "file-history-snapshot", "queue-operation", "progress")
_INTERRUPTS = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")
_SNIFF_START = re.compile(rb'^\{\s*"(type"\s*:\s*"(user|assistant|summary|system|file-history-snapshot'
                          rb'|queue-operation)"|parentUuid"|sessionId")')
_SNIFF_KEYS = (b'"sessionId"', b'"parentUuid"', b'"leafUuid"', b'"isSidechain"', b'"userType"')
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_ENDS = (b"\n", b"\r")
_FIRST_INSTANT = datetime.combine(STORABLE_FROM, time(), timezone.utc)
_END_INSTANT = datetime.combine(STORABLE_UNTIL + timedelta(days=1), time(), timezone.utc)


class _BadLine(Exception):
    """A line that cannot become an event; its message goes into a Problem."""


@dataclass
class _FileState:
    """What one read of a file has learned: its session, the titles waiting for it, the prompts met."""

    hint: str
    session: str = ""
    first_ts: datetime | None = None
    started: dict[str, datetime] = field(default_factory=dict)  # message.id → time of its first line
    pending: list[tuple[int, str, datetime | None, str]] = field(default_factory=list)  # offset, title, ts, kind
    prompts: set[str] = field(default_factory=set)  # stripped texts of the user lines kept
    queued: set[str] = field(default_factory=set)  # stripped texts of the queued prompts kept
    titled: set[str] = field(default_factory=set)  # the sessions given a first-prompt title


class ClaudeCodeParser:
    """Parser of Claude Code ``.jsonl`` sessions (``--parser claude-code``)."""

    name = "claude-code"

    def sniff(self, head: bytes) -> bool:
        """Whether the first line looks like a Claude Code record (JSON object with its keys)."""
        first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
        if not first.startswith(b"{"):
            return False
        return bool(_SNIFF_START.match(first)) or any(key in first for key in _SNIFF_KEYS)

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Every item of the whole file, in file order; locations are ``path:line N``."""
        state = _FileState(hint=PurePath(origin.path).stem)
        offset = 0
        for number, raw in enumerate(split_lines(stream), start=1):
            yield from self._line(offset, f"{origin.path}:line {number}", raw, origin, state)
            offset += len(raw)
        yield from self._flush_titles(origin, state, state.session or state.hint)

    def parse_lines(self, lines: Iterable[tuple[int, bytes]], origin: Origin, session_hint: str) -> Iterator[Item]:
        """Items of complete lines given as ``(byte offset of the line start, line bytes)``.

        For the tailer: ids and sources match :meth:`parse` of the whole file. Locations
        are ``path:byte N``. ``session_hint`` (the file stem) names the session of a line
        without ``sessionId`` and of summaries when no line in ``lines`` names one.
        """
        state = _FileState(hint=session_hint)
        for offset, raw in lines:
            yield from self._line(offset, f"{origin.path}:byte {offset}", raw, origin, state)
        yield from self._flush_titles(origin, state, state.session or state.hint)

    def _line(self, offset: int, where: str, raw: bytes, origin: Origin, state: _FileState) -> list[Item]:
        """The items of one line in order (a list: cheaper than a chain of generators per line)."""
        if not raw or raw.isspace():
            return []
        try:
            record = loads(raw.decode("utf-8").lstrip("\ufeff"))  # json.loads's values and errors, faster
        except (ValueError, RecursionError) as exc:
            return [Skip("unfinished-line", where) if not raw.endswith(_ENDS) else Problem(where, _json_error(exc))]
        out: list[Item] = []
        try:
            self._record(record, offset, where, origin, state, out)
        except _BadLine as exc:  # what the line added before the fault stays, as it did when streamed
            out.append(Problem(where, str(exc)))
        return out

    def _record(self, rec: Any, offset: int, where: str, origin: Origin, state: _FileState, out: list[Item]) -> None:
        if not isinstance(rec, dict):
            raise _BadLine(f"not a JSON object ({json_kind(rec)})")
        kind = rec.get("type")
        session = rec.get("sessionId")
        state.first_ts = state.first_ts or parse_iso(rec.get("timestamp"))
        if isinstance(session, str) and session and not state.session:
            state.session = session
            out.extend(self._flush_titles(origin, state, session))
        if kind in ("user", "assistant"):
            self._message(rec, kind, offset, where, origin, state, out)
        elif kind == "summary":
            self._summary(rec, offset, where, origin, state, out)
        elif isinstance(kind, str) and kind in TITLE_RECORDS:
            self._title(rec, kind, offset, where, origin, state, out)
        elif kind == "attachment":
            self._attachment(rec, offset, where, origin, state, out)
        elif kind is None:
            if not any(k in rec for k in ("sessionId", "uuid", "message")):
                raise _BadLine("not a Claude Code record (no type, sessionId or message)")
            out.append(Skip("untyped", where))
        elif not isinstance(kind, str):
            raise _BadLine(f"type is {json_kind(kind)}, not a string")
        else:
            out.append(Skip(kind if kind in _NON_MESSAGE else "unknown-type", where))

    def _message(self, rec: dict[str, Any], role: str, offset: int, where: str, origin: Origin,
                 state: _FileState, out: list[Item]) -> None:
        if rec.get("isMeta") is True:
            out.append(Skip("meta", where))
            return
        if rec.get("isCompactSummary") is True:
            out.append(Skip("compact-summary", where))
            return
        message = rec.get("message")
        if not isinstance(message, dict):
            raise _BadLine("message is missing" if message is None else f"message is {json_kind(message)}, "
                           "not an object")
        text, kinds = _content(message)
        ts = _timestamp(rec)
        if isinstance(message.get("id"), str):
            ts = state.started.setdefault(message["id"], ts)
        if not text or text.isspace():
            out.extend(skips_for(kinds, where))
        elif role == "user":
            self._prompt(rec, message, text, kinds, ts, offset, where, origin, state, out)
        else:
            out.append(_event(rec, message, role, text, kinds, ts, offset, origin, state))

    def _prompt(self, rec: dict[str, Any], message: dict[str, Any], text: str, kinds: dict[str, int], ts: datetime,
                offset: int, where: str, origin: Origin, state: _FileState, out: list[Item]) -> None:
        """A user line with text: a person's turn, or one of the lines that only look like one."""
        stripped = text.strip()
        if stripped in _INTERRUPTS:
            out.append(Skip("interrupt-marker", where))
        elif stripped.startswith(COMPACT_PREFIX):
            out.append(Skip("compact-summary", where))
        elif is_command_envelope(text):
            out.append(Skip("slash-command", where))
        elif stripped in state.queued:
            out.append(Skip("queued-copy", where))
        else:
            state.prompts.add(stripped)
            out.append(_event(rec, message, "user", text, kinds, ts, offset, origin, state))
            out.extend(self._prompt_title(rec, text, ts, offset, origin, state))

    def _attachment(self, rec: dict[str, Any], offset: int, where: str, origin: Origin, state: _FileState,
                    out: list[Item]) -> None:
        prompt = queued_prompt(rec)
        if prompt is None:
            out.append(Skip("attachment", where))
        elif prompt.strip() in state.prompts or prompt.strip() in state.queued:
            out.append(Skip("queued-copy", where))
        else:
            state.queued.add(prompt.strip())
            ts = _timestamp(rec)
            out.append(_event(rec, {}, "user", prompt, {}, ts, offset, origin, state))
            out.extend(self._prompt_title(rec, prompt, ts, offset, origin, state))

    @staticmethod
    def _prompt_title(rec: dict[str, Any], text: str, ts: datetime, offset: int, origin: Origin,
                      state: _FileState) -> list[Item]:
        """The first-prompt title of the line's session, once per session and read, never from a sidechain
        (subagent) line."""
        session = _str(rec.get("sessionId")) or state.hint
        title = "" if session in state.titled or rec.get("isSidechain") is True else prompt_title(text)
        if not title:
            return []
        state.titled.add(session)
        return [NewEvent(event_id("claude-code", session, "prompt-title"),
                         ConversationTitled(f"claude-code:{session}", title, kind="prompt"), ts, origin.agent,
                         f"{origin.path}:{offset}")]

    def _title(self, rec: dict[str, Any], kind: str, offset: int, where: str, origin: Origin,
               state: _FileState, out: list[Item]) -> None:
        """A ``custom-title`` or ``ai-title`` line."""
        field_name, title_kind = TITLE_RECORDS[kind]
        title = rec.get(field_name)
        if not isinstance(title, str) or not title.strip():
            out.append(Skip(kind, where))
            return
        state.pending.append((offset, title.strip(), parse_iso(rec.get("timestamp")), title_kind))
        if state.session:
            out.extend(self._flush_titles(origin, state, state.session))

    def _summary(self, rec: dict[str, Any], offset: int, where: str, origin: Origin,
                 state: _FileState, out: list[Item]) -> None:
        title = rec.get("summary")
        if not isinstance(title, str) and isinstance(rec.get("message"), dict):
            title = _content(rec["message"])[0]
        if not isinstance(title, str) or not title.strip():
            out.append(Skip("summary", where))
            return
        state.pending.append((offset, title.strip(), parse_iso(rec.get("timestamp")), ""))
        if state.session:
            out.extend(self._flush_titles(origin, state, state.session))

    @staticmethod
    def _flush_titles(origin: Origin, state: _FileState, session: str) -> list[Item]:
        conversation = f"claude-code:{session}"
        titles: list[Item] = [
            NewEvent(event_id("claude-code", session, "title", title) if not kind else
                     event_id("claude-code", session, f"{kind}-title", str(offset)),
                     ConversationTitled(conversation, title, kind=kind),
                     ts or state.first_ts or _EPOCH, origin.agent, f"{origin.path}:{offset}")
            for offset, title, ts, kind in state.pending]
        state.pending.clear()
        return titles


def _event(rec: dict[str, Any], message: dict[str, Any], role: str, text: str, kinds: dict[str, int],
           ts: datetime, offset: int, origin: Origin, state: _FileState) -> NewEvent:
    session = _str(rec.get("sessionId")) or state.hint
    uuid = _str(rec.get("uuid"))
    key = _str(message.get("id")) or uuid or f"@{offset}"
    payload = MessageRecorded(
        conversation=f"claude-code:{session}", message=key, role=role, text=text, timestamp=format_utc(ts),
        model=_str(message.get("model")), session=session, skipped=kinds, meta=_meta(rec),
    )
    eid = event_id("claude-code", session, uuid) if uuid else event_id("claude-code", session, f"@{offset}")
    return NewEvent(eid, payload, ts, origin.agent, f"{origin.path}:{offset}")


def _content(message: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """The visible text of a message and the counts of skipped block kinds."""
    if "content" not in message:
        raise _BadLine("message has no content")
    content = message["content"]
    if isinstance(content, str):
        return content, {}
    if not isinstance(content, list):
        raise _BadLine(f"message content is {json_kind(content)}, not a string or a list of blocks")
    texts: list[str] = []
    kinds: dict[str, int] = {}
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            raise _BadLine(f"content block {index} is {json_kind(block)}, not an object")
        _block(block, index, texts, kinds)
    return "\n\n".join(texts), kinds


def _block(block: dict[str, Any], index: int, texts: list[str], kinds: dict[str, int]) -> None:
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        if text is not None and not isinstance(text, str):
            raise _BadLine(f"content block {index}: text is {json_kind(text)}, not a string")
        if text:
            texts.append(text)
    else:
        name = kind if isinstance(kind, str) and kind else "unknown"
        kinds[name] = kinds.get(name, 0) + 1


def _timestamp(rec: dict[str, Any]) -> datetime:
    ts = parse_iso(rec.get("timestamp"))
    if ts is None:
        raise _BadLine("timestamp is missing" if "timestamp" not in rec else
                       f"timestamp {rec['timestamp']!r} is not ISO 8601")
    if _FIRST_INSTANT <= ts < _END_INSTANT:  # check_storable's range, without building its message
        return ts
    try:
        check_storable(ts, f"timestamp {rec['timestamp']!r}")
    except UnsupportedDateError as exc:
        raise _BadLine(exc.message) from exc
    return ts


def _meta(rec: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for source, target in (("cwd", "cwd"), ("gitBranch", "git_branch"), ("agentId", "agent_id")):
        if isinstance(rec.get(source), str) and rec[source]:
            meta[target] = rec[source]
    if rec.get("isSidechain") is True:
        meta["sidechain"] = True
    return meta


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _json_error(exc: ValueError | RecursionError) -> str:
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    if isinstance(exc, UnicodeDecodeError):
        return f"bytes that are not UTF-8 at column {exc.start + 1}"
    return f"not valid JSON ({getattr(exc, 'msg', exc)})"
