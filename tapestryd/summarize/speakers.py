"""Who said a sentence: speaker names learned from how the two sides address each other.

A summary of a conversation where both sides speak of themselves ("I went to …") must say
whose sentence it is. Names are not in the messages' roles, but people name the one they
answer: a message opening "Hey Mel!" or "Thanks, John," or closing "…, Caroline!" names the
*other* side of the conversation (an opening counts at the start of a message only; code
and quoted text never count). :func:`names_by_role` counts those vocatives per role
and gives each role the name it is most often called (ties: the first one heard), when the
two roles end up with different names. A word that is a greeting's object but no name
("Hey there", "Hi all", "Thanks everyone") never counts.

:func:`split_speaker` reads back the ``Name: `` prefix a summary sentence was written with,
so a day's or a week's summary keeps the attribution of the sentences it takes from its
children; :func:`unaddressed` drops the vocative itself once the speaker is named ("Maria,
since we talked, …" → "Since we talked, …"); :func:`attributed` writes sentences grouped by speaker (``Caroline: A. B.
Melanie: C.``), in the order given.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable, Sequence

__all__ = ["attributed", "names_by_role", "split_speaker", "unaddressed"]

_GREETING = (r"hey|hi|hello|hiya|heya|yo|dear|morning|good (?:morning|afternoon|evening|night)|thanks|thank you|"
             r"thx|congrats|congratulations|wow|whoa|oh|aw+|sorry|welcome back|great|nice|cool|awesome|bye|"
             r"see you|take care|happy birthday|ok|okay|yes|yeah|sure|well|haha|night|cheers")
_NAME = r"(?P<name>[A-Z][a-z]{1,20}(?:-[A-Z][a-z]+)?)"
# "Hey Mel!", "Thanks, John," "Hi Caroline." at the start of a message...
_OPENING = re.compile(rf"^\W*(?i:{_GREETING})(?:\s+(?i:so much|again|a lot|a ton))?,?\s+{_NAME}\s*[!,.?:;—-]")
# ... or "..., Caroline!" / "..., John?" closing a sentence.
_CLOSING = re.compile(rf"[\w)],\s+{_NAME}[!?](?=\s|$)")
_NOT_NAMES = {"There", "All", "Everyone", "Everybody", "Guys", "Team", "Folks", "Friend", "Buddy", "Man", "Dude",
              "Again", "You", "Y'all", "Yall", "Mate", "Sir", "Madam", "Bro", "Girl", "So", "The", "It", "That",
              "This", "What", "Yes", "No", "Ok", "Okay", "Sure", "Thanks", "Thank", "Well", "Hey", "Hi", "Hello",
              "Bye", "Anyway", "Right", "Wow", "Great", "Nice", "Cool", "Awesome", "Love", "Glad", "Sorry", "I"}
_FENCE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.S)  # code says nothing about who is talking
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")  # nor does a quoted greeting ('it prints "Hello, Alice!"')
# A sentence written by attributed(): "Caroline: I went …".
_PREFIX = re.compile(r"^(?P<name>[A-Z][a-z]{1,20}(?:-[A-Z][a-z]+)?): (?P<rest>\S.*)$", re.S)


def names_by_role(messages: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``{role: name}`` from ``(role, text)`` messages: each role named by what the other roles call it.

    Empty unless exactly two roles speak and each is called by a name of its own (a half-named
    conversation is not attributed: an unnamed sentence after a named one would read as theirs).
    """
    heard: dict[str, Counter[str]] = {}
    order: list[str] = []
    roles: list[str] = []
    for role, text in messages:
        if role not in roles:
            roles.append(role)
        for name in _vocatives(text):
            heard.setdefault(role, Counter())[name] += 1
            order.append(name)
    if len(roles) != 2:
        return {}
    names: dict[str, str] = {}
    for speaker, other in (roles, roles[::-1]):
        votes = heard.get(other)
        if votes:
            names[speaker] = max(votes, key=lambda n: (votes[n], -order.index(n)))
    return names if len(names) == 2 and len(set(names.values())) == 2 else {}


def _vocatives(text: str) -> list[str]:
    prose = _FENCE.sub("\n", text)
    opening = _OPENING.match(prose.lstrip())
    found = [opening.group("name")] if opening else []
    found += [m.group("name") for m in _CLOSING.finditer(_QUOTED.sub(" ", prose))]
    return [n for n in found if n not in _NOT_NAMES]


def unaddressed(sentence: str, names: Iterable[str]) -> str:
    """``sentence`` without a vocative naming one of ``names`` at its start or end.

    "Maria, since we talked, it's been tough." → "Since we talked, it's been tough.";
    "That's a great dream, Jon!" → "That's a great dream!". Unchanged when less than three
    words would be left.
    """
    out = sentence
    for name in names:
        out = re.sub(rf"^{re.escape(name)},\s+|,\s+{re.escape(name)}(?=[!?.]*$)", "", out)
    if out == sentence or len(out.split()) < 3:
        return sentence
    return out[0].upper() + out[1:]


def split_speaker(sentence: str) -> tuple[str, str]:
    """``(name, text)`` of a sentence written as ``Name: text``; ``("", sentence)`` otherwise."""
    match = _PREFIX.match(sentence)
    return (match.group("name"), match.group("rest")) if match else ("", sentence)


def attributed(sentences: Sequence[tuple[str, str]]) -> str:
    """``(speaker, text)`` pairs as prose, a ``Name: `` before each run of one speaker's sentences."""
    out: list[str] = []
    last = ""
    for speaker, text in sentences:
        out.append(f"{speaker}: {text}" if speaker and speaker != last else text)
        last = speaker
    return " ".join(out)
