"""Helpers of the query tests: a fixed instant in Europe/Paris and a History that writes events.

Messages and summaries are appended as real events (MessageRecorded, NodeSummarized) and
projected by the real projector, so the queries read what the daemon would hold. (A module
of its own, not conftest: test folders share the module name ``conftest``.)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable
from zoneinfo import ZoneInfo

from waiting import PATIENCE, wait_for

from tapestryd.config import Settings
from tapestryd.events import (
    MessageRecorded,
    NewEvent,
    NodeSummarized,
    event_id,
    format_utc,
)
from tapestryd.operations.runtime import Runtime
from tapestryd.queries.hook import MAX_CONTEXT_CHARS

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 3, 4, 15, 30, tzinfo=PARIS)  # a Wednesday afternoon


@dataclass
class History:
    """A home's settings and helpers that append messages and summaries to its log."""

    settings: Settings
    count: int = 0
    pending: list[NewEvent] = field(default_factory=list)

    def message(self, conversation: str, local: datetime, text: str, *, role: str = "user", agent: str = "claude-code",
                cwd: str = "", session: str = "") -> None:
        """Queue one message at local time ``local`` (aware)."""
        self.count += 1
        meta = {"cwd": cwd} if cwd else {}
        event = MessageRecorded(conversation, f"m{self.count}", role, text, format_utc(local), session=session,
                                meta=meta)
        self.pending.append(NewEvent(event_id("test", str(self.count)), event, local, agent, f"test#{self.count}"))

    def summary(self, key: str, title: str, text: str) -> None:
        """Queue a NodeSummarized for node ``key``."""
        self.count += 1
        level = int(key[1])
        event = NodeSummarized(node=key, level=level, fingerprint=f"fp{self.count}", provider="test", model="",
                               prompt_version="t1", title=title, text=text)
        self.pending.append(NewEvent(event_id("test", str(self.count)), event, NOW, key.split(":")[1], "test"))

    def commit(self) -> None:
        """Append the queued events and project them."""
        with Runtime.open(self.settings) as runtime:
            runtime.store.append(self.pending)
            runtime.projector.catch_up()
        self.pending.clear()


def check_documented_shape(output: dict[str, Any], event: str) -> None:
    """Claude Code's hooks reference: for SessionStart and UserPromptSubmit, JSON on stdout with
    ``hookSpecificOutput`` holding ``hookEventName`` (the event) and ``additionalContext`` (a string)."""
    assert set(output) == {"hookSpecificOutput"}
    specific = output["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == event and event in ("SessionStart", "UserPromptSubmit")
    assert isinstance(specific["additionalContext"], str) and len(specific["additionalContext"]) <= MAX_CONTEXT_CHARS


def hook_json(event: str, **extra: str) -> str:
    """A hook's stdin as Claude Code writes it, for session ``sess-1`` in ``/p/tapestry``."""
    return json.dumps({"session_id": "sess-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/p/tapestry",
                       "hook_event_name": event, **extra})


def wait_until(check: Callable[[], bool], timeout: float = PATIENCE) -> None:
    """Poll ``check`` every 20 ms until it is true; fail the test after ``timeout`` s."""
    wait_for(check, timeout, interval=0.02)
