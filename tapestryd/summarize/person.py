"""A named speaker's first-person sentence told in the third person: "I went to …" → "Caroline went to …".

A summary that names who said each sentence reads better, and shorter, as a report than as
a transcript: ``Caroline went to a support group.`` rather than ``Caroline: I went to a
support group.`` (two characters fewer, and phrased as a memory states it). Only a sentence
whose subject is the speaker alone is rewritten. The speaker's possessives follow in the
singular "they", as a name does not tell whether "his" or "her" is meant ("I lost my job" →
"Jon lost their job"). A sentence in which anything else points at a person by pronoun
("me", "I" again, "we", "you", …) stays ``Name: I …``: "Caroline took me there" or "Caroline
loves your painting" would change who is meant.

The verb is put in the third person by rule: an auxiliary by table ("I'm" → "is", "I've"
→ "has", "I don't" → "doesn't"), a past form (ending in "-ed" or an irregular past such as
"went") unchanged, a present form given its "-s" ("love" → "loves", "try" → "tries",
"watch" → "watches"); a verb whose past and present are written alike ("read", "put") is
left alone, as its tense cannot be told. An adverb between subject and verb ("I just
started", "I really have to") stays, and so does a time or place phrase before the subject
("On 7 May 2023 I went …" → "On 7 May 2023 Caroline went …").

:func:`first_person` reads such a sentence back for a known name, so a week ranks its
children's sentences as the speaker's own statements, as it ranks ``Name: I …``; it gives
only what :func:`third_person` turns back into the same text.
"""

from __future__ import annotations

import re

__all__ = ["first_person", "third_person"]

_ADVERBS = ("just", "also", "really", "recently", "finally", "actually", "still", "always", "never", "often",
            "usually", "even", "already", "sometimes", "once")
# The auxiliaries after "I" and what they become after a name (those not listed stay as they are).
_CHANGED = {"'m not": "is not", " am not": "is not", "'m": "is", " am": "is", "'ve": "has", " have": "has",
            " haven't": "hasn't", "'ll": "will", " don't": "doesn't", " do": "does"}
_UNCHANGED = (" was", " wasn't", " will", " won't", " can", " can't", " could", " couldn't", " would", " wouldn't",
              " should", " might", " must", " had", " hadn't", " did", " didn't")
_AUXILIARY = "|".join(map(re.escape, sorted([*_CHANGED, *_UNCHANGED], key=len, reverse=True)))
_SUBJECT = re.compile(rf"^I(?:(?P<aux>{_AUXILIARY})|\s+(?P<adverb>(?:{'|'.join(_ADVERBS)})\s+)?"
                      rf"(?:(?P<aux2>{_AUXILIARY.replace(chr(92) + ' ', '')})|(?P<verb>[a-z]+)))(?=[\s,.!?])")
# Read back: each third-person auxiliary and a first-person form it comes from.
_BACK = {"is not": "am not", "is": "am", "has": "have", "hasn't": "haven't", "doesn't": "don't", "does": "do",
         **{aux.strip(): aux.strip() for aux in _UNCHANGED}}
_PAST = frozenset(
    "went got made took saw bought found began wrote ran built chose left sold felt became spent taught caught kept "
    "brought thought gave won lost met came heard told said knew grew drove flew ate drank swam sang rode fell broke "
    "wore woke forgot understood stood sat slept paid sent lent".split())
_PRESENT_EED = frozenset("need feed bleed breed proceed succeed exceed speed heed".split())  # "-ed", not a past
_ALIKE = frozenset("put read set cut let hit quit hurt cost shut spread bet".split())  # past and present alike
# Words after "I" that are no verb to give an "-s" ("I myself fixed …", "I wanna …", "I sure do …").
_NO_VERB = frozenset("myself wanna gotta gonna kinda sorta sure".split())
# Anything after the subject that names a person by pronoun other than the speaker's possessives.
_PERSON = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|we|we're|we've|we'll|we'd|us|our|ours|ourselves|"
                     r"you|your|you're|you've|you'll|you'd|yours|yourself)\b", re.I)
# A present verb's "-s" does not reach a second verb joined to it ("I stay calm and find a way").
_PRESENT = frozenset({"has", "does", "doesn't", "hasn't"})
_COORDINATED = re.compile(r"\b(?:and|or|but)\b")
_QUOTE = re.compile("[\"\u201c\u201d]")
# A time or place phrase before the subject: "On 7 May 2023 I went …", "In 2022, I took …", "Yesterday I …".
_LEAD_WORDS = (r"(?:On|In|Around|Since|Recently|Lately|Today|Yesterday|Tonight|Last|This|Back|After|Before|Over|"
               r"At|Earlier|Later|Then)\b")
_LEAD = re.compile(rf"{_LEAD_WORDS}[^,.!?]{{0,40}}?,?\s(?=I\b)")
_THEIR = {"my": "their", "mine": "theirs", "myself": "themself"}
_MY = {v: k for k, v in _THEIR.items()}
# A whole word, not part of a file name or path ("my.cnf", "my/notes.txt").
_POSSESSIVE = re.compile(r"(?<![\w./\\-])(?:my|mine|myself)(?![\w-]|[./\\]\w)")
_THEIRS = re.compile(r"(?<![\w./\\-])(?:their|theirs|themself)(?![\w-]|[./\\]\w)")


def third_person(name: str, sentence: str) -> str:
    """``sentence`` ("I went …") with ``name`` as its subject ("Caroline went …"); "" when it cannot be told so.

    A time or place phrase before the subject stays before it ("On 7 May 2023 I went …" → "On 7 May 2023
    Caroline went …").
    """
    lead = _LEAD.match(sentence)
    if lead and not _PERSON.search(lead.group()):
        told = _told(name, sentence[lead.end():])
        return _POSSESSIVE.sub(lambda m: _THEIR[m.group()], lead.group()) + told if told else ""
    return _told(name, sentence)


def _told(name: str, sentence: str) -> str:
    """:func:`third_person` of a sentence opening on "I"."""
    match = _SUBJECT.match(sentence)
    if not match:
        return ""
    adverb = match.group("adverb") or ""
    if match.group("aux") or match.group("aux2"):
        aux = match.group("aux") or " " + match.group("aux2")
        verb = _CHANGED.get(aux, aux.strip())
    elif match.group("verb") in _ALIKE or match.group("verb") in _NO_VERB:
        return ""
    else:
        verb = _third(match.group("verb"))
    rest = sentence[match.end():]
    present = verb in _PRESENT or (bool(match.group("verb")) and verb != match.group("verb"))
    if _PERSON.search(rest) or present and (_COORDINATED.search(rest) or rest.startswith(",")):
        return ""  # "I mean, …", "I know, right?": a filler, not a statement of the speaker's
    if _QUOTE.search(rest) and _POSSESSIVE.search(rest):
        return ""  # a quoted "my" may be another's ('I heard Tomas say "my dad is sick"')
    return f"{name} {adverb}{verb}{_POSSESSIVE.sub(lambda m: _THEIR[m.group()], rest)}"


def first_person(sentence: str, names: frozenset[str]) -> tuple[str, str]:
    """``(name, "I …")`` for a sentence :func:`third_person` wrote for one of ``names``, else ``("", sentence)``."""
    for name in sorted(names):
        lead = re.match(rf"{_LEAD_WORDS}[^,.!?]{{0,40}}?,?\s(?={re.escape(name)}\b)", sentence)
        if lead:
            named, said = _first(sentence[lead.end():], names)
            if named and third_person(named, lead.group() + said) == sentence:
                return named, lead.group() + said
    return _first(sentence, names)


def _first(sentence: str, names: frozenset[str]) -> tuple[str, str]:
    """:func:`first_person` of a sentence opening on a name."""
    match = re.match(rf"(?P<name>[A-Z][a-z]+(?:-[A-Z][a-z]+)?) (?P<adverb>(?:{'|'.join(_ADVERBS)}) )?"
                     r"(?P<word>[a-z]+n't|[a-z]+)(?P<tail>.*)$", sentence, re.S)
    if not match or match.group("name") not in names:
        return "", sentence
    name, adverb, word = match.group("name"), match.group("adverb") or "", match.group("word")
    tail = _THEIRS.sub(lambda m: _MY[m.group()], match.group("tail"))
    readings = [f"{_BACK[word]}{tail}"] if word in _BACK else [base + tail for base in _bases(word)]
    if word == "is" and tail.startswith(" not"):
        readings.insert(0, f"am not{tail[4:]}")
    for reading in readings:
        said = f"I {adverb}{reading}"
        if third_person(name, said) == sentence:
            return name, said
    return "", sentence


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
    if (verb.endswith("ed") and verb not in _PRESENT_EED) or verb in _PAST:
        return verb
    if verb == "have":
        return "has"
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"
