"""Who is who in a conversation: the names its two sides call each other ("Hey Mel!").

Names are not in the messages' roles, but people name the one they answer: a message
opening "Hey Mel!" or "Thanks, John," or closing "…, Caroline!" names the *other* side of
the conversation (an opening counts at the start of a message only; code and quoted text
never count). :func:`vocatives` finds those names in one message; :func:`names_by_role`
counts them per role and gives each role the name it is most often called (ties: the first
one heard), or the fuller form of it when the role is called that too ("Hey Mel!" twice and
"Thanks, Melanie!" once name Melanie, as a memory of her should), when the two roles end up
with different names. A word that is a greeting's
object but no name ("Hey there", "Hi all", "Thanks everyone") never counts. For
:func:`names_by_role` a bare name opening a message ("John, I'm sorry …") or closing a
sentence with a full stop ("…, John.") is weaker evidence (a place can stand there too:
"Paris, …", "…, France."): it names a side only when no greeting or closing ``!``/``?``
named it; :func:`vocatives` never returns it.

The summarizer attributes sentences with it (:mod:`tapestryd.summarize.speakers`); the
messages projection records each message's vocatives, so search can tell whose turn a
question names (:mod:`tapestryd.projections.vocatives`). Text in, names out: this module
imports nothing of tapestryd.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterable

__all__ = ["names_by_role", "vocatives"]

_GREETING = (r"hey|hi|hello|hiya|heya|yo|dear|morning|good (?:morning|afternoon|evening|night)|thanks|thank you|"
             r"thx|congrats|congratulations|wow|whoa|oh|aw+|sorry|welcome back|great|nice|cool|awesome|bye|"
             r"see you|take care|happy birthday|ok|okay|yes|yeah|sure|well|haha|night|cheers")
_NAME = r"(?P<name>[A-Z][a-z]{1,20}(?:-[A-Z][a-z]+)?)"
# "Hey Mel!", "Thanks, John," "Hi Caroline." at the start of a message...
_OPENING = re.compile(rf"^\W*(?i:{_GREETING})(?:\s+(?i:so much|again|a lot|a ton))?,?\s+{_NAME}\s*[!,.?:;—-]")
# ... or "..., Caroline!" / "..., John?" closing a sentence (the comma first: re then skips to each comma,
# 3x faster over long texts than testing every character as the word character before it).
_CLOSING = re.compile(rf",(?<=[\w)],)\s+{_NAME}[!?](?=\s|$)")
# Weaker, for names_by_role only: "John, ..." opening a message, "..., John." closing a sentence.
_BARE = re.compile(rf"^{_NAME},\s")
_STOP_CLOSING = re.compile(rf",(?<=[\w)],)\s+{_NAME}\.(?=\s|$)")
_NOT_NAMES = {"There", "All", "Everyone", "Everybody", "Guys", "Team", "Folks", "Friend", "Buddy", "Man", "Dude",
              "Again", "You", "Y'all", "Yall", "Mate", "Sir", "Madam", "Bro", "Girl", "So", "The", "It", "That",
              "This", "What", "Yes", "No", "Ok", "Okay", "Sure", "Thanks", "Thank", "Well", "Hey", "Hi", "Hello",
              "Bye", "Anyway", "Right", "Wow", "Great", "Nice", "Cool", "Awesome", "Love", "Glad", "Sorry", "I"}
_FENCE = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.S)  # code says nothing about who is talking
_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”")  # nor does a quoted greeting ('it prints "Hello, Alice!"')


def names_by_role(messages: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``{role: name}`` from ``(role, text)`` messages: each role named by what the other roles call it.

    Empty unless exactly two roles speak and each is called by a name of its own (a half-named
    conversation is not attributed: an unnamed sentence after a named one would read as theirs).
    """
    heard: dict[str, Counter[str]] = {}
    weak: dict[str, Counter[str]] = {}
    order: list[str] = []
    roles: list[str] = []
    for role, text in messages:
        if role not in roles:
            roles.append(role)
        for counts, found in ((heard, vocatives(text)), (weak, _bare_vocatives(text))):
            for name in found:
                counts.setdefault(role, Counter())[name] += 1
                order.append(name)
    if len(roles) != 2:
        return {}
    names: dict[str, str] = {}
    for speaker, other in (roles, roles[::-1]):
        votes = heard.get(other) or weak.get(other)
        if votes:
            chosen = max(votes, key=lambda n: (votes[n], -order.index(n)))
            fuller = [n for n in {**heard.get(other, {}), **weak.get(other, {})} if n.startswith(chosen)]
            names[speaker] = max(fuller, key=len)  # "Mel" most often, "Melanie" once: "Melanie"
    return names if len(names) == 2 and len(set(names.values())) == 2 else {}


def vocatives(text: str) -> list[str]:
    """The names ``text`` calls the one it answers, in order: an opening greeting's, then each closing one's.

    "Hey Mel! … That's great, Caroline!" → ``["Mel", "Caroline"]``; ``[]`` for code, quoted
    text and greetings of no one by name ("Hey there!").
    """
    # Each substitution and the closing scan reads the whole text: each is skipped when the text lacks
    # what it looks for (a backtick, a quote, a closing's ! or ?; the substitutions add none of them).
    prose = _FENCE.sub("\n", text) if "`" in text else text
    opening = _OPENING.match(prose.lstrip())
    found = [opening.group("name")] if opening else []
    if "!" in prose or "?" in prose:
        unquoted = _QUOTED.sub(" ", prose) if '"' in prose or "“" in prose else prose
        found += [m.group("name") for m in _CLOSING.finditer(unquoted)]
    return [n for n in found if n not in _NOT_NAMES]


def _bare_vocatives(text: str) -> list[str]:
    """Names ``text`` may call the one it answers with no greeting: "John, …" opening it, "…, John." closing."""
    prose = _QUOTED.sub(" ", _FENCE.sub("\n", text))
    bare = _BARE.match(prose.lstrip())
    found = ([bare.group("name")] if bare else []) + [m.group("name") for m in _STOP_CLOSING.finditer(prose)]
    return [n for n in found if n not in _NOT_NAMES]
