"""A named speaker's first-person sentence told in the third person: "I went to …" → "Caroline went to …".

A summary that names who said each sentence reads better, and shorter, as a report than as
a transcript: ``Caroline went to a support group.`` rather than ``Caroline: I went to a
support group.`` (two characters fewer, and phrased as a memory states it). Only a sentence
whose subject is the speaker alone is rewritten, and only when nothing else in it points
at a person by pronoun ("my", "we", "you", …), since "Caroline took my advice" or "Caroline
loves your painting" would change who is meant; the rest stay ``Name: I …``.

The verb is put in the third person by rule: an auxiliary by table ("I'm" → "is", "I've"
→ "has", "I don't" → "doesn't"), a past form (ending in "-ed" or an irregular past such as
"went") unchanged, a present form given its "-s" ("love" → "loves", "try" → "tries",
"watch" → "watches"); a verb whose past and present are written alike ("read", "put") is
left alone, as its tense cannot be told. An adverb between subject and verb ("I just
started") stays.

:func:`first_person` reads such a sentence back for a known name, so a week ranks its
children's sentences as the speaker's own statements, as it ranks ``Name: I …``; it gives
only what :func:`third_person` turns back into the same text.
"""

from __future__ import annotations

import re

__all__ = ["first_person", "third_person"]

_ADVERBS = ("just", "also", "really", "recently", "finally", "actually", "still", "always", "never", "often",
            "usually", "even", "already", "sometimes", "once")
# "I" with an auxiliary, and what it becomes after a name (the others stay as they are).
_AUXILIARIES = {"'m not": "is not", " am not": "is not", "'m": "is", " am": "is", "'ve": "has", " have": "has",
                " haven't": "hasn't", "'ll": "will", " don't": "doesn't", " do": "does"}
_UNCHANGED = (" was", " wasn't", " will", " won't", " can", " can't", " could", " couldn't", " would", " wouldn't",
              " should", " might", " must", " had", " hadn't", " did", " didn't")
_AUXILIARY = re.compile("^I(?P<aux>" + "|".join(map(re.escape, [*_AUXILIARIES, *_UNCHANGED])) + r")(?=\s)")
# Read back: the third-person auxiliary and the first-person form it came from.
_BACK = {"is not": " am not", "is": " am", "has": " have", "hasn't": " haven't", "doesn't": " don't", "does": " do",
         **{aux.strip(): aux for aux in _UNCHANGED}}
_VERB = re.compile(rf"^I\s+(?P<adverb>(?:{'|'.join(_ADVERBS)})\s+)?(?P<verb>[a-z]+)\b")
_PAST = frozenset(
    "went got made took saw bought found began wrote ran built chose left sold felt became spent taught caught kept "
    "brought thought gave won lost met came heard told said knew grew drove flew ate drank swam sang rode fell broke "
    "wore woke forgot understood stood sat slept paid sent lent".split())
_ALIKE = frozenset("put read set cut let hit quit hurt cost shut spread bet".split())  # past and present alike
# Anything after the subject that names a person by pronoun: rewritten, it would point elsewhere.
_PERSON = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|my|mine|myself|we|we're|we've|we'll|we'd|us|our|ours|ourselves|"
                     r"you|your|you're|you've|you'll|you'd|yours|yourself)\b", re.I)


def third_person(name: str, sentence: str) -> str:
    """``sentence`` ("I went …") with ``name`` as its subject ("Caroline went …"); "" when it cannot be told so."""
    match = _AUXILIARY.match(sentence)
    if match:
        aux = match.group("aux")
        verb = _AUXILIARIES.get(aux, aux.strip())
    else:
        match = _VERB.match(sentence)
        if not match or match.group("verb") in _ALIKE:
            return ""
        verb = (match.group("adverb") or "") + _third(match.group("verb"))
    rest = sentence[match.end():]
    return "" if _PERSON.search(rest) else f"{name} {verb}{rest}"


def first_person(sentence: str, names: frozenset[str]) -> tuple[str, str]:
    """``(name, "I …")`` for a sentence :func:`third_person` wrote for one of ``names``, else ``("", sentence)``."""
    match = re.match(r"(?P<name>[A-Z][a-z]+(?:-[A-Z][a-z]+)?) (?P<rest>\S.*)$", sentence, re.S)
    if not match or match.group("name") not in names:
        return "", sentence
    name, rest = match.group("name"), match.group("rest")
    head, _, tail = rest.partition(" ")
    for said in _candidates(head, tail):
        if third_person(name, said) == sentence:
            return name, said
    return "", sentence


def _candidates(head: str, tail: str) -> list[str]:
    """First-person readings of ``head tail`` (the words after a name) to try, most likely first."""
    second, _, after = tail.partition(" ")
    if f"{head} {second}" in _BACK:
        return [f"I{_BACK[f'{head} {second}']} {after}".rstrip()]
    if head in _BACK:
        return [f"I{_BACK[head]} {tail}".rstrip()]
    if head in _ADVERBS:
        return [f"I {head} {base} {after}".rstrip() for base in _bases(second)]
    return [f"I {base} {tail}".rstrip() for base in _bases(head)]


def _bases(word: str) -> list[str]:
    """The present forms ``word`` may have come from ("tries" → "try"), or itself (a past form)."""
    out = [word]
    if word.endswith("ies"):
        out.append(word[:-3] + "y")
    if word.endswith("es"):
        out.append(word[:-2])
    if word.endswith("s"):
        out.append(word[:-1])
    return out


def _third(verb: str) -> str:
    """The third-person form of a verb after "I": a past form unchanged, a present one given its "-s"."""
    if verb.endswith("ed") or verb in _PAST:
        return verb
    if verb == "have":
        return "has"
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"
