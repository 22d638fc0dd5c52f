"""Facts to look for in summaries: extracted from raw messages, or read from a JSONL file.

**Extraction** (the default when no file is given) keeps the sentences of the raw messages
that state something specific enough to be checked later: a number, a date or time word,
a name (a capitalised word past the first of its sentence, ``I`` aside) or a decision
(``decided``, ``will``, ``going to``, ``plan`` ...); ``may`` is not taken for the month.
Questions are not facts; sentences under 4 or over 40 words are too thin or too long to be
one fact.

**A facts file** is JSON lines, one fact an object::

    {"fact": "Caroline moved from Sweden four years ago.",   # or "text"
     "conversation": "claude-ai:f2318f95-...",              # or "conversation_uuid": a key or its end
     "day": "2023-05-08",                                   # or "date": the local day (ISO)
     "agent": "claude-ai"}                                  # optional

A fact needs a conversation or a day (or both) to find the node it belongs to; other keys
are ignored, so LoCoMo's annotated ``facts.jsonl`` reads as it is. A line that is not such
an object is reported (file and line) and skipped; the rest of the file is read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Iterable

from tapestryd.errors import TapestryError
from tapestryd.quality.text import normalize, split_sentences

__all__ = ["MAX_LISTED_PROBLEMS", "Fact", "FactsFile", "extract_facts", "has_specific", "load_facts"]

MAX_LISTED_PROBLEMS = 20
"""Bad lines of a facts file listed by text; every one is counted."""

# Words are matched as lower-case tokens (a set lookup, not one regex per sentence): extraction
# reads every sentence of a whole history. "may" is left out of the months: as a verb it is
# far more common, and "8 May" counts anyway for its number.
_TIME_WORDS = frozenset(
    "january february march april june july august september october november december jan feb mar apr jun jul "
    "aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday "
    "tonight weekend ago".split())
_DECISION_WORDS = frozenset(
    "decided decide decision chose choose chosen agreed settled switched picked prefer will won't gonna plan plans "
    "planned planning".split())
_PHRASES = ("last week", "last month", "last year", "next week", "next month", "next year", "going to")
_TOKEN = re.compile(r"[a-z][a-z']*")
_NAME = re.compile(r"\s[\"'(]?([A-Z][a-zA-Z'\-]+)(?=[\s.,;:!?\"')]|$)")
_NOT_NAMES = {"I", "I'm", "I've", "I'll", "I'd", "OK", "Ok"}
MIN_WORDS, MAX_WORDS = 4, 40
_LINE_END = re.compile(r"\r\n?|\n")


@dataclass(frozen=True)
class Fact:
    """One fact: its text and where it belongs (a conversation key or its end, a local day)."""

    text: str
    conversation: str = ""
    day: date | None = None
    agent: str = ""


@dataclass(frozen=True)
class FactsFile:
    """What a facts file held: its facts, how many lines were skipped, the first of those lines' problems."""

    facts: list[Fact]
    skipped: int = 0
    problems: tuple[str, ...] = ()


def has_specific(sentence: str) -> bool:
    """Whether a sentence names a number, a date or time, a name, or a decision."""
    lower = sentence.lower()
    if any(ch.isdigit() for ch in sentence) or any(phrase in lower for phrase in _PHRASES):
        return True
    tokens = set(_TOKEN.findall(lower))
    if tokens & _TIME_WORDS or tokens & _DECISION_WORDS:
        return True
    return any(name not in _NOT_NAMES for name in _NAME.findall(sentence))


def extract_facts(texts: Iterable[str]) -> list[str]:
    """The fact sentences of ``texts`` in order, each once (compared lower-cased)."""
    seen: set[str] = set()
    found: list[str] = []
    for text in texts:
        for sentence in split_sentences(text):
            key = normalize(sentence)
            if key in seen or sentence.endswith("?") or not MIN_WORDS <= len(sentence.split()) <= MAX_WORDS:
                continue
            if has_specific(sentence):
                seen.add(key)
                found.append(sentence)
    return found


def load_facts(path: Path) -> FactsFile:
    """Read a facts file (see the module docstring).

    A line that is not a JSON object, has no fact text, has neither conversation nor day, or
    has a day that is not ISO is skipped and counted, its problem (``file:line: what``) kept
    among the first :data:`MAX_LISTED_PROBLEMS`. Raises TapestryError when the file cannot be
    read, or when it has bad lines and not one good fact (naming the first bad line).
    """
    try:
        lines = _LINE_END.split(path.read_text(encoding="utf-8"))  # not splitlines: U+2028 in a fact is text
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise TapestryError(f"cannot read facts file {path}: {reason}") from exc
    facts, problems = [], []
    for number, line in enumerate(lines, start=1):
        try:
            if line.strip():
                facts.append(_fact(_object(path, number, line), f"{path}:{number}"))
        except TapestryError as exc:
            problems.append(exc.message)
    if problems and not facts:
        raise TapestryError(f"no fact could be read from {path}: {len(problems)} bad lines, the first {problems[0]}")
    return FactsFile(facts, len(problems), tuple(problems[:MAX_LISTED_PROBLEMS]))


def _object(path: Path, number: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TapestryError(f"{path}:{number}: not JSON ({exc.msg})") from exc
    if not isinstance(value, dict):
        raise TapestryError(f"{path}:{number}: expected a JSON object per line")
    return value


def _fact(value: dict[str, Any], where: str) -> Fact:
    text = str(value.get("fact") or value.get("text") or "").strip()
    conversation = str(value.get("conversation") or value.get("conversation_uuid") or "").strip()
    raw_day = str(value.get("day") or value.get("date") or "").strip()
    if not text:
        raise TapestryError(f"{where}: no fact text (key 'fact')")
    if not conversation and not raw_day:
        raise TapestryError(f"{where}: a fact needs 'conversation' (or 'conversation_uuid') or 'day'")
    try:
        day = date.fromisoformat(raw_day) if raw_day else None
    except ValueError as exc:
        raise TapestryError(f"{where}: day {raw_day!r} is not an ISO date (YYYY-MM-DD)") from exc
    return Fact(text, conversation, day, str(value.get("agent") or ""))
