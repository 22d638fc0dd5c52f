"""Which archived lines a forget rule removes: everything before an instant, or text matching a pattern.

A byte-exact copy cannot hold half a record, so the unit is the whole line (one JSON
record of a ``.jsonl`` transcript, tool calls and thinking included):

* ``before`` (ISO UTC): a line whose top-level ``"timestamp"`` (Claude Code, Codex and
  Gemini CLI records all carry one) is earlier. A line without one (a title, a snapshot)
  takes the time of the next line in the same piece that has one, else of the previous one;
  a piece with no time at all is kept.
* ``match`` (a Python regex, as the Forgotten event stores it, usually ``(?i)...``, matched by the
  ``regex`` package as in the projections): a
  line whose bytes, read as UTF-8, match, or whose JSON string values (escapes undone,
  joined by newlines) match; so a word inside a tool result or an escaped string is found.

A line a rule covers that is a part of a message written over several lines (a Claude Code reply
streamed one content block a line, a Gemini CLI record appended again as it changes) takes the
message's other lines with it: :meth:`LineRules.messages` names those messages (their keys, from
:mod:`tapestryd.sources.archive.parts`) and :meth:`LineRules.keep` leaves out every line holding a
part, or a copy, of the messages it is given (:meth:`LineRules.screen` does both for new bytes, reading each line once).

Conversation rules are not line rules: :mod:`tapestryd.sources.archive.forget` drops the
conversation's files whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Collection, Iterable, Iterator

import regex

from tapestryd.events.types import format_utc
from tapestryd.sources.archive.parts import message_key, messages_held
from tapestryd.sources.parsers.jsonstream import parse_iso

__all__ = ["LineRules", "split_lines"]


def split_lines(data: bytes) -> list[bytes]:
    """``data`` cut after each newline (the last piece may lack one); joined they give ``data`` back."""
    return data.splitlines(keepends=True) if b"\r" not in data else _split_lf(data)


def _split_lf(data: bytes) -> list[bytes]:
    """Like :func:`split_lines` but on ``\\n`` only (``splitlines`` also cuts at a lone ``\\r``)."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


@dataclass(frozen=True)
class LineRules:
    """The line rules in force: the latest ``before`` instant (ISO UTC, "" for none) and the patterns."""

    before: str = ""
    patterns: tuple[Any, ...] = ()

    @classmethod
    def of(cls, rules: Iterable[tuple[str, str]]) -> LineRules:
        """From ``(before, match)`` pairs; a pattern that does not compile matches nothing (as in the projections)."""
        befores, patterns = [], []
        for before, match in rules:
            if before:
                befores.append(before)
            if match:
                try:
                    patterns.append(regex.compile(match, regex.V0))  # the projections' engine
                except (regex.error, OverflowError):
                    continue
        return cls(max(befores, default=""), tuple(patterns))

    def __bool__(self) -> bool:
        return bool(self.before or self.patterns)

    def keep(self, data: bytes, source: str = "", forgotten: Collection[str] = frozenset()) -> bytes:
        """``data`` without the lines the rules cover, nor the lines holding a part (or a copy) of a message whose
        key is in ``forgotten`` (:func:`~tapestryd.sources.archive.parts.messages_held` of ``source``, a parser
        name); ``data`` itself when there is nothing to remove."""
        if not self and not forgotten:
            return data
        return b"".join(line for line, covered, _, held in self._judged(data, source, bool(forgotten))
                        if not covered and not any(key in forgotten for key in held))

    def messages(self, data: bytes, source: str) -> set[str]:
        """The keys of the messages (of ``source``) written over several lines one of whose lines in ``data`` the
        rules cover (:func:`~tapestryd.sources.archive.parts.message_key`): every line of them goes."""
        if not self:
            return set()
        return {own for _, covered, own, _ in self._judged(data, source, True) if covered and own}

    def screen(self, data: bytes, source: str, forgotten: Collection[str]) -> tuple[bytes, set[str]]:
        """New bytes judged once, as ``(kept, reached)``: ``reached`` are the keys :meth:`messages` names that are
        not in ``forgotten`` yet, ``kept`` is what :meth:`keep` keeps of ``data`` with ``forgotten`` and
        ``reached``."""
        if not self and not forgotten:
            return data, set()
        judged = self._judged(data, source, True)
        reached = {own for _, covered, own, _ in judged if covered and own and own not in forgotten}
        kept = b"".join(line for line, covered, _, held in judged
                        if not covered and not any(key in forgotten or key in reached for key in held))
        return kept, reached

    def _judged(self, data: bytes, source: str, keyed: bool) -> list[tuple[bytes, bool, str, tuple[str, ...]]]:
        """For each line of ``data``: ``(line, whether the rules cover it, its message key, the keys of the messages
        it holds)`` (the keys "" and ``()`` when not ``keyed``)."""
        lines = split_lines(data)
        times = self._times(lines) if self.before else [None] * len(lines)
        judged = []
        for line, ts in zip(lines, times):
            text = line.decode("utf-8", "replace")
            record = _record(text) if self.patterns or keyed else None
            held = messages_held(source, record) if keyed else ()
            judged.append((line, self._covers(text, record, ts), message_key(source, record) if keyed else "", held))
        return judged

    def _covers(self, text: str, record: Any, ts: str | None) -> bool:
        if ts is not None and ts < self.before:
            return True
        if not self.patterns:
            return False
        values = "\n".join(_walk(record))
        return any(p.search(text) or (values and p.search(values)) for p in self.patterns)

    @staticmethod
    def _times(lines: list[bytes]) -> list[str | None]:
        """Each line's time (ISO UTC), lines without one filled from the next, then the previous."""
        own = [_timestamp(line) for line in lines]
        filled: list[str | None] = []
        following: str | None = None
        for ts in reversed(own):
            following = ts or following
            filled.append(following)
        filled.reverse()
        previous: str | None = None
        for index, ts in enumerate(own):
            previous = ts or previous
            if filled[index] is None:
                filled[index] = previous
        return filled


def _record(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _timestamp(line: bytes) -> str | None:
    record = _record(line.decode("utf-8", "replace"))
    moment: datetime | None = parse_iso(record.get("timestamp")) if isinstance(record, dict) else None
    return format_utc(moment) if moment is not None else None


def _walk(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)
