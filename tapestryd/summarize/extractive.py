"""The default provider: offline, deterministic extractive summaries that keep facts and read as prose.

Each node's input sentences (:mod:`tapestryd.summarize.sentences`: code, markup, headings,
list stubs and assistant scaffolding such as "Certainly, I'll…" or "Let me know if…"
dropped; greetings and fillers cut by :mod:`tapestryd.summarize.compress`) are weighted
with TF-IDF (scikit-learn). A sentence's score multiplies its content (the summed IDF of
its distinct content words), its centrality (cosine with the centroid of all sentences,
Radev et al., 2004), its density in specifics (names, numbers, dates, identifiers,
decisions) and its tone (first-person statements up, more when the speaker is the subject
and most when episodic: what I did, got or decided, my things, dated events; questions,
small talk, "you" remarks, advice such as "Let's keep going", a resolve or wish without a
number or a name, "I'll keep pushing forward.", a feeling or opinion without one ("It means a
lot to me."), and sentences opening on a
pronoun that points back, "It was so powerful.", down). The user's words weigh a little
more than an assistant's, unless both sides are named people, who weigh alike.

Sentences are then chosen to stand for the whole input: greedy budgeted facility location
(Lin & Bilmes, 2011), where each input sentence, weighted by its score, counts as covered
by its most similar chosen sentence, and the sentence adding most coverage per character
is taken next while it fits the level's length budget (:mod:`tapestryd.summarize.levels`).
A near-duplicate of a chosen sentence (a repeat across children) adds no coverage, so the
budget spreads over the period's distinct topics and conversations; weak sentences (under
30% of the best score) are never taken.

When both sides of a conversation are named (:mod:`tapestryd.vocatives`: the
names they call each other, "Hey Mel!"), each sentence is attributed, told in the third person
where that is safe (:mod:`tapestryd.summarize.person`: "Caroline went to … Melanie: I ran
with my kids …"), the vocatives themselves dropped; a week or above keeps the attribution
of the sentences it takes from its children, reading "Caroline went …" back as her own
statement, ranked as "Caroline: I went …" is.

A day (L1) is extracted from what was said that day, not from its children's summaries:
its request's ``sources`` (every conversation-day's messages, each conversation's speakers
named on their own) are its candidates, so the day's budget goes to the day's best
sentences wherever they stand (on the dev split, a selector that knows the facts keeps
at most 18.8% of them at L1 from the L0 summaries' sentences, 39% from the messages).

The text is written from whole sentences only (never cut; when not even the best one fits,
it alone is the summary), in time order (passage, then position), joined as prose. At L0
and L1 the relative time words of a chosen sentence are resolved against the node's day
(:mod:`tapestryd.summarize.relative_time`: "yesterday" → "on 7 May 2023"); above a day,
where a sentence's day is unknown, one that still holds such a word is passed over.
Ranking reads each sentence as said; only the written text carries the date. Titles come
from :mod:`tapestryd.summarize.titles`. Same input, same output: no randomness anywhere.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Sequence

import numpy as np

from tapestryd.summarize.base import Budget, Passage, Summary, SummaryRequest, Usage
from tapestryd.summarize.levels import target_chars
from tapestryd.summarize.person import first_person
from tapestryd.summarize.relative_time import has_relative, resolve_relative, without_resolved
from tapestryd.summarize.sentences import Sentence, specificity, split_sentences
from tapestryd.summarize.speakers import attributed, split_speaker, unaddressed, written
from tapestryd.summarize.titles import choose_title
from tapestryd.summarize.tokens import estimate_tokens
from tapestryd.vocatives import names_by_role

__all__ = ["EXTRACTIVE_VERSION", "ExtractiveSummarizer"]

EXTRACTIVE_VERSION = "x23"
_WEAK = 0.3
_POOL = 400
_ROWS = 2000
_FALLBACK_CHARS, _FALLBACK_WORDS = 200, 30
_QUESTION = 0.5
_ROLE_WEIGHT = {"user": 1.15}
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|me|mine|we|we're|we've|our|us)\b")
# Self-disclosure of events: "I/we (just) <past verb>", "my ...", and dated references. On the
# LoCoMo dev split such sentences state an annotated fact about twice as often as the rest.
_EPISODIC = re.compile(
    r"\b(?:I|I've|I'd|we|we've)\s+(?:just\s+|finally\s+|recently\s+|also\s+|actually\s+)?(?:\w+ed|went|got|made|"
    r"took|saw|bought|did|had|found|started|joined|won|lost|met|gave|began|wrote|ran|read|built|chose|tried|left|sold|"
    r"learnt|felt|became|spent|taught|caught|kept|brought|thought)\b|\b(?:recently|yesterday|ago|last (?:week|month|"
    r"year|night|weekend)|next (?:week|month|year)|tomorrow)\b|\bmy\b", re.I)
_EPISODIC_WEIGHT = 1.5
# A sentence opening on a pronoun that points back ("It was so powerful.", "They opened my eyes.") needs the
# sentence before it; out of its passage it says little.
_ANAPHORIC = re.compile(r"(?:It|It's|They|They're|They've|This|That|That's|These|Those|He|She|Them)\b")
_ANAPHORIC_WEIGHT = 0.6
_SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've)\b", re.I)
# The speaker as the sentence's subject ("I moved …", "My sister …", "We booked …") states something about
# themselves; advice and exhortation ("Let's keep …", "You should …") states nothing that happened. On the dev
# split a sentence opening on the speaker holds an annotated fact about 1.6 times as often as the rest; one
# giving advice, or addressing "you", about 0.6 times as often.
_SELF_SUBJECT = re.compile(r"(?:I|I'm|I've|I'd|I'll|My|We|We're|We've|We'd|We'll|Our)\b")
_SELF_SUBJECT_WEIGHT = 1.4
_ADVICE = re.compile(r"^(?:Let's|Let us)\b|\b(?:should|must|need to|have to|ought to)\b", re.I)
_ADVICE_WEIGHT = 0.6
# A resolve or wish opening on the speaker ("I'll keep pushing forward.", "We can make a difference.") names
# nothing that happened or is booked unless it carries a number or a name ("I'll fly to Oslo in May." keeps
# its weight): on the dev split 25% of the first kind match an annotated fact, against 50% of the speaker's
# other statements.
_INTENT = re.compile(r"(?:I|We)(?:'ll| will| won't| wanna| want to|'m gonna|'m going to| can't wait| can| could| hope|"
                     r" just want)\b")
_CONCRETE = re.compile(r"\d|(?<=\s)(?!I\b|I'|OK\b)[A-Z]")
_INTENT_WEIGHT = 0.6
# A feeling or opinion with no number or name ("I feel so grateful for all of it.", "It means a lot to me.")
# reports a state of mind, not what happened, is owned or is planned: on the dev split such candidates hold
# 0.46 annotated facts per 100 characters against 0.70 for the rest.
_FEELING = re.compile(r"\b(?:feel|feels|felt|feeling|love|loved|hope|think|believe|means?|meant|glad|happy|proud|"
                      r"excited|grateful|thankful|appreciate)\b", re.I)
_FEELING_WEIGHT = 0.6
_OPENING_NAME = re.compile(r"([A-Z][a-z]+(?:-[A-Z][a-z]+)?):? ")
_PHATIC = re.compile(
    r"^\W*(?:wow|hey|hi|hello|thanks|thank you|congrats|congratulations|awesome|great|cool|nice|glad|sounds|"
    r"that's|that is|so happy|i'm so|sure|yes|yeah|no problem|absolutely|love|good luck|bye|see you|take care|"
    r"of course|exactly|totally|definitely|i agree|me too|haha|lol|omg)\b", re.I)


class ExtractiveSummarizer:
    """Chooses informative, non-redundant whole sentences (see the module docstring)."""

    name = "extractive"
    model = "tfidf-coverage"
    prompt_version = EXTRACTIVE_VERSION
    local = True

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        """The summary of one node; one "call" of usage, tokens estimated from characters."""
        budget.check()
        source = "\n".join(p.text for p in (_flat(request.sources) or request.inputs))
        limit = target_chars(request.level, request.source_chars, len(source))
        candidates = _candidates(request)
        if candidates:
            text, title = _extract(candidates, limit, request)
        else:
            text, title = _fallback(source), choose_title(request.title_hint, [], request.level, source=source,
                                                          period=request.period)
        usage = Usage(1, estimate_tokens(source), estimate_tokens(text + title))
        budget.spend(usage)
        return Summary(title, text, usage)

    def close(self) -> None:
        """Nothing to release."""


def _flat(groups: Sequence[Sequence[Passage]]) -> list[Passage]:
    return [p for group in groups for p in group]


def _candidates(request: SummaryRequest) -> list[Sentence]:
    """Every input sentence, with how it would be written (relative dates resolved) and its speaker.

    A day with ``sources`` is read from its conversations' messages, each conversation's
    speakers named on their own; otherwise a node reads its inputs (messages at L0, child
    summaries above).
    """
    day = date.fromisoformat(request.day) if request.level <= 1 and request.day else None
    if request.sources:
        out: list[Sentence] = []
        first = 0
        for group in request.sources:
            out += _sentences(group, first, day, said=True)
            first += len(group)
        if out:
            return out
    return _sentences(request.inputs, 0, day, said=request.level == 0)


def _sentences(passages: Sequence[Passage], first: int, day: date | None, *, said: bool) -> list[Sentence]:
    """The sentences of ``passages`` (numbered from ``first``): messages when ``said``, else summaries."""
    names = names_by_role((p.role, p.text) for p in passages) if said else {}
    told = frozenset() if said else _speaker_names(passages)
    out = []
    for i, passage in enumerate(passages, first):
        speaker = run = names.get(passage.role, "")
        for j, text in enumerate(split_sentences(passage.text)):
            if not said:  # a child summary's "Caroline: ..." (before x10: a run goes on to the next name)
                named, text = split_speaker(text)
                read_back = ""
                if not named:
                    read_back, text = first_person(text, told)
                speaker = named or read_back or (run if _FIRST_PERSON.match(text) else "")
                run = "" if read_back else speaker  # a name read back names its own sentence only
            elif names:
                text = unaddressed(text, names.values())
            if day is None and has_relative(text):
                continue  # "yesterday" in a week's input: its day is unknown, it cannot be placed
            shown = resolve_relative(text, day) if day is not None else text
            plain = without_resolved(text)
            out.append(Sentence(plain, i, j, passage.role, shown if shown != plain else "", speaker))
    return out


def _speaker_names(passages: Sequence[Passage]) -> frozenset[str]:
    """The names child summaries may give a speaker: a ``Name: `` prefix, or a capitalised word that opens a
    sentence and is not an English function word ("Caroline went …", not "She went …" or "There is …").

    :func:`tapestryd.summarize.person.first_person` reads a sentence back only when it is exactly what it
    would write again, so a name that is no speaker ("Python has a GIL.") changes how the sentence ranks,
    never its text.
    """
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    names = set()
    for text in (s for p in passages for s in split_sentences(p.text)):
        opening = _OPENING_NAME.match(text)
        if opening and opening.group(1).lower() not in ENGLISH_STOP_WORDS:
            names.add(opening.group(1))
    return frozenset(names)


def _extract(candidates: list[Sentence], limit: int, request: SummaryRequest) -> tuple[str, str]:
    matrix, terms, content = _vectorize([c.text for c in candidates])
    chosen = _select(candidates, _scores(candidates, matrix, content), matrix, limit)
    ordered = sorted(chosen, key=lambda i: (candidates[i].passage, candidates[i].index))
    text = attributed([(candidates[i].speaker, candidates[i].shown or candidates[i].text) for i in ordered])
    return text, choose_title(request.title_hint, [candidates[i] for i in chosen], request.level,
                              weights=_term_weights(matrix, chosen, terms),
                              source="\n".join(c.text for c in candidates), period=request.period)


def _vectorize(texts: Sequence[str]) -> tuple[Any, list[str], np.ndarray]:
    from sklearn import config_context
    from sklearn.feature_extraction.text import TfidfVectorizer

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
    weight = np.array([_role_weight(c) * _tone(c.text) for c in candidates])
    return np.asarray((content + 1.0) * (0.5 + centrality) * (1.0 + specific) * weight, dtype=float)


def _role_weight(sentence: Sentence) -> float:
    """The user's own words count more than an assistant's; two named people (``speaker`` set) count alike."""
    return 1.0 if sentence.speaker else _ROLE_WEIGHT.get(sentence.role, 1.0)


def _tone(text: str) -> float:
    """Favours the speaker's own statements (as subject, episodic most); damps advice, bare resolves and
    feelings, "you" and small talk."""
    factor = (1.6 if _FIRST_PERSON.search(text) else 1.0) * (0.8 if _SECOND_PERSON.search(text) else 1.0)
    if _SELF_SUBJECT.match(text):
        factor *= _SELF_SUBJECT_WEIGHT
    elif _ADVICE.search(text):
        factor *= _ADVICE_WEIGHT
    if _EPISODIC.search(text):
        factor *= _EPISODIC_WEIGHT
    if text.rstrip().endswith("!"):
        factor *= 0.8
    if text.rstrip().endswith("?"):
        factor *= _QUESTION
    if _ANAPHORIC.match(text):
        factor *= _ANAPHORIC_WEIGHT
    if _INTENT.match(text) and not _CONCRETE.search(text):
        factor *= _INTENT_WEIGHT
    if _FEELING.search(text) and not _CONCRETE.search(text):
        factor *= _FEELING_WEIGHT
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
    lengths = np.array([len(written(c.speaker, c.shown or c.text)) + 1 for c in candidates],
                       dtype=float)
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


def _term_weights(matrix: Any, chosen: list[int], terms: list[str]) -> dict[str, float]:
    if matrix is None or not chosen:
        return {}
    weights = np.asarray(matrix[chosen].sum(axis=0)).ravel()
    return {terms[i]: float(weights[i]) for i in np.flatnonzero(weights)}


def _fallback(source: str) -> str:
    """A segment without a sentence worth keeping: its first short messages, whole, as one list sentence."""
    pieces: list[str] = []
    used = 0
    for line in filter(None, (" ".join(line.split()) for line in source.splitlines())):
        if pieces and used + len(line) > _FALLBACK_CHARS:
            break
        pieces.append(" ".join(line.split()[:_FALLBACK_WORDS]).rstrip(".;,"))  # code or a wall of text: its opening
        used += len(pieces[-1]) + 2
    text = "; ".join(pieces)
    return (text if text.endswith(("?", "!")) else text + ".") if pieces else "(no readable text)"
