"""What in a Claude Code session is a person's turn, and what names the session.

Claude Code writes more than prompts as ``user`` lines (format as observed in Claude Code
1.x–2.x sessions; reports: Nwflower/dsh-chat-import #26, lanegrid/agtrace #57):

* slash-command envelopes: ``<command-name>/status</command-name>``, ``<command-message>``,
  ``<command-args>``, ``<command-contents>``, and the output of local commands in
  ``<local-command-stdout>`` / ``<local-command-stderr>`` / ``<local-command-caveat>``. A
  line holding nothing but these is not a turn (:func:`is_command_envelope`);
* the summary injected after ``/compact`` (flagged ``isCompactSummary``; older versions only
  start it with :data:`COMPACT_PREFIX`);
* a prompt typed while Claude works is queued: ``queue-operation`` lines repeat its words
  as they are enqueued and dequeued, and a prompt absorbed mid-turn is written only as an
  ``attachment`` of type ``queued_command`` (:func:`queued_prompt`), never as a ``user``
  line. The parser keeps such a prompt once, whichever of its copies comes first.

Titles: ``custom-title`` (``customTitle``, set by ``/rename``) and ``ai-title``
(``aiTitle``) records, ``summary`` records (1.x), else the first prompt
(:func:`prompt_title`).
"""

from __future__ import annotations

import re
from typing import Any

from tapestryd.privacy import outbound

__all__ = ["COMPACT_PREFIX", "PROMPT_TITLE_CHARS", "TITLE_RECORDS", "TITLE_SOURCE_CHARS", "is_command_envelope",
           "prompt_title", "queued_prompt"]

COMPACT_PREFIX = "This session is being continued from a previous conversation that ran out of context"

PROMPT_TITLE_CHARS = 80
"""Longest title made from a prompt, in characters (cut at a word, ``…`` added)."""

TITLE_SOURCE_CHARS = 64 << 10
"""Characters of a prompt's first line read for its title (see :func:`prompt_title`)."""

TITLE_RECORDS = {"custom-title": ("customTitle", "custom"), "ai-title": ("aiTitle", "ai")}
"""Record type → (the field holding the title, ``ConversationTitled.kind``)."""

_PRIVATE_TAG = re.compile(r"<private", re.IGNORECASE)
_SPACES = re.compile(r"[ \t\f\v]+")
_LINE_BREAK = re.compile(r"[\r\n]+")  # not str.splitlines: U+2028 and U+2029 inside a prompt are text
_ENVELOPE = re.compile(
    r"<(command-name|command-message|command-args|command-contents|local-command-stdout|local-command-stderr"
    r"|local-command-caveat)>.*?</\1>", re.DOTALL)


def is_command_envelope(text: str) -> bool:
    """Whether ``text`` is nothing but slash-command envelopes (and whitespace)."""
    return text.lstrip().startswith("<") and not _ENVELOPE.sub("", text).strip()


def _first_line(text: str) -> str:
    """The first line of ``text`` that is not blank, stripped (``""`` when there is none)."""
    return next((s.strip() for s in _LINE_BREAK.split(text) if s.strip()), "")


def queued_prompt(rec: dict[str, Any]) -> str | None:
    """The words of a ``queued_command`` attachment a person typed; None for anything else.

    A queued task notification (``commandMode`` other than ``prompt``, or an origin whose
    ``kind`` is not ``human``) is not a prompt. ``prompt`` is a string, or a list of content
    blocks whose text blocks are joined.
    """
    attachment = rec.get("attachment")
    if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
        return None
    origin = attachment.get("origin")
    if attachment.get("commandMode", "prompt") != "prompt" or (
            isinstance(origin, dict) and origin.get("kind", "human") != "human"):
        return None
    prompt = attachment.get("prompt")
    if isinstance(prompt, list):
        prompt = "\n\n".join(b["text"] for b in prompt
                             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
    return prompt if isinstance(prompt, str) and prompt.strip() else None


def prompt_title(text: str) -> str:
    """A title from a prompt: its first non-blank line as it may leave the log, at most
    :data:`PROMPT_TITLE_CHARS` characters; ``""`` when nothing is left.

    Only that line's first :data:`TITLE_SOURCE_CHARS` characters are filtered (a prompt may
    be megabytes on one line; a secret cut there lies far past any title), unless the prompt
    holds a private tag: a span opened on one line hides the lines after it, so then the whole
    is filtered.
    """
    shown = outbound(text) if _PRIVATE_TAG.search(text) else outbound(_first_line(text)[:TITLE_SOURCE_CHARS])
    line = _SPACES.sub(" ", _first_line(shown))
    if len(line) <= PROMPT_TITLE_CHARS:
        return line
    cut = line[:PROMPT_TITLE_CHARS - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut[20:] else cut) + "…"
