"""Claude Code hooks: what to inject for an event, and the JSON shape Claude Code reads.

Claude Code runs a command hook with the event's JSON on stdin (``session_id``,
``transcript_path``, ``cwd``, ``hook_event_name``, plus ``source`` for SessionStart and
``prompt`` for UserPromptSubmit) and, on exit code 0, reads stdout as JSON; for
SessionStart and UserPromptSubmit it adds ``hookSpecificOutput.additionalContext`` to the
model's context (Claude Code's hooks reference, "SessionStart" and "UserPromptSubmit"
decision control). Injected context is capped at 10,000 characters.

The plan: the full telescoping context once per session (SessionStart with source
``startup``, ``clear`` or ``compact``, after which the model's context is fresh), and only
the short "where we are now" block on each prompt and on ``resume`` (the model already
holds the full context). Standard library only: this runs on every prompt.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

__all__ = ["FULL_PREFIX", "FULL_SOURCES", "HOOK_EVENTS", "MAX_CONTEXT_CHARS", "HookInput", "cap",
           "drop_cached_contexts", "hook_output", "plan", "state_folder"]

HOOK_EVENTS = ("SessionStart", "UserPromptSubmit")
FULL_SOURCES = ("startup", "clear", "compact")
MAX_CONTEXT_CHARS = 10_000
_CUT_MARK = "\n[… cut to fit the 10,000-character hook limit]"
FULL_PREFIX = "full-"
"""Name start of a cached full context in :func:`state_folder` (``full-<hash of project>.md``)."""


@dataclass(frozen=True)
class HookInput:
    """The fields of a hook's stdin JSON that tapestry uses."""

    event: str
    session_id: str = ""
    cwd: str = ""
    source: str = ""
    prompt: str = ""
    transcript_path: str = ""

    @classmethod
    def parse(cls, raw: str) -> HookInput:
        """Read the hook's stdin; raises ValueError when it is not a JSON object with an event name."""
        data = json.loads(raw)
        if not isinstance(data, dict) or not isinstance(data.get("hook_event_name"), str):
            raise ValueError("hook input is not a JSON object with hook_event_name")
        text = {k: v if isinstance(v, str) else "" for k, v in data.items()}
        return cls(event=text["hook_event_name"], session_id=text.get("session_id", ""), cwd=text.get("cwd", ""),
                   source=text.get("source", ""), prompt=text.get("prompt", ""),
                   transcript_path=text.get("transcript_path", ""))


def plan(hook: HookInput) -> str:
    """``full``, ``short`` or ``none``: what to inject for this event (see the module docstring)."""
    if hook.event == "SessionStart":
        return "short" if hook.source == "resume" else "full"
    return "short" if hook.event == "UserPromptSubmit" else "none"


def cap(text: str, max_chars: int = MAX_CONTEXT_CHARS) -> str:
    """``text`` cut at a line break to at most ``max_chars`` characters, marked when cut."""
    if len(text) <= max_chars:
        return text
    room = max_chars - len(_CUT_MARK)
    cut = text.rfind("\n", 0, room)
    return text[: cut if cut > room // 2 else room] + _CUT_MARK


def hook_output(event: str, context: str) -> dict[str, Any]:
    """The stdout object Claude Code reads: ``{"hookSpecificOutput": {"hookEventName", "additionalContext"}}``.

    ``additionalContext`` is capped at :data:`MAX_CONTEXT_CHARS`.
    """
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": cap(context)}}


def state_folder(socket: str) -> str:
    """The hook's state folder of the home whose daemon listens on ``socket``: ``<socket>.hooks``
    (what each session was given, and the last full context per project; :mod:`tapestryd.cli.hook`)."""
    return socket + ".hooks"


def drop_cached_contexts(socket: str) -> int:
    """Remove every full context the hook cached for the home whose daemon listens on ``socket``.

    A cached context is what SessionStart gets while the daemon is down; after a ``forget`` it may
    still hold the forgotten text, so forget drops them all (the next SessionStart with the daemon up
    caches a new one). Returns how many files were removed; no folder is none. Raises OSError only
    when the folder cannot be listed or a file cannot be removed for another reason than being gone.
    """
    folder = state_folder(socket)
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return 0
    dropped = 0
    for name in names:
        if name.startswith(FULL_PREFIX):
            try:
                os.remove(os.path.join(folder, name))
            except FileNotFoundError:
                continue
            dropped += 1
    return dropped
