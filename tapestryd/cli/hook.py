"""``tapestryctl context --hook``: the Claude Code hook for SessionStart and UserPromptSubmit.

Reads the hook's JSON on stdin, asks the daemon for the context of the project
(``$CLAUDE_PROJECT_DIR``, which Claude Code sets for hooks, else the hook's cwd), and
prints the ``hookSpecificOutput`` object Claude Code reads (:mod:`tapestryd.queries.hook`):
the full context once per session, the short "where we are now" block on each prompt and
on resume, and nothing when that block's topics are the ones this session already
received (the block's first line, the time, is left out of that comparison).

It never blocks a prompt: whatever fails (bad input, daemon down or slow, full disk) it
prints nothing and exits 0, within :data:`HOOK_TIMEOUT` seconds of socket time. When
the daemon is down at a session start it prints the last full context it got for that
project, marked as cached. Standard library only (it runs before typer is imported).

State lives beside the daemon's socket, in the per-user 0700 runtime folder:
``<socket>.hooks/session-<id>.json`` (hash of the last block given to a session) and
``<socket>.hooks/full-<hash of project>.md`` (the last full context per project).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import IO, Any, Mapping

__all__ = ["FULL_BUDGET", "HOOK_TIMEOUT", "run_hook"]

HOOK_TIMEOUT = 3.0  # seconds the daemon gets to answer
FULL_BUDGET = 2400  # tokens (≈ 9,600 characters, under the 10,000-character limit)
STATE_DAYS = 14  # session state files older than this are removed


def run_hook(home: str | None = None, *, stdin: IO[str] | None = None, stdout: IO[str] | None = None,
             environ: Mapping[str, str] | None = None) -> int:
    """Answer one hook invocation; always returns 0 (see the module docstring)."""
    env = os.environ if environ is None else environ
    try:
        answer = _answer(home, (stdin or sys.stdin).read(1_000_000), env)
        if answer:
            (stdout or sys.stdout).write(answer + "\n")
            (stdout or sys.stdout).flush()
    except BaseException:  # a hook must never fail the prompt, whatever happened
        pass
    return 0


def _answer(home: str | None, raw: str, env: Mapping[str, str]) -> str:
    from tapestryd.queries.hook import HookInput, hook_output, plan, state_folder
    from tapestryd.wire.address import socket_path

    if env.get("TAPESTRY_DISABLE", "") not in ("", "0", "false"):
        return ""
    hook = HookInput.parse(raw)
    what = plan(hook)
    if what == "none":
        return ""
    sock = socket_path(home, dict(env))
    project = env.get("CLAUDE_PROJECT_DIR") or hook.cwd
    state = _State(state_folder(sock), hook.session_id, project)
    result = _ask(sock, hook, what, project)
    text = state.remember(result, what) if result is not None else (state.cached() if what == "full" else "")
    return json.dumps(hook_output(hook.event, text), ensure_ascii=False) if text else ""


def _ask(sock: str, hook: Any, what: str, project: str) -> dict[str, Any] | None:
    from tapestryd.errors import TapestryError
    from tapestryd.wire.client import request

    args = {"project": project, "format": "markdown", "max_tokens": FULL_BUDGET, "now_only": what == "short",
            "exclude_session": hook.session_id}
    try:
        result = request(Path(sock), "context", args, timeout=HOOK_TIMEOUT)
    except (TapestryError, OSError, ValueError):
        return None
    return result if isinstance(result, dict) else None


class _State:
    """What this session was given, and the last full context per project (see the module docstring)."""

    def __init__(self, folder: str, session_id: str, project: str) -> None:
        from tapestryd.queries.hook import FULL_PREFIX

        self.folder = folder
        self.session_file = os.path.join(folder, f"session-{_digest(session_id or 'none')}.json")
        self.full_file = os.path.join(folder, f"{FULL_PREFIX}{_digest(project)}.md")

    def remember(self, result: dict[str, Any], what: str) -> str:
        """The text to inject for ``result``, recording it; '' when the session already has it."""
        block = _digest(str(result.get("now", "")).partition("\n")[2])  # the topics, not the clock line
        if what == "short" and self._given() == block:
            return ""
        self._write(self.session_file, json.dumps({"now": block, "at": time.time()}))
        text = str(result.get("rendered", ""))
        if what == "full":
            self._write(self.full_file, text)
            self._prune()
        return text

    def cached(self) -> str:
        """The last full context of this project, marked as cached; '' when there is none."""
        try:
            with open(self.full_file, encoding="utf-8") as fh:
                text = fh.read()
            stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(os.path.getmtime(self.full_file)))
        except OSError:
            return ""
        return f"(tapestryd is not running; this context was cached at {stamp})\n\n{text}" if text else ""

    def _given(self) -> str:
        try:
            with open(self.session_file, encoding="utf-8") as fh:
                return str(json.load(fh).get("now", ""))
        except (OSError, ValueError):
            return ""

    def _write(self, path: str, text: str) -> None:
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        temp = f"{path}.{os.getpid()}.tmp"
        with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(temp, path)

    def _prune(self) -> None:
        cutoff = time.time() - STATE_DAYS * 86400
        for name in os.listdir(self.folder):
            path = os.path.join(self.folder, name)
            if name.startswith("session-") and os.path.getmtime(path) < cutoff:
                os.remove(path)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
