"""``tapestryctl install-mcp``: register the MCP server with Claude Code, and the snippets for
Codex CLI and Gemini CLI.

Claude Code: ``claude mcp add --scope user tapestry -- <command>`` when the ``claude`` CLI
is on PATH; else the same entry is merged into ``~/.claude.json``'s top-level
``mcpServers`` (where user-scoped servers live; other keys are kept), in the documented
stdio shape ``{"type": "stdio", "command", "args", "env"}`` (code.claude.com/docs/en/mcp).
Codex CLI reads ``[mcp_servers.<name>]`` tables with ``command`` and ``args`` from
``~/.codex/config.toml``; Gemini CLI reads ``mcpServers.<name>`` with ``command`` and
``args`` from ``~/.gemini/settings.json``. Those two are printed, never written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tapestryd.errors import TapestryError

__all__ = ["NAME", "Plan", "codex_snippet", "gemini_snippet", "install", "installed_tapestryctl", "plan",
           "server_command"]

NAME = "tapestry"


def server_command(home: str | None, *, which: str | None = None) -> list[str]:
    """The command line that starts the server: ``tapestryctl [--home DIR] mcp``.

    ``tapestryctl`` by its absolute path (``which``, else :func:`installed_tapestryctl`; a
    client may start it with another PATH), else this interpreter with ``-m tapestryd.cli``.
    ``--home`` is added, absolute, when a home was chosen (``--home`` or ``TAPESTRY_HOME``).
    """
    found = which if which is not None else installed_tapestryctl()
    base = [found] if found else [sys.executable, "-m", "tapestryd.cli"]
    chosen = ["--home", str(Path(home).expanduser().resolve())] if home else []
    return [*base, *chosen, "mcp"]


def installed_tapestryctl() -> str | None:
    """The ``tapestryctl`` of the running installation: the one beside this interpreter (a venv's
    ``bin``, run without activating it) before one on PATH, which may belong to another install."""
    beside = Path(sys.executable).parent / "tapestryctl"
    return str(beside) if beside.is_file() else shutil.which("tapestryctl")


@dataclass(frozen=True)
class Plan:
    """What install-mcp does for Claude Code: run ``argv`` (the claude CLI) or merge into ``config_file``."""

    command: list[str]
    argv: list[str] = field(default_factory=list)
    config_file: Path | None = None


def plan(command: list[str], *, claude: str | None, user_home: Path) -> Plan:
    """The Claude Code step for ``command``: the ``claude mcp add`` line when ``claude`` (its
    path) is given, else a merge into ``user_home/.claude.json``."""
    if claude:
        return Plan(command, argv=[claude, "mcp", "add", "--scope", "user", NAME, "--", *command])
    return Plan(command, config_file=user_home / ".claude.json")


def install(step: Plan) -> str:
    """Carry out ``step``; returns a line saying what was done.

    Raises TapestryError when ``claude mcp add`` fails (its message included, e.g. a server
    of that name already registered) or when the existing ``.claude.json`` is not a JSON object, or its
    ``mcpServers`` is not one.
    """
    if step.argv:
        done = subprocess.run(step.argv, capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip() or f"exit code {done.returncode}"
            raise TapestryError(f"`{' '.join(step.argv[:6])} …` failed: {why} (to replace an older entry: "
                                f"claude mcp remove --scope user {NAME})")
        return f"registered with Claude Code: {' '.join(step.argv)}"
    assert step.config_file is not None
    _merge_claude_json(step.config_file, step.command)
    return f"added mcpServers.{NAME} to {step.config_file} (Claude Code's user scope)"


def claude_entry(command: list[str]) -> dict[str, object]:
    """The stdio server entry Claude Code stores under ``mcpServers``."""
    return {"type": "stdio", "command": command[0], "args": command[1:], "env": {}}


def _merge_claude_json(path: Path, command: list[str]) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except ValueError as exc:
        raise TapestryError(f"{path} is not valid JSON ({exc}); fix it or add the server with the claude CLI") from exc
    if not isinstance(data, dict):
        raise TapestryError(f"{path} does not hold a JSON object; fix it or add the server with the claude CLI")
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise TapestryError(f"{path}: mcpServers is not a JSON object ({type(servers).__name__}); fix it or add "
                            "the server with the claude CLI")
    servers[NAME] = claude_entry(command)
    temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if path.exists():
        os.chmod(temp, path.stat().st_mode & 0o777)
    os.replace(temp, path)


def codex_snippet(command: list[str]) -> str:
    """The ``~/.codex/config.toml`` table for Codex CLI."""
    return f"[mcp_servers.{NAME}]\ncommand = {json.dumps(command[0])}\nargs = {json.dumps(command[1:])}\n"


def gemini_snippet(command: list[str]) -> str:
    """The ``mcpServers`` entry for Gemini CLI's ``~/.gemini/settings.json``."""
    return json.dumps({"mcpServers": {NAME: {"command": command[0], "args": command[1:]}}}, indent=2) + "\n"
