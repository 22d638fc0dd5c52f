"""Titles for extractive summaries: a short noun phrase naming the node's main topic.

* A conversation-day (L0) keeps its conversation's own title when it has one.
* Above L0 the title hint is the children's titles joined (``Sourdough schedule · Lisbon
  trip``); the title is the one child title whose words weigh most in the chosen
  sentences: the main topic, not a list.
* Without a hint, the title is the heaviest phrase of the chosen sentences: a run of two to
  five content words (not stop words, not past forms or adverbs at its ends), which may hold
  ``of``, ``for``, ``and``, ``with``, ``in`` or ``on`` inside (``Pricing calculator for
  LLM APIs``), weighed by the TF-IDF weight of its words in the chosen sentences.

* Without a phrase in the chosen sentences, the phrase of the whole input whose words
  recur most; without any (a lone greeting), the level and period: ``Conversation on
  Thursday 20 November 2025``.

A title never ends in an ellipsis: a long one is cut at a word boundary.
"""

from __future__ import annotations

import re
from typing import Sequence

from tapestryd.summarize.base import LEVEL_NAMES
from tapestryd.summarize.sentences import Sentence

__all__ = ["TITLE_MAX", "choose_title"]

TITLE_MAX = 70
_MAX_WORDS = 5
_JOINERS = {"of", "for", "and", "with", "in", "on"}
_WORD = re.compile(r"[A-Za-z][\w'’.+-]*[\w+]|[A-Za-z]|\d[\d.,%]*")
_BREAK = re.compile(r"[,;:.!?()\[\]\"“”]\s|[—–\n]")
_WEAK_END = re.compile(r"(?:ed|ly|ing)$", re.I)
_PAST = re.compile(r"\b[a-z]+ed\b|\b(?:showed|shown|went|got|made|took|saw|had|did|said|told|was|were)\b")
_UNTITLED = "Untitled"  # what titles fell back to before a node was named by its period
_SPEAKER = re.compile(r"\b[A-Z][a-z]+:\s")  # "Assistant: " attributions name no topic


def choose_title(hint: str, chosen: Sequence[Sentence], level: int, *, weights: dict[str, float] | None = None,
                 source: str = "", period: str = "") -> str:
    """The node's title from its hint, its chosen sentences, else its whole ``source`` text.

    ``weights`` maps lower-case terms to their TF-IDF weight in the chosen sentences. When
    neither holds a phrase (a greeting, a truncated tool note), the phrase of ``source``
    whose words recur most names it; failing that, what it is and when (``Conversation on
    Thursday 20 November 2025``). Old "Untitled" child titles in ``hint`` are passed over.
    """
    weights = weights or {}
    titles = [t.strip() for t in hint.split(" · ") if t.strip() and t.strip() != _UNTITLED]
    if titles and level == 0:
        return _cut(hint)
    if titles:
        return _cut(max(titles, key=lambda t: (_weight(t, weights), -titles.index(t))))
    phrase = _best_phrase(" ".join(s.text for s in chosen), weights) or _best_phrase(source, _counts(source))
    if phrase:
        return _cut(phrase[0].upper() + phrase[1:])
    what = LEVEL_NAMES.get(level, "summary").capitalize()
    return _cut(f"{what} on {period}" if level <= 1 and period else f"{what} of {period}" if period else what)


def _counts(text: str) -> dict[str, float]:
    """How often each lower-case word occurs in ``text``: the weights of a phrase when nothing else weighs it."""
    counts: dict[str, float] = {}
    for word in _WORD.findall(text):
        counts[word.lower()] = counts.get(word.lower(), 0.0) + 1.0
    return counts


def _weight(text: str, weights: dict[str, float]) -> float:
    return sum(weights.get(w.lower(), 0.0) for w in set(_WORD.findall(text)))


def _best_phrase(text: str, weights: dict[str, float]) -> str:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    best, best_score = "", 0.0
    for piece in _BREAK.split(_SPEAKER.sub(". ", text)):
        words = _WORD.findall(piece)
        for start in range(len(words)):
            for end in range(start + 2, min(start + _MAX_WORDS, len(words)) + 1):
                run = words[start:end]
                if not _is_phrase(run, ENGLISH_STOP_WORDS):
                    continue
                score = sum(weights.get(w.lower(), 0.0) for w in run)
                if score > best_score:
                    best, best_score = " ".join(run), score
    return best


def _is_phrase(run: list[str], stop: frozenset[str]) -> bool:
    """Content words at both ends, joiners only inside, no other stop word, no lower-case verb-like form."""
    if any(_WEAK_END.search(w) and not w[0].isupper() for w in (run[0], run[-1])) or _PAST.search(" ".join(run)):
        return False
    if any(q in w for w in run for q in "'’"):  # "I'll research", "don't": a clause, not a name
        return False
    return (run[0].lower() not in stop and run[-1].lower() not in stop
            and all(w.lower() not in stop or w.lower() in _JOINERS for w in run[1:-1]))


def _cut(title: str) -> str:
    title = " ".join(title.split())
    if len(title) <= TITLE_MAX:
        return title
    return title[:TITLE_MAX + 1].rsplit(" ", 1)[0].rstrip(",;:·-– ")
