"""Helpers of the MCP tests: a small home written as real events, tapestryd as a subprocess, and
the MCP server driven through the SDK's own stdio client.

(A module of its own, not conftest: test folders share the module name ``conftest``.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import IO
from zoneinfo import ZoneInfo

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from waiting import PATIENCE, ReadySignal

from tapestryd.config import load_settings
from tapestryd.operations.runtime import Runtime
from tapestryd.events import (
    MessageRecorded,
    NewEvent,
    NodeSummarized,
    event_id,
    format_utc,
)
from tapestryd.paths import paths_for

ROOT = Path(__file__).resolve().parents[2]
UTC = ZoneInfo("UTC")
GARDEN = "claude-ai:garden-1"
CODE = "claude-code:sess-1"

MESSAGES = [  # conversation, local time (UTC), role, text, cwd
    (GARDEN, datetime(2026, 10, 2, 18, 0), "user", "The beds are filled. What can I still plant in October?", ""),
    (GARDEN, datetime(2026, 10, 2, 18, 3), "assistant", "Garlic cloves now, broad beans and overwintering onions.", ""),
    (GARDEN, datetime(2026, 10, 2, 18, 6), "user",
     "I planted 40 garlic cloves of the Germidour variety in bed one.", ""),
    (GARDEN, datetime(2026, 10, 2, 18, 9), "assistant", "Mulch them with straw once the shoots show.", ""),
    (CODE, datetime(2026, 10, 6, 9, 0), "user", "Add a backup job for the Home Assistant config.", "/p/homeauto"),
    (CODE, datetime(2026, 10, 6, 9, 2), "assistant", "Wrote a systemd timer that tars the config nightly.",
     "/p/homeauto"),
]


def seed(home: Path) -> None:
    """Write :data:`MESSAGES`, two titles' worth of conversations, and one daily summary into ``home``."""
    events = []
    for n, (conv, local, role, text, cwd) in enumerate(MESSAGES, 1):
        agent = conv.split(":")[0]
        meta = {"cwd": cwd} if cwd else {}
        msg = MessageRecorded(conv, f"m{n}", role, text, format_utc(local.replace(tzinfo=UTC)), session=conv, meta=meta)
        events.append(NewEvent(event_id("mcp-test", str(n)), msg, local.replace(tzinfo=UTC), agent, f"test#{n}"))
    daily = NodeSummarized(node="L1:claude-ai:2026-10-02", level=1, fingerprint="fp", provider="test", model="",
                           prompt_version="t1", title="Garlic planted", text="Planted 40 Germidour garlic cloves.")
    events.append(NewEvent(event_id("mcp-test", "L1"), daily, datetime(2026, 10, 3, tzinfo=UTC), "claude-ai", "test"))
    with Runtime.open(load_settings(home)) as runtime:
        runtime.store.append(events)
        runtime.projector.catch_up()


class Daemon:
    """tapestryd of one home as a subprocess."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.socket = paths_for(load_settings(home)).socket
        self.proc: subprocess.Popen[bytes] | None = None
        self.notify: ReadySignal | None = None

    def start(self) -> Daemon:
        """Start it (its calendar off: test daemons never race for a port) and return once it said ``READY=1``."""
        config = self.home / "tapestry.toml"
        config.write_text(config.read_text() + "[web]\nenabled = false\n")
        log_path = self.home / "daemon.log"
        self.notify = ReadySignal()
        env = {**os.environ, "TAPESTRY_HOME": str(self.home), **self.notify.env}
        with log_path.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"],
                                         env=env, stdout=subprocess.DEVNULL, stderr=log, cwd=ROOT)
        self.notify.wait(self.proc, lambda: log_path.read_text()[-3000:])
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=PATIENCE)
        if self.notify is not None:
            self.notify.close()


def server_params(home: Path) -> StdioServerParameters:
    """``tapestryctl mcp`` of ``home``, started from this checkout."""
    env = {"TAPESTRY_HOME": str(home), "HOME": str(home), "PATH": "/usr/bin:/bin"}
    return StdioServerParameters(command=sys.executable, args=["-m", "tapestryd.cli", "mcp"], env=env, cwd=ROOT)


@asynccontextmanager
async def mcp_client(home: Path, errlog: IO[str]) -> AsyncIterator[Client]:
    """An SDK client connected to a fresh ``tapestryctl mcp`` subprocess; its stderr goes to ``errlog``."""
    async with Client(stdio_client(server_params(home), errlog=errlog), read_timeout_seconds=60) as client:
        yield client
