"""Sentence candidates for extractive summaries, and how specific each one is.

Code blocks, markdown furniture, markup tags (``<antArtifact …>``, ``<input …>``), lines of
unfenced code (ending in ``;``, ``{`` or ``}``, a comma after them too; a ``key: [``,
``name = {`` or ``'key':`` line; an ``import``/``const``/``def``… statement) and lines that
are mostly symbols are dropped; bold markers (``**``) are dropped, their words kept. What is
left is split into sentences at ``.``/``!``/``?`` followed by a capital, a digit or a quote,
and at line breaks; lines wholly in square brackets (attachment notes such as "[shared an
image: ...]") are metadata, not something said, and are dropped too. So are headings and
list stubs (a markdown heading, a line with no closing punctuation and fewer than six words, or one ending in a
colon that only announces what follows) and assistant scaffolding: "Certainly, I'll…",
"Here is…", "Let me know if…", "I hope this helps", "Great question", "How can I help…", and
its human counterpart, a teaser announcing news without saying it ("I've got something to
share!", "I just wanted to check in.", "Been a busy week since we talked."). A sentence longer
than 360 characters is not a summary sentence and is passed over (never cut). Each sentence
is split into its stand-alone clauses and compressed (:mod:`tapestryd.summarize.compress`).
A sentence's *specificity* counts what a reader would want kept:
numbers, dates and times, names (capitalised words not opening the sentence),
identifiers (``file.py``, ``a/b``, ``snake_case``), quoted terms and decision words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tapestryd.summarize.compress import clauses, compress

__all__ = ["Sentence", "specificity", "split_sentences"]

_FENCE = re.compile(r"```.*?(```|$)", re.S)
_FURNITURE = re.compile(r"^\s*(?:[-*+>]|#{1,6}|\d{1,3}[.)])\s+")
_SPLIT = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*|\d[\d,.:/-]*")
_SPECIFIC = re.compile(
    r"(?P<number>\b\d[\d,.:/-]*\b)"
    r"|(?P<ident>\b\w+[._/]\w[\w./-]*|\b[a-z]+_[a-z_]+\b|`[^`]+`)"
    r"|(?P<quoted>\"[^\"]{2,60}\"|“[^”]{2,60}”)"
    r"|(?P<calendar>(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|\b(?:yesterday|today|tomorrow|tonight|last (?:week|month|year)|next (?:week|month|year))\b))"
    r"|(?P<decision>(?i:\b(?:decid|chose|choos|agree|plan|will|going to|fixed|switch|bought|moved|start|finish|"
    r"launch|adopt|deploy|release|migrat|replac|remov|added|renam|booked|signed|join|quit|won|lost|learn|"
    r"because)\w*))"
    r"|(?<=[\s(\"'])(?P<name>[A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,})\b")
_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
_CODE = re.compile(r"[;{}],?$|^[\w.]+\s*[:=]\s*[\[{(]|^['\"][\w.-]+['\"]\s*:"
                   r"|^(?:import|export|from|const|let|var|function|def|class|return)\s.*[(){}=;:'\"]")
_BRACKETED = re.compile(r"^\[[^\]]*\]$")
_NOT_PROSE = re.compile(r"[\d_]|[^\w\s]")
_WEIGHTS = {"number": 1.5, "ident": 1.0, "quoted": 1.0, "calendar": 1.5, "decision": 0.75, "name": 1.0}
_MIN_WORDS, _MIN_CHARS, _MAX_CHARS = 4, 20, 360
_STUB_WORDS = 6
_HEADING = re.compile(r"^\s*#{1,6}\s")  # a markdown heading names a section; it states nothing
_CLOSED = re.compile(r"[.!?…)\]\"'”’]$")
_SCAFFOLDING = re.compile(
    r"^\W*(?:certainly|sure thing|of course|absolutely|great question|good question|here is|here's|here are|"
    r"below is|below are|the following|i'd be (?:happy|glad) to|i'm (?:happy|glad) to|happy to help|i can help|"
    r"let me know|feel free|i hope (?:this|that) helps|hope (?:this|that) helps|let's (?:dive|break|get started|"
    r"go through|walk through)|as an ai|i apologi[sz]e|sorry for|you're welcome|is there anything else|"
    r"would you like me to|do you want me to|how can i (?:help|assist)|what can i (?:help|do for you))\b"
    r"|\b(?:let me know if|feel free to|hope this helps|happy to help further)\b", re.I)
# A teaser announcing news without saying it: "I've got something to share!", "I just wanted to check in."
_TEASER = re.compile(
    r"^(?:but\s+)?(?:here's|there's)\s+(?:some\s+)?(?:\w+\s+)?news[.!]*$"
    r"|^(?:I|we)(?:'ve|\s+have)?\s+(?:got|have|had)\s+(?:some\s+)?(?:\w+\s+)?(?:news|something)(?:\s+\w+)?"
    r"(?:\s+to\s+(?:share|tell\s+you)(?:\s+with\s+you)?)?[.!]*$"
    r"|^(?:I\s+)?(?:just\s+)?(?:wanted|want|had|have|needed)\s+to\s+(?:check\s+in|say\s+hi|catch\s+up|"
    r"share\s+something(?:\s+\w+)?(?:\s+with\s+you)?)[.!]*$"
    r"|^there's\s+something\s+I\s+(?:want|wanted|need|have)\s+to\s+(?:tell\s+you|share)[.!]*$"
    # Time passing, said as a catch-up: "Been a busy week since we talked.", "It's been a wild ride!"
    r"|^(?:it's\s+|it\s+has\s+|things\s+have\s+)?been\s+an?\s+(?:\w+\s+)?(?:few\s+)?(?:days?|weeks?|months?|while|"
    r"time|ride)(?:\s+since\s+we\s+(?:last\s+)?(?:talked|spoke|chatted|caught\s+up))?[.!]*$", re.I)
_SKIP = {"I", "I'm", "I've", "I'll", "I'd", "OK", "Ok"}


@dataclass(frozen=True)
class Sentence:
    """One candidate: its text, the passage it came from (index), its order in that passage, its role.

    ``shown`` is how it is written in a summary when that differs from ``text`` (relative
    dates resolved); ranking reads ``text``. ``speaker`` is the name it is attributed to
    (``""``: the memory's owner, or a conversation whose sides are not named).
    """

    text: str
    passage: int
    index: int
    role: str
    shown: str = ""
    speaker: str = ""


def split_sentences(text: str) -> list[str]:
    """The prose sentences of ``text``, in order, trimmed; code and short fragments dropped."""
    out: list[str] = []
    for line in _FENCE.sub("\n", text).splitlines():
        if _HEADING.match(line):
            continue
        line = _FURNITURE.sub("", _TAG.sub(" ", line)).replace("**", "").strip()
        if not line or _symbolic(line) or _BRACKETED.match(line) or _CODE.search(line):
            continue
        if _stub(line):
            continue
        pieces = (compress(c) for p in _SPLIT.split(line) for c in clauses(p.strip()))
        out.extend(s for s in pieces if _keep(s))
    return out


def _stub(line: str) -> bool:
    """A heading or list stub: no closing punctuation and few words, or a colon announcing a list."""
    return line.endswith(":") or (not _CLOSED.search(line) and len(_WORD.findall(line)) < _STUB_WORDS)


def _symbolic(line: str) -> bool:
    return len(_NOT_PROSE.sub("", line)) < 0.6 * len(line)


def _keep(sentence: str) -> bool:
    return (_MIN_CHARS <= len(sentence) <= _MAX_CHARS and len(_WORD.findall(sentence)) >= _MIN_WORDS
            and not _SCAFFOLDING.search(sentence) and not _TEASER.match(sentence))


def specificity(sentence: str) -> float:
    """Specifics per word of ``sentence`` (0 for none; about 1 for a sentence dense in them)."""
    words = max(1, len(_WORD.findall(sentence)))
    count = 0.0
    for match in _SPECIFIC.finditer(sentence):
        kind = match.lastgroup or ""
        if kind == "name" and match.group() in _SKIP:
            continue
        count += _WEIGHTS[kind]
    return float(count / words ** 0.75)
