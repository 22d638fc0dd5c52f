"""Text units the quality metrics count and compare: sentences, characters and tokens.

Sentences are split on end punctuation followed by white space, and on line breaks, which
is what chat text needs (list items and short lines are units of their own). Tokens are
estimated offline, without a tokenizer download: about four characters of English a token,
the rule of thumb OpenAI gives for its BPE tokenizers.
"""

from __future__ import annotations

import math
import re

__all__ = ["estimate_tokens", "normalize", "split_sentences"]

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+")
_SPACES = re.compile(r"\s+")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order, stripped; empty pieces are dropped."""
    return [piece.strip() for piece in _SENTENCE_END.split(text) if piece and piece.strip()]


def normalize(text: str) -> str:
    """Lower case with runs of white space made one space (a key for de-duplication)."""
    return _SPACES.sub(" ", text).strip().lower()


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: ceil(characters / 4); 0 for empty text."""
    return math.ceil(len(text) / 4)
