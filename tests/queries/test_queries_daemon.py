"""The queries through a real tapestryd: socket answers, the warm index, and the hook's life cycle."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterator
from zoneinfo import ZoneInfo

import pytest
from cli_runner import tapestryctl
from query_helpers import History, check_documented_shape, hook_json
from waiting import PATIENCE, ReadySignal, wait_for

from tapestryd.config import load_settings
from tapestryd.paths import paths_for
from tapestryd.wire.client import request


class Daemon:
    """tapestryd of one home as a subprocess."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.socket = paths_for(load_settings(home)).socket
        self.proc: subprocess.Popen[bytes] | None = None
        self.notify: ReadySignal | None = None

    def start(self) -> None:
        """Start it (its calendar off: test daemons never race for a port) and return once it said ``READY=1``."""
        config = self.home / "tapestry.toml"
        config.write_text(config.read_text() + "[web]\nenabled = false\n")
        log_path = self.home / "daemon.log"
        self.notify = ReadySignal()
        env = {**os.environ, "TAPESTRY_HOME": str(self.home), **self.notify.env}
        with log_path.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"],
                                         env=env, stdout=subprocess.DEVNULL, stderr=log)
        self.notify.wait(self.proc, lambda: log_path.read_text()[-3000:])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=PATIENCE)
        if self.notify is not None:
            self.notify.close()


@pytest.fixture
def daemon(history: History) -> Iterator[Daemon]:
    """A daemon over a history whose last messages are from a few minutes ago, always today in
    the home's zone (Europe/Paris): just after its midnight they are a few seconds after it."""
    now = datetime.now(ZoneInfo("Europe/Paris"))
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)

    def ago(minutes: int, n: int) -> datetime:
        return max(now - timedelta(minutes=minutes), midnight + timedelta(seconds=n))

    for n, text in enumerate(["Plan the telescoping context query", "Budget: shorten the oldest levels first",
                              "Wire the hook into Claude Code settings"]):
        history.message("claude-code:other", ago(30 - n, n + 1), text, cwd="/p/tapestry", session="other")
    history.message("claude-code:sess-1", ago(5, 4), "This very session", cwd="/p/tapestry", session="sess-1")
    history.commit()
    running = Daemon(history.settings.home or Path())
    running.start()
    yield running
    running.stop()


def ctl(home: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home), **(env or {})}
    return tapestryctl(*args, env=env, stdin=stdin)


def test_context_and_similar_through_the_socket(daemon: Daemon) -> None:
    """context answers through the fast path; similar from the daemon's warm index."""
    text = ctl(daemon.home, "context", "-f", "markdown", "--max-tokens", "400")
    assert text.returncode == 0 and text.stdout.startswith("# Memory context for") and text.stdout.endswith("\n")
    assert text.stderr.startswith("(") and "of 400 tokens" in text.stderr and "not running" not in text.stderr
    assert "Wire the hook into Claude Code settings" in text.stdout
    answer = json.loads(ctl(daemon.home, "context", "-f", "json", "--max-tokens", "400").stdout)
    assert answer["tokens"]["used"] <= 400 and "rendered" not in answer
    # until the warm index is fitted, similar answers from FTS5's index (and says so): wait for the warm one
    warm = wait_for(lambda: (r := request(daemon.socket, "similar", {"query": "telescoping context"},
                                          timeout=PATIENCE))["index"]["warm"] and r, interval=0.2)
    assert warm["index"]["warm"] is True and warm["hits"][0]["conversation"] == "claude-code:other"


def test_the_hook_injects_the_full_context_once_then_only_what_changed(daemon: Daemon, history: History) -> None:
    """Startup: the full context. A prompt right after: nothing new. Daemon down at the next
    startup: the cached context, marked; on a prompt: nothing. Never an exit code but 0."""
    home = daemon.home
    start = ctl(home, "context", "--hook", stdin=hook_json("SessionStart", source="startup"))
    assert start.returncode == 0
    full = json.loads(start.stdout)
    check_documented_shape(full, "SessionStart")
    injected = full["hookSpecificOutput"]["additionalContext"]
    assert "Memory context for" in injected and "Wire the hook into Claude Code settings" in injected
    assert "This very session" in injected  # today's raw messages include it; the short block leaves it out
    prompt = ctl(home, "context", "--hook", stdin=hook_json("UserPromptSubmit", prompt="go on"))
    assert prompt.returncode == 0 and prompt.stdout == ""
    resume = ctl(home, "context", "--hook", stdin=hook_json("SessionStart", source="resume", session_id="sess-2"))
    short = json.loads(resume.stdout)
    check_documented_shape(short, "SessionStart")
    assert short["hookSpecificOutput"]["additionalContext"].startswith("Where we are now:")
    nested = ctl(home, "context", "--hook", stdin=hook_json("SessionStart", source="startup", session_id="sess-3",
                                                            cwd="/p/tapestry/sub"),
                 env={"CLAUDE_PROJECT_DIR": "/p/tapestry"})
    latest = json.loads(nested.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "project /p/tapestry)" in latest
    daemon.stop()
    cached = ctl(home, "context", "--hook", stdin=hook_json("SessionStart", source="clear"))
    context = json.loads(cached.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith("(tapestryd is not running; this context was cached at") and context.endswith(latest)
    down = ctl(home, "context", "--hook", stdin=hook_json("UserPromptSubmit", prompt="still there?"))
    assert down.returncode == 0 and down.stdout == ""


def test_forget_drops_the_context_the_hook_cached_for_when_the_daemon_is_down(daemon: Daemon) -> None:
    """The hook caches each project's full context for SessionStart while the daemon is down; after
    `forget --match budget` that cache still quoted 'Budget: shorten the oldest levels first' and gave it to
    Claude at the next start with the daemon down. Forget drops the cache: that start gets nothing."""
    home = daemon.home
    start = ctl(home, "context", "--hook", stdin=hook_json("SessionStart", source="startup"))
    assert "Budget: shorten the oldest levels first" in start.stdout
    forgot = ctl(home, "forget", "--match", "budget")
    assert forgot.returncode == 0 and "forgot 1 message" in forgot.stdout, forgot.stdout + forgot.stderr
    daemon.stop()
    cached = ctl(home, "context", "--hook", stdin=hook_json("SessionStart", source="startup", session_id="sess-9"))
    assert cached.returncode == 0 and "Budget" not in cached.stdout, cached.stdout[:500]
