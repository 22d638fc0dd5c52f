"""Sentence compression for extractive summaries: the same statement in fewer characters.

Chat sentences carry conversational wrapping a memory does not need: an opening
interjection or greeting, often with the name of the person addressed ("Hey Mel!",
"Yeah John, ..."), discourse markers ("By the way, ..."), hedges before a clause ("I think
it's ..."), frames announcing the clause they introduce ("I just wanted to let you know
I ran ..."), intensifiers ("really", "super", "kinda"), trailing tags (", you know?",
"haha"), a closing verdict (", it was great", "and it was so inspiring") and emoticons.
:func:`compress` deletes only those, by rule, so the content words, numbers and names stay
in their order and the sentence still reads as written. It is the
deletion-based compression of Knight & Marcu (2002, "Summarization beyond sentence
extraction"), with hand-written rules in place of a learned model. :func:`clauses` splits
a sentence where each side stands alone (a semicolon, a spaced dash, or a comma and "and",
"but" or "so", before a new subject: "I was busy, but last week I ..." reads as two
sentences), so a summary can keep the clause that states something without the one that
chats.
"""

from __future__ import annotations

import re

__all__ = ["clauses", "compress"]

_OPENERS = (r"wow|whoa|hey|hi|hello|oh|ooh|ah|aha|ha|aw+|yeah|yes|yep|yup|ok|okay|well|so|haha|hah|lol|omg|hmm+|um+|"
            r"uh|thanks|thank you|great|awesome|cool|nice|sure|absolutely|definitely|totally|honestly|actually|"
            r"anyway|anyways|by the way|btw|you know|i mean|to be honest|oh my|gosh|man|dude|right|true|indeed|"
            r"exactly|of course|no way|aww+|yay|woah|really|sounds good|that's great|that's awesome|that's cool|"
            r"quick update|update|good news|big news|fun fact|guess what")
# A run of openers ("Oh, and BTW, ..."), each optionally naming the person addressed, each closed by
# , ! . : or a dash.
_LEAD = re.compile(rf"^(?:(?i:(?:and\s+|but\s+)?(?:{_OPENERS})(?:\s+(?:{_OPENERS}))*)(?:\s+(?-i:[A-Z][a-z]+))?\s*"
                   rf"(?:[,!.:;]+|\s[-–—])\s*)+")
# The subject opening a clause of its own.
_SUBJECT = (r"(?:I|I'm|I've|I'd|I'll|(?i:it|it's|we|we're|we've|you|you're|he|she|they|this|that|there|my|our|"
            r"their|his|her))\b")
# A bare "So" or "And so" before a subject, left once the openers are gone ("Yeah, so I ...").
_SO = re.compile(rf"^(?i:and\s+)?(?i:so)\s+(?!(?i:that)\b)(?={_SUBJECT})")
# A hedge before a clause with its own subject: "I think it's ..." says "It's ...".
_HEDGE = re.compile(rf"^(?:I think|I guess|I feel like|I'd say|I mean|I believe)\s+(?:that\s+)?(?={_SUBJECT})")
# A frame announcing the clause it introduces: "I just wanted to let you know I ran ..." says "I ran ...".
_FRAME = re.compile(rf"^(?i:(?:I\s+)?(?:just\s+)?(?:wanted|want|had|have)\s+to\s+(?:let\s+you\s+know|tell\s+you)"
                    rf"|I'm\s+(?:so\s+|really\s+)?(?:excited|happy|glad|thrilled|proud|stoked)\s+to\s+"
                    rf"(?:tell\s+you|share|say|announce|let\s+you\s+know)"
                    rf"|(?:I\s+)?(?:gotta|have\s+to|must)\s+(?:tell\s+you|say))\s*,?\s+(?:that\s+)?(?={_SUBJECT})")
# Intensifiers before a word; not after a determiner, where the word names a thing ("the super block").
_FILLER = re.compile(r"(?<![Tt]he )(?<![ \"][Aa] )(?<![Aa]n )(?<![Mm]y )(?<![Oo]ur )(?<![Tt]his )(?<![Ii]ts )"
                     r"\b(?:really|super|totally|actually|basically|literally|honestly|truly|kinda|sorta)\s+"
                     r"(?=[a-z])")
# Trailing tags, emoticons and a dash's or comma's closing verdict ("... - pretty cool, huh?"); "you know" only
# after a comma ("we'll let you know" says something).
_TAIL = re.compile(r"(?:[,;]\s+(?i:you know)|[,;]?\s+(?i:huh|eh|haha+|hah|lol|though|i guess|for sure|and stuff)"
                   r"|\s*[:;]-?[()DP]"
                   r"|(?:(?:,|\s[-–—])\s*(?i:(?:it's|it is|it was|that's|that was)\s+)?|,?\s+and\s+"
                   r"(?i:it's|it is|it was|that's|that was)\s+)(?i:(?:pretty|so|very|really|super|quite|kinda)\s+)?"
                   r"(?i:cool|great|awesome|nice|fun|amazing|exciting|crazy|wild|wonderful|fantastic|incredible|"
                   r"powerful|inspiring|special|beautiful|lovely|rewarding|brilliant))"
                   r"\s*(?=[.!?]*$)")
# A semicolon, a spaced dash or ", and/but/so" before a new subject: each side stands alone.
_CLAUSE = re.compile(rf"(?:\s+[-–—]|;|,\s+(?:and|but|so))\s+(?={_SUBJECT})")
_MIN_CLAUSE_WORDS = 3
_END = re.compile(r"[.!?…][\"'”’)\]]*$")


def compress(sentence: str) -> str:
    """``sentence`` without its opening interjections, fillers and trailing tags, first letter raised.

    Returns the sentence unchanged when the deletions would leave fewer than three words.
    """
    out = _HEDGE.sub("", _FRAME.sub("", _SO.sub("", _LEAD.sub("", sentence))))
    opened = out != sentence
    out = _FILLER.sub("", out)
    out, tags = _untail(out)
    if tags and out.endswith("?"):  # "..., you know?" asked nothing
        out = out.rstrip("?") + "."
    if len(out.split()) < 3:
        return sentence
    return _sentence_case(out) if opened else out


def _untail(text: str) -> tuple[str, int]:
    """``text`` without its trailing tags, innermost last ("cool, huh?" loses both), and how many went."""
    total = 0
    while True:
        text, count = _TAIL.subn("", text)
        total += count
        if not count:
            return text.strip(), total


def clauses(sentence: str) -> list[str]:
    """``sentence`` split into stand-alone clauses, each ending in punctuation and opening in capitals.

    The sentence stays whole when a piece would have fewer than three words (a list item's
    head, "Yes - ..."): such a piece is not a statement of its own.
    """
    pieces = [p.strip() for p in _CLAUSE.split(sentence) if p.strip()]
    if len(pieces) < 2 or min(len(p.split()) for p in pieces) < _MIN_CLAUSE_WORDS:
        return [sentence]
    return [_sentence_case(p if _END.search(p) else p.rstrip(",:") + ".") for p in pieces]


def _sentence_case(piece: str) -> str:
    return piece[0].upper() + piece[1:]
