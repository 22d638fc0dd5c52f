"""Claude.ai's ``<antThinking>…</antThinking>`` spans: the model's thinking, not reply text.

Claude.ai exports of 2024 carry them inside an assistant message's ``text`` (see
``simonw-artifacts-2024.json`` in the corpus). The Claude.ai parser moves them out of
``MessageRecorded.text`` into ``meta["thinking"]`` (a list of the spans' inner texts) and counts
them in ``skipped["thinking"]``, so they stay in the log but never reach search, summaries or
context. :func:`upcast_message_v1` does the same when a schema-1 event, written before the
parser did, is read, so a rebuild from an old log gives the same rows.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["split_thinking", "upcast_message_v1"]

_SPAN = re.compile(r"<antThinking>(.*?)</antThinking>\s*", re.DOTALL)


def split_thinking(text: str) -> tuple[str, list[str]]:
    """``(text without its thinking spans, the spans' inner texts)``; ``(text, [])`` when it has none.

    A span goes with the whitespace after it; the rest of the text is kept as it is.
    """
    if "<antThinking>" not in text:
        return text, []
    thoughts = [m.group(1).strip() for m in _SPAN.finditer(text)]
    return (_SPAN.sub("", text), thoughts) if thoughts else (text, [])


def upcast_message_v1(data: dict[str, Any]) -> dict[str, Any]:
    """A schema-1 ``MessageRecorded`` payload as schema 2: a Claude.ai reply's thinking spans moved out of its text."""
    text = data.get("text")
    if (not isinstance(text, str) or data.get("role") != "assistant"
            or not str(data.get("conversation", "")).startswith("claude-ai:")):
        return data
    kept, thoughts = split_thinking(text)
    if not thoughts:
        return data
    skipped = dict(data.get("skipped") or {})
    skipped["thinking"] = skipped.get("thinking", 0) + len(thoughts)
    return {**data, "text": kept, "skipped": skipped, "meta": {**(data.get("meta") or {}), "thinking": thoughts}}
