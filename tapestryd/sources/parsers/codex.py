"""OpenAI Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (and ``archived_sessions/``).

One JSON record a line, ``{"timestamp", "type", "payload"}`` (format as written by
codex-rs's rollout recorder; ``CODEX_HOME`` defaults to ``~/.codex``). What becomes what:

* ``session_meta`` (``payload.id``, ``cwd``, ``timestamp``, ``git.branch``): the first one
  names the file's conversation, ``codex:<id>``. Every one opens a *history segment*
  named by its id: a forked or resumed session's file starts with its own
  ``session_meta``, then repeats the parent's ``session_meta`` and the parent's records
  as they were. Messages are numbered within their segment, so the repeated turns get
  the ids they got in the parent's own file and are kept once.
* ``response_item`` with ``payload.type == "message"``: role ``user`` / ``assistant``, text
  from the ``input_text`` / ``output_text`` (also ``text``) blocks → one
  :class:`MessageRecorded`. ``developer`` and ``system`` messages are instructions
  (Skip ``instructions``); the injected preamble blocks (``<environment_context>``,
  ``<user_instructions>``, ``# AGENTS.md instructions``, ``<permissions instructions>``...)
  are dropped, a message left empty by that is Skip ``preamble``. Image blocks are
  counted in ``skipped``.
* Other ``response_item`` payloads (``reasoning``, ``function_call``,
  ``function_call_output``, ``local_shell_call``, ``web_search_call``...) → Skip by type.
* ``event_msg`` records repeat what the ``response_item`` records hold for the UI
  (``user_message`` repeats the user's turn, ``agent_message`` the reply) → Skip
  ``event``, so no turn is counted twice. ``turn_context`` gives the model of the next
  replies (Skip ``turn-context``); ``compacted`` → Skip ``compacted``.
* Broken lines → Problems located ``file:byte N``; an unfinished last line (no newline) is
  Skip ``unfinished-line``.

Ids: the message key is ``<segment id>:<ordinal>`` (the ordinal counts the segment's
``message`` records of any role); the event id hashes the segment, the ordinal, the role
and the text, so re-reading a file, tailing it in pieces or reading a fork adds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any, IO, Iterable, Iterator

from tapestryd.clock import UnsupportedDateError, check_storable
from tapestryd.events.codec import loads
from tapestryd.events.types import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.sources.parsers.base import Item, Origin, Problem, Skip, json_kind
from tapestryd.sources.parsers.jsonstream import parse_iso
from tapestryd.sources.parsers.lines import Line, json_error, parse_whole

__all__ = ["CodexParser"]

_SNIFF = re.compile(rb'"type"\s*:\s*"(session_meta|response_item|turn_context|event_msg|compacted)"')
_TEXT_BLOCKS = ("input_text", "output_text", "text")
_PREAMBLE = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>",
             "<INSTRUCTIONS>", "<user_shell_command>", "<turn_aborted>")
_ROLES = {"user": "user", "assistant": "assistant"}


class _BadLine(Exception):
    """A line that cannot become an event; its message goes into a Problem."""


@dataclass
class _State:
    """What the lines read so far taught: the file's session, the open segment, counts, model, cwd."""

    hint: str
    session: str = ""
    segment: str = ""
    ordinals: dict[str, int] = field(default_factory=dict)
    model: str = ""
    cwd: str = ""
    branch: str = ""


class CodexParser:
    """Parser of Codex CLI rollouts (``--parser codex``); a :class:`~tapestryd.sources.parsers.lines.LineParser`."""

    name = "codex"

    def sniff(self, head: bytes) -> bool:
        """Whether the first non-blank line is a rollout record (``type`` and ``payload`` keys)."""
        first = head.lstrip(b"\xef\xbb\xbf \t\r\n").split(b"\n", 1)[0]
        return first.startswith(b"{") and b'"payload"' in first and bool(_SNIFF.search(first))

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Every item of the whole file, in file order."""
        return parse_whole(self, stream, origin)

    def begin(self, origin: Origin) -> _State:
        """The state of a file read from byte 0; its name's session id is used until a ``session_meta``."""
        return _State(hint=_session_from_name(PurePath(origin.path).stem))

    def feed(self, lines: Iterable[Line], origin: Origin, state: _State) -> Iterator[Item]:
        """The items of the next complete lines; see the module docstring."""
        for offset, raw in lines:
            where = f"{origin.path}:byte {offset}"
            try:
                record = loads(raw.decode("utf-8").lstrip("\ufeff"))
            except (ValueError, RecursionError) as exc:
                yield Skip("unfinished-line", where) if not raw.endswith(b"\n") else Problem(where, json_error(exc))
                continue
            try:
                yield self._record(record, offset, where, origin, state)
            except _BadLine as exc:
                yield Problem(where, str(exc))

    def _record(self, rec: Any, offset: int, where: str, origin: Origin, state: _State) -> Item:
        if not isinstance(rec, dict):
            raise _BadLine(f"not a JSON object ({json_kind(rec)})")
        kind, payload = rec.get("type"), rec.get("payload")
        if not isinstance(payload, dict):
            raise _BadLine("not a Codex record (no payload object)")
        if kind == "session_meta":
            return _session_meta(payload, where, state)
        if kind == "turn_context":
            state.model = _str(payload.get("model")) or state.model
            state.cwd = _str(payload.get("cwd")) or state.cwd
            return Skip("turn-context", where)
        if kind == "response_item":
            return self._item(rec, payload, offset, where, origin, state)
        if kind in ("event_msg", "compacted"):
            return Skip("event" if kind == "event_msg" else "compacted", where)
        return Skip("unknown-type", where)

    def _item(self, rec: dict[str, Any], payload: dict[str, Any], offset: int, where: str, origin: Origin,
              state: _State) -> Item:
        ptype = payload.get("type")
        if ptype != "message":
            return Skip(ptype if isinstance(ptype, str) and ptype else "unknown-item", where)
        segment = state.segment or state.session or state.hint
        ordinal = state.ordinals.get(segment, 0)
        state.ordinals[segment] = ordinal + 1
        role = _ROLES.get(_str(payload.get("role")))
        if role is None:
            return Skip("instructions", where)
        text, kinds, dropped = _content(payload.get("content"))
        if not text.strip():
            return Skip("preamble" if dropped else next(iter(kinds), "empty"), where)
        ts = _timestamp(rec)
        session = state.session or state.hint
        meta: dict[str, Any] = {k: v for k, v in (("cwd", state.cwd), ("git_branch", state.branch)) if v}
        msg = MessageRecorded(conversation=f"codex:{session}", message=f"{segment}:{ordinal}", role=role, text=text,
                              timestamp=format_utc(ts), model=state.model if role == "assistant" else "",
                              session=session, skipped=kinds, meta=meta)
        return NewEvent(event_id("codex", segment, str(ordinal), role, text), msg, ts, origin.agent,
                        f"{origin.path}:{offset}")


def _session_meta(payload: dict[str, Any], where: str, state: _State) -> Skip:
    sid = _str(payload.get("id"))
    if not sid:
        raise _BadLine("session_meta without an id")
    if not state.session:
        state.session = sid
        state.cwd = _str(payload.get("cwd"))
        git = payload.get("git")
        state.branch = _str(git.get("branch")) if isinstance(git, dict) else ""
    state.segment = sid
    return Skip("meta", where)


def _content(content: Any) -> tuple[str, dict[str, int], bool]:
    """The visible text of a message's blocks, the skipped block kinds, and whether preamble blocks were dropped."""
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        raise _BadLine(f"message content is {json_kind(content)}, not a list of blocks")
    texts: list[str] = []
    kinds: dict[str, int] = {}
    dropped = False
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            raise _BadLine(f"content block {index} is {json_kind(block)}, not an object")
        kind, text = block.get("type"), block.get("text")
        if kind in _TEXT_BLOCKS and isinstance(text, str):
            dropped = dropped or text.lstrip().startswith(_PREAMBLE)
            if text and not text.lstrip().startswith(_PREAMBLE):
                texts.append(text)
        elif kind not in _TEXT_BLOCKS:
            name = kind.removeprefix("input_") if isinstance(kind, str) and kind else "unknown"
            kinds[name] = kinds.get(name, 0) + 1
    return "\n\n".join(texts), kinds, dropped


def _timestamp(rec: dict[str, Any]) -> datetime:
    ts = parse_iso(rec.get("timestamp"))
    if ts is None:
        raise _BadLine("timestamp is missing" if "timestamp" not in rec else
                       f"timestamp {rec['timestamp']!r} is not ISO 8601")
    try:
        check_storable(ts, f"timestamp {rec['timestamp']!r}")
    except UnsupportedDateError as exc:
        raise _BadLine(exc.message) from exc
    return ts


_UUID_TAIL = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _session_from_name(stem: str) -> str:
    """The session id at the end of ``rollout-<time>-<uuid>``, else the whole stem."""
    found = _UUID_TAIL.search(stem)
    return found.group(0) if found else stem


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
