"""Joining the parts of one message: each block once, in log order.

Claude Code writes one API reply as several records sharing ``message.id``: one per content
block, and sometimes a later record that repeats a block already written or holds every
block so far (a streaming snapshot; reports: phuryn/claude-usage #28, getagentseal/codeburn
#201). Each record with text becomes a ``MessageRecorded`` part under the same message key,
and Claude.ai attachments are parts too. The messages projection joins the parts' verbatim
texts with :func:`join_parts`, then filters the joined text as a whole, so a private span or
a secret cut across two parts is found like one inside a single part.
"""

from __future__ import annotations

from typing import Iterable

__all__ = ["SEPARATOR", "join_parts"]

SEPARATOR = "\n\n"
"""Between two parts' texts (the parsers join the blocks of one record the same way)."""


def join_parts(texts: Iterable[str]) -> str:
    """The parts' texts joined with :data:`SEPARATOR`, in the order given.

    An empty part and a part already held whole (as the joined text, or as one of its
    separator-delimited runs) add nothing; a part that starts with everything joined so
    far (a snapshot of the reply up to now) replaces it.
    """
    joined = ""
    for text in texts:
        if not text or _holds(joined, text):
            continue
        joined = text if not joined or text.startswith(joined) else joined + SEPARATOR + text
    return joined


def _holds(joined: str, text: str) -> bool:
    """Whether ``text`` is already in ``joined`` as a whole part (not merely as a substring)."""
    if joined == text:
        return True
    return (joined.startswith(text + SEPARATOR) or joined.endswith(SEPARATOR + text)
            or f"{SEPARATOR}{text}{SEPARATOR}" in joined)
