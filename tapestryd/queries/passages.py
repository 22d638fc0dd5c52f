"""One passage, one result: summaries that quote a hit's sentence fold into that hit.

The extractive summarizer copies sentences verbatim, so the L0 … L4 summaries of a day
can all quote the message a search finds, and one sentence came back six times. Here a
summary hit whose snippet quotes another hit (its longest sentence holding a match, cut at
the snippet's ``…`` and at sentence ends, of at least :data:`MIN_QUOTE` characters, found
in that hit's text, case and spacing aside; or, since the summarizer names the speaker
("Sam: …") and writes "today" as "on 2 Oct 2026", a run of its words past that name holding
a match, two thirds of its length and :data:`MIN_QUOTE` characters long) is dropped, and
the hit it quotes names it: ``extra.quoted_by`` lists the levels, ``extra.quoted_keys`` the
node keys. A message is preferred as the one
result (it is the source); it takes the best rank of the hits it absorbed. Summaries
quoting one another (and no message shown) fold into the best ranked of them, and so do summaries
found by their title alone (no match in their snippets) that show the same text: a day's, week's
and month's summary often open with the same sentences.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from tapestryd.queries.search_hit import SearchHit

__all__ = ["MIN_QUOTE", "fold_quotes"]

MIN_QUOTE = 25
_SPACE = re.compile(r"\s+")
_PIECES = re.compile(r"…|(?<=[.!?])\s+")
_MARKED = re.compile(r"\[([^\]]+)\]")
_SPEAKER = re.compile(r"^[\w][\w .'-]{0,40}: ")


def fold_quotes(hits: list[SearchHit], text_of: Callable[[SearchHit], str]) -> list[SearchHit]:
    """``hits`` (best first) with summaries quoting another hit folded into it (see the module docstring).

    ``text_of`` gives the text a hit may be quoted from (a message's text; a summary's
    snippet). Hits quoting nothing are returned unchanged, in order.
    """
    texts = [_plain(text_of(h)) for h in hits]
    target: dict[int, int] = {}  # index of a folded summary -> index of the hit that absorbs it
    for i, hit in enumerate(hits):
        quote, marked = _quote(hit) if hit.kind == "summary" else ("", set())
        if len(quote) >= MIN_QUOTE:
            holders = [j for j in range(len(hits)) if j != i and j not in target and _quotes(quote, marked, texts[j])]
            messages = [j for j in holders if hits[j].kind == "message"]
            chosen = messages[0] if messages else next((j for j in holders if j < i), None)
        elif hit.kind == "summary" and "[" not in hit.snippet:
            chosen = next((j for j in range(i) if j not in target and _same_opening(hits[j], hit)), None)
        else:
            chosen = None
        if chosen is not None:
            target[i] = chosen
    if not target:
        return hits
    absorbed: dict[int, list[int]] = {}
    for folded, holder in target.items():
        absorbed.setdefault(holder, []).append(folded)
    out: list[tuple[int, SearchHit]] = []
    for j, hit in enumerate(hits):
        if j in target:
            continue
        group = sorted(absorbed.get(j, []))
        if group:
            quoting = [hits[k] for k in group]
            hit = replace(hit, extra={**hit.extra, "quoted_by": sorted({h.level for h in quoting}),
                                      "quoted_keys": [h.key for h in quoting]})
        out.append((min([j, *group]), hit))
    return [hit for _, hit in sorted(out, key=lambda pair: pair[0])]


def _quotes(quote: str, marked: set[str], text: str) -> bool:
    """Whether ``text`` holds ``quote`` (both plain): whole, or, past a leading speaker's name
    (``sam: …``), a run of its words holding a word of ``marked``, two thirds of its length and
    at least :data:`MIN_QUOTE` characters.

    A longer run holds the shortest qualifying run from the same first word, so only those are
    looked for: one substring search per word of the quote.
    """
    if quote in text:
        return True
    words = _SPEAKER.sub("", quote).split()
    least = max(MIN_QUOTE, -(-2 * len(" ".join(words)) // 3))
    padded = f" {text} "
    for start in range(len(words)):
        length, holds = -1, False
        for end in range(start, len(words)):
            length += len(words[end]) + 1
            holds = holds or words[end].strip(".,;:!?'\"()") in marked
            if length >= least and holds:
                if f" {' '.join(words[start:end + 1])} " in padded:
                    return True
                break
    return False


def _plain(text: str) -> str:
    """Lower-cased, spacing collapsed, snippet marks removed."""
    return _SPACE.sub(" ", text.replace("[", "").replace("]", "").lower()).strip()


def _same_opening(kept: SearchHit, other: SearchHit) -> bool:
    """Whether two summaries found by their title alone show the same text: neither snippet holds a
    match, and one (cut at ``…``) opens the other, over at least :data:`MIN_QUOTE` characters."""
    if kept.kind != "summary" or "[" in kept.snippet:
        return False
    a, b = (_plain(h.snippet).strip("… ") for h in (kept, other))
    return len(min(a, b, key=len)) >= MIN_QUOTE and (a.startswith(b) or b.startswith(a))


def _quote(hit: SearchHit) -> tuple[str, set[str]]:
    """The longest sentence of a summary's snippet holding a match (cut at ``…`` and sentence ends), plain,
    and its matched words (plain)."""
    part = max((part for part in _PIECES.split(hit.snippet) if "[" in part), key=lambda p: len(_plain(p)), default="")
    return _plain(part), {word for marked in _MARKED.findall(part) for word in _plain(marked).split()}
