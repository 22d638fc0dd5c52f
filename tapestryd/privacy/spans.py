"""Private spans and exclusion markers: what the user marks in their own messages.

* ``<private>…</private>``: kept in the log (the user's own machine) but removed from
  everything that leaves it. Any tag spelled ``<private …>`` opens a span, whatever its
  attributes (``<private reason="x">``, ``<private/>``). Tags are case-insensitive and may nest; an unclosed
  ``<private>`` hides everything after it (failing closed), a stray ``</private>`` is
  dropped.
* Exclusion markers: a conversation holding one is recorded only as skipped, with no
  text stored. ``<INSTRUCTIONS-TO-EPISODIC-MEMORY>DO NOT INDEX THIS CHAT
  </INSTRUCTIONS-TO-EPISODIC-MEMORY>`` is the marker of obra/episodic-memory (honoured so
  one marker works for both tools); ``<tapestry:ignore/>`` is tapestry's own.
"""

from __future__ import annotations

import re

__all__ = ["EXCLUSION_MARKERS", "has_exclusion_marker", "has_private", "strip_private"]

EXCLUSION_MARKERS = (
    "<INSTRUCTIONS-TO-EPISODIC-MEMORY>DO NOT INDEX THIS CHAT</INSTRUCTIONS-TO-EPISODIC-MEMORY>",
    "<tapestry:ignore/>",
)

# "<private" then ">", or a blank or "/" and anything up to the next ">" (attributes, even with
# a "<" in a quoted value): any such tag opens a span, "<private/>" too (failing closed).
# "<privateKey>" is another tag. The bound keeps a stray "<private " without ">" linear.
_TAG = re.compile(r"<(/?)private(?:[\s/][^>]{0,2000})?>", re.IGNORECASE)
_MARKER = re.compile(
    r"<INSTRUCTIONS-TO-EPISODIC-MEMORY>\s*DO\s+NOT\s+INDEX\s+THIS\s+CHAT\s*</INSTRUCTIONS-TO-EPISODIC-MEMORY>"
    r"|<tapestry:ignore\s*/?>",
    re.IGNORECASE,
)


def has_private(text: str) -> bool:
    """Whether ``text`` holds a ``<private>`` or ``</private>`` tag."""
    return _TAG.search(text) is not None


def strip_private(text: str) -> str:
    """``text`` without its private spans (tags included); unchanged when it has none."""
    if "<" not in text or not has_private(text):
        return text
    kept, depth, last = [], 0, 0
    for tag in _TAG.finditer(text):
        if depth == 0:
            kept.append(text[last:tag.start()])
        depth = max(0, depth - 1) if tag.group(1) else depth + 1
        last = tag.end()
    if depth == 0:
        kept.append(text[last:])
    return "".join(kept)


def has_exclusion_marker(text: str) -> bool:
    """Whether ``text`` holds an exclusion marker (whitespace and case inside it are free)."""
    return "<" in text and _MARKER.search(text) is not None
