"""Sentence candidates for extractive summaries, and how specific each one is.

Code blocks, markdown furniture and lines that are mostly symbols are dropped; what is
left is split into sentences at ``.``/``!``/``?`` followed by a capital, a digit or a quote,
and at line breaks. A sentence's *specificity* counts what a reader would want kept:
numbers, dates and times, names (capitalised words not opening the sentence),
identifiers (``file.py``, ``a/b``, ``snake_case``), quoted terms and decision words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Sentence", "specificity", "split_sentences"]

_FENCE = re.compile(r"```.*?(```|$)", re.S)
_FURNITURE = re.compile(r"^\s*(?:[-*+>]|#{1,6}|\d{1,3}[.)])\s+")
_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d,.:/-]*")
_NUMBER = re.compile(r"\b\d[\d,.:/-]*\b")
_NAME = re.compile(r"(?<=[\s(\"'])([A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,})\b")
_IDENT = re.compile(r"\b\w+[._/]\w[\w./-]*|\b[a-z]+_[a-z_]+\b|`[^`]+`")
_QUOTED = re.compile(r"\"[^\"]{2,60}\"|“[^”]{2,60}”")
_CALENDAR = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
    r"\b(?:yesterday|today|tomorrow|tonight|last (?:week|month|year)|next (?:week|month|year))\b", re.I)
_DECISION = re.compile(
    r"\b(?:decid|chose|choos|agree|plan|will|going to|fixed|switch|bought|moved|start|finish|launch|adopt|"
    r"deploy|release|migrat|replac|remov|added|renam|booked|signed|join|quit|won|lost|learn|because)\w*", re.I)
_MIN_WORDS, _MIN_CHARS, _MAX_CHARS = 4, 20, 360
_SKIP = {"I", "I'm", "I've", "I'll", "I'd", "OK", "Ok"}


@dataclass(frozen=True)
class Sentence:
    """One candidate: its text, the passage it came from (index) and its order in that passage."""

    text: str
    passage: int
    index: int
    role: str


def split_sentences(text: str) -> list[str]:
    """The prose sentences of ``text``, in order, trimmed; code and short fragments dropped."""
    out: list[str] = []
    for line in _FENCE.sub("\n", text).splitlines():
        line = _FURNITURE.sub("", line).strip()
        if not line or _symbolic(line):
            continue
        out.extend(s for s in (_clip(p.strip()) for p in _SPLIT.split(line)) if _keep(s))
    return out


def _symbolic(line: str) -> bool:
    letters = sum(ch.isalpha() or ch.isspace() for ch in line)
    return letters < 0.6 * len(line)


def _keep(sentence: str) -> bool:
    return len(sentence) >= _MIN_CHARS and len(_WORD.findall(sentence)) >= _MIN_WORDS


def _clip(sentence: str) -> str:
    if len(sentence) <= _MAX_CHARS:
        return sentence
    cut = sentence[:_MAX_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def specificity(sentence: str) -> float:
    """Specifics per word of ``sentence`` (0 for none; about 1 for a sentence dense in them)."""
    words = max(1, len(_WORD.findall(sentence)))
    names = [n for n in _NAME.findall(sentence) if n not in _SKIP]
    count = (len(_NUMBER.findall(sentence)) * 1.5 + len(names) + len(_IDENT.findall(sentence))
             + len(_QUOTED.findall(sentence)) + len(_CALENDAR.findall(sentence)) * 1.5
             + len(_DECISION.findall(sentence)) * 0.75)
    return count / words ** 0.75
