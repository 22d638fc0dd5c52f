"""Who said a sentence, written into a summary: ``Caroline: I went to … Melanie: I ran …``.

A summary of a conversation where both sides speak of themselves ("I went to …") must say
whose sentence it is. The names come from how the two sides address each other
(:func:`tapestryd.vocatives.names_by_role`: "Hey Mel!" names the other side).

:func:`split_speaker` reads back the ``Name: `` prefix a summary sentence was written with,
so a day's or a week's summary keeps the attribution of the sentences it takes from its
children; :func:`unaddressed` drops the vocative itself once the speaker is named ("Maria,
since we talked, …" → "Since we talked, …"); :func:`attributed` writes sentences grouped by speaker (``Caroline: A. B.
Melanie: C.``), in the order given.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

__all__ = ["attributed", "split_speaker", "unaddressed"]

# A sentence written by attributed(): "Caroline: I went …".
_PREFIX = re.compile(r"^(?P<name>[A-Z][a-z]{1,20}(?:-[A-Z][a-z]+)?): (?P<rest>\S.*)$", re.S)


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
