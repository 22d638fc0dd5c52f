"""Claude Code subagent transcripts: ``<project>/<session>/subagents/agent-<id>.jsonl``.

Claude Code writes what a subagent (the Task tool) said to its own file under the parent
session's folder. Its lines name the parent's ``sessionId``, so the Claude Code parser
already files them under the parent conversation; most carry ``isSidechain: true`` too.
:func:`mark_subagents` makes sure every message of such a file is marked as a subagent's
(``meta.sidechain``, and ``meta.agent_id`` from the file name), whatever its lines say, so
``search --no-subagents`` and the context leave them out. Event ids are unchanged.
"""

from __future__ import annotations

import dataclasses
from pathlib import PurePath
from typing import Iterable, Iterator

from tapestryd.events.types import MessageRecorded, NewEvent
from tapestryd.sources.parsers.base import Item

__all__ = ["is_subagent_file", "mark_subagents"]


def is_subagent_file(path: str) -> bool:
    """Whether ``path`` (a file path, or ``x.zip!/member``) is ``…/subagents/agent-*.jsonl``."""
    pure = PurePath(path.replace("!/", "/"))
    return pure.parent.name == "subagents" and pure.name.startswith("agent-") and pure.suffix == ".jsonl"


def mark_subagents(items: Iterable[Item], path: str) -> Iterator[Item]:
    """``items`` with each message of a subagent file marked (see the module docstring); others unchanged."""
    if not is_subagent_file(path):
        yield from items
        return
    agent_id = PurePath(path.replace("!/", "/")).stem.removeprefix("agent-")
    for item in items:
        if isinstance(item, NewEvent) and isinstance(item.event, MessageRecorded):
            msg = item.event
            meta = {**msg.meta, "sidechain": True, "agent_id": msg.meta.get("agent_id") or agent_id}
            item = dataclasses.replace(item, event=dataclasses.replace(msg, meta=meta))
        yield item
