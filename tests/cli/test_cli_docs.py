"""Every command has help text and is documented in README (the sqlite-utils habit)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import typer.main

from tapestryd.cli.app import app
from tapestryd.cli.main import COMMAND_MODULES

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()

for _module in COMMAND_MODULES:
    importlib.import_module(_module)
COMMANDS = sorted(typer.main.get_command(app).commands.items())  # type: ignore[attr-defined]


@pytest.mark.parametrize("name, command", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_command_has_help_and_is_in_the_readme(name: str, command: object) -> None:
    """A user finds every command in `--help` and in README's command table."""
    assert (getattr(command, "help", "") or "").strip(), f"{name} has no help text"
    assert re.search(rf"`{re.escape(name)}[ `]", README), f"{name} is not in README.md"


def test_readme_opens_with_the_two_commands_ci_runs() -> None:
    """README's test command is exactly what .ci/run executes."""
    blocks = re.findall(r"```sh\n(.+?)\n```", README, re.S)
    assert "tapestryctl demo" in blocks[0]
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert blocks[1] in ci.splitlines()
