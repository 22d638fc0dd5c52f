"""Split a node's inputs into chunks that fit a provider's window, in order.

Passages are packed greedily, in order, into chunks of at most ``max_tokens`` estimated
tokens (:mod:`tapestryd.summarize.tokens`). A passage longer than a whole chunk is cut at
paragraph, then line, then sentence boundaries (characters as a last resort), and its
pieces are labelled ``(part k)``. The provider summarizes chunk after chunk, carrying the
running summary into the next call (the "refine" pattern).
"""

from __future__ import annotations

import re

from tapestryd.summarize.base import Passage
from tapestryd.summarize.tokens import CHARS_PER_TOKEN, estimate_tokens

__all__ = ["chunk_passages", "split_text"]

_BOUNDARIES = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"))


def chunk_passages(passages: tuple[Passage, ...], max_tokens: int) -> list[tuple[Passage, ...]]:
    """The passages in consecutive chunks of at most ``max_tokens`` estimated tokens each."""
    chunks: list[list[Passage]] = [[]]
    used = 0
    for passage in _pieces(passages, max_tokens):
        cost = estimate_tokens(passage.label) + estimate_tokens(passage.text) + 2
        if chunks[-1] and used + cost > max_tokens:
            chunks.append([])
            used = 0
        chunks[-1].append(passage)
        used += cost
    return [tuple(chunk) for chunk in chunks if chunk]


def _pieces(passages: tuple[Passage, ...], max_tokens: int) -> list[Passage]:
    out: list[Passage] = []
    for p in passages:
        room = max(1, max_tokens - estimate_tokens(p.label) - 8)
        if estimate_tokens(p.text) <= room:
            out.append(p)
            continue
        parts = split_text(p.text, room * CHARS_PER_TOKEN)
        out.extend(Passage(f"{p.label} (part {k})", part, p.role) for k, part in enumerate(parts, 1))
    return out


def split_text(text: str, max_chars: int) -> list[str]:
    """``text`` cut into pieces of at most ``max_chars`` characters at the gentlest boundary."""
    if len(text) <= max_chars:
        return [text]
    for boundary in _BOUNDARIES:
        pieces = [p for p in boundary.split(text) if p.strip()]
        if len(pieces) > 1:
            return _pack([s for piece in pieces for s in split_text(piece, max_chars)], max_chars)
    return [text[i:i + max_chars] for i in range(0, len(text), max_chars)]


def _pack(pieces: list[str], max_chars: int) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        if out and len(out[-1]) + 1 + len(piece) <= max_chars:
            out[-1] = f"{out[-1]}\n{piece}"
        else:
            out.append(piece)
    return out
