"""The default provider: offline, deterministic extractive summaries.

Each node's input sentences (:mod:`tapestryd.summarize.sentences`: split into clauses
and stripped of greetings, fillers and hedges by :mod:`tapestryd.summarize.compress`) are
weighted with TF-IDF (scikit-learn). A sentence's score multiplies its content (the summed IDF of its
distinct content words), its centrality (cosine with the centroid of all sentences, the
centroid method of Radev et al., 2004, "Centroid-based summarization of multiple
documents"), its density in specifics (names, numbers, dates, identifiers, decisions) and
its tone (first-person statements up, and more so episodic ones: what I did, got or
decided, my things, dated events; small talk, cheering and "you" remarks down).
Questions are damped too: a memory keeps what was said, not what was asked.
Sentences are then chosen to stand for the whole input: greedy budgeted facility
location (Lin & Bilmes, 2011), where each input sentence, weighted by its score, counts as
covered by its most similar chosen sentence, and the sentence adding most coverage per
character is taken next while it fits the level's length budget
(:mod:`tapestryd.summarize.levels`). Weak sentences (under 30% of the best score: a short
summary beats a padded one) are never taken, a near-duplicate of a chosen sentence adds
no coverage, and the chosen ones are printed in their original order. The title is the
conversation's own (or, above L0, its children's titles joined) when it has one, else the
three heaviest non-numeric terms of the kept sentences. Same input, same output: no
randomness anywhere.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from tapestryd.summarize.base import Budget, Summary, SummaryRequest, Usage
from tapestryd.summarize.levels import target_chars
from tapestryd.summarize.sentences import Sentence, specificity, split_sentences
from tapestryd.summarize.tokens import estimate_tokens

__all__ = ["EXTRACTIVE_VERSION", "ExtractiveSummarizer"]

EXTRACTIVE_VERSION = "x5"
_WEAK = 0.3
_POOL = 400
_ROWS = 2000
_QUESTION = 0.5
_ROLE_WEIGHT = {"user": 1.15}
_TITLE_MAX = 70
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|me|mine|we|we're|we've|our|us)\b")
# Self-disclosure of events: "I/we (just) <past verb>", "my ...", and dated references. On the
# LoCoMo dev split such sentences state an annotated fact about twice as often as the rest.
_EPISODIC = re.compile(
    r"\b(?:I|I've|I'd|we|we've)\s+(?:just\s+|finally\s+|recently\s+|also\s+|actually\s+)?(?:\w+ed|went|got|made|"
    r"took|saw|bought|did|had|found|started|joined|won|lost|met|gave|began|wrote|ran|read|built|chose|tried|left|sold|"
    r"learnt|felt|became|spent|taught|caught|kept|brought|thought)\b|\b(?:recently|yesterday|ago|last (?:week|month|"
    r"year|night|weekend)|next (?:week|month|year)|tomorrow)\b|\bmy\b", re.I)
_EPISODIC_WEIGHT = 1.5
_SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've)\b", re.I)
_PHATIC = re.compile(
    r"^\W*(?:wow|hey|hi|hello|thanks|thank you|congrats|congratulations|awesome|great|cool|nice|glad|sounds|"
    r"that's|that is|so happy|i'm so|sure|yes|yeah|no problem|absolutely|love|good luck|bye|see you|take care|"
    r"of course|exactly|totally|definitely|i agree|me too|haha|lol|omg)\b", re.I)


class ExtractiveSummarizer:
    """Ranks and keeps the most informative sentences (see the module docstring)."""

    name = "extractive"
    model = "tfidf-centroid"
    prompt_version = EXTRACTIVE_VERSION
    local = True

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        """The summary of one node; one "call" of usage, tokens estimated from characters."""
        budget.check()
        source = "\n".join(p.text for p in request.inputs)
        limit = target_chars(request.level, request.source_chars, len(source))
        candidates = [Sentence(text, i, j, p.role) for i, p in enumerate(request.inputs)
                      for j, text in enumerate(split_sentences(p.text))]
        if candidates:
            text, title = _extract(candidates, limit, request.title_hint)
        else:
            text, title = _fallback(source, limit), _clip(request.title_hint) or "Untitled"
        usage = Usage(1, estimate_tokens(source), estimate_tokens(text + title))
        budget.spend(usage)
        return Summary(title, text, usage)

    def close(self) -> None:
        """Nothing to release."""


def _extract(candidates: list[Sentence], limit: int, title_hint: str) -> tuple[str, str]:
    matrix, terms, content = _vectorize([c.text for c in candidates])
    scores = _scores(candidates, matrix, content)
    chosen = _select(candidates, scores, matrix, limit)
    text = " ".join(candidates[i].text for i in sorted(chosen))
    if len(text) > limit:
        text = _clip(text, limit)
    return text, _clip(title_hint) or _keyword_title(candidates, chosen, matrix, terms)


def _vectorize(texts: Sequence[str]) -> tuple[Any, list[str], np.ndarray]:
    from sklearn import config_context  # type: ignore[import-untyped]
    from sklearn.feature_extraction.text import TfidfVectorizer  # type: ignore[import-untyped]

    vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
    try:
        with config_context(skip_parameter_validation=True):  # fixed, valid parameters: skip the per-call checks
            matrix = vectorizer.fit_transform(texts)
    except ValueError:  # every word is a stop word: nothing to weigh
        return None, [], np.zeros(len(texts))
    binary = matrix.copy()
    binary.data[:] = 1.0
    content = np.asarray(binary @ vectorizer.idf_).ravel()
    return matrix, list(vectorizer.get_feature_names_out()), content


def _scores(candidates: list[Sentence], matrix: Any, content: np.ndarray) -> np.ndarray:
    if matrix is None:
        centrality = np.zeros(len(candidates))
    else:
        centroid = np.asarray(matrix.mean(axis=0)).ravel()
        norm = float(np.linalg.norm(centroid)) or 1.0
        centrality = np.asarray(matrix @ centroid).ravel() / norm
    specific = np.array([specificity(c.text) for c in candidates])
    weight = np.array([_ROLE_WEIGHT.get(c.role, 1.0) * _tone(c.text) for c in candidates])
    return np.asarray((content + 1.0) * (0.5 + centrality) * (1.0 + specific) * weight, dtype=float)


def _tone(text: str) -> float:
    """Favours first-person statements, episodic ones most (what I did, decided, have); damps small talk."""
    factor = 1.6 if _FIRST_PERSON.search(text) else 0.8 if _SECOND_PERSON.search(text) else 1.0
    if _EPISODIC.search(text):
        factor *= _EPISODIC_WEIGHT
    if text.rstrip().endswith("!"):
        factor *= 0.8
    if text.rstrip().endswith("?"):
        factor *= _QUESTION
    return factor * (0.4 if _PHATIC.match(text) else 1.0)


def _select(candidates: list[Sentence], scores: np.ndarray, matrix: Any, limit: int) -> list[int]:
    """Greedy budgeted facility location: the sentences that best stand for all the others.

    Coverage ``F(S) = sum_i w_i * max_{j in S} cos(i, j)`` over the input sentences ``i``
    (weight ``w_i``: its score over the best), maximised greedily by gain per character
    within ``limit`` characters (Lin & Bilmes, 2011, "A class of submodular functions for
    document summarization"). On a huge day only the best-scoring ``_ROWS`` sentences count
    and the best ``_POOL`` are candidates, so the cost stays bounded; weak ones (under
    ``_WEAK`` of the best score) are never taken. A repeat of a chosen sentence gains
    nothing. Returns indices into ``candidates``.
    """
    lengths = np.array([len(c.text) + 1 for c in candidates], dtype=float)
    ranked = np.argsort(-scores, kind="stable")
    rows, pool = np.sort(ranked[:_ROWS]), np.sort(ranked[:_POOL])
    pool = pool[(scores[pool] >= _WEAK * scores.max()) & (lengths[pool] <= limit)]
    if matrix is None or not len(pool):
        return [int(np.argmax(scores))]
    sims = (matrix[rows] @ matrix[pool].T).tocsc()
    picks = _cover(sims, scores[rows] / scores.max(), lengths[pool], limit)
    return [int(pool[p]) for p in picks] or [int(np.argmax(scores))]


def _cover(sims: Any, weights: np.ndarray, lengths: np.ndarray, limit: int) -> list[int]:
    """Columns of ``sims`` (CSC, covered sentences x candidates) picked greedily by coverage gain per character."""
    rows, cols = sims.indices, np.repeat(np.arange(sims.shape[1]), np.diff(sims.indptr))
    covered = np.zeros(sims.shape[0])
    chosen: list[int] = []
    used = 0.0
    while True:
        gain = np.bincount(cols, weights[rows] * np.maximum(sims.data - covered[rows], 0.0), sims.shape[1])
        ratio = np.where(used + lengths <= limit, gain / lengths, 0.0)
        best = int(np.argmax(ratio))
        if ratio[best] <= 0:
            return chosen
        chosen.append(best)
        used += lengths[best]
        span = slice(sims.indptr[best], sims.indptr[best + 1])
        covered[rows[span]] = np.maximum(covered[rows[span]], sims.data[span])


def _keyword_title(candidates: list[Sentence], chosen: list[int], matrix: Any, terms: list[str]) -> str:
    if matrix is None:
        return _clip(" ".join(candidates[chosen[0]].text.split()[:8]))
    weights = np.asarray(matrix[chosen].sum(axis=0)).ravel()
    ranked = sorted(range(len(terms)), key=lambda i: (-weights[i], terms[i]))
    top = [terms[i] for i in ranked if weights[i] > 0 and not terms[i].isdigit()][:3]
    cased = _original_case(" ".join(candidates[i].text for i in chosen))
    return _clip(", ".join(cased.get(t, t) for t in top)) or "Untitled"


def _original_case(text: str) -> dict[str, str]:
    cased: dict[str, str] = {}
    for word in re.findall(r"\b\w\w+\b", text):
        cased.setdefault(word.lower(), word)
    return cased


def _fallback(source: str, limit: int) -> str:
    flat = " ".join(source.split())
    return _clip(flat, limit) if flat else "(no readable text)"


def _clip(text: str, limit: int = _TITLE_MAX) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:max(1, limit - 1)].rsplit(" ", 1)[0].rstrip(",;:…· ") + "…"
