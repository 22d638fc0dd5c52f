"""The sync options as a user types them: an empty --key, and the help naming the [sync] table."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_runner import tapestryctl

ROOT = Path(__file__).resolve().parents[2]


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return tapestryctl("--home", str(home), *args, cwd=ROOT, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})


def test_an_empty_key_is_refused_instead_of_making_a_new_one(tmp_path: Path) -> None:
    (tmp_path / "tapestry.toml").write_text('[sync]\nmachine = "desktop"\nurl = "postgresql://me@hub.example/t"\n')
    done = _cli(tmp_path, "sync", "init", "--key", "  ")  # `--key "$KEY"` with KEY unset or blank
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: --key is empty: paste the passphrase `tapestryctl sync init` showed on the first machine"]
    assert not (tmp_path / "sync.key").exists()


@pytest.mark.parametrize("command", ["search", "context"])
def test_the_machine_option_help_names_the_sync_table(tmp_path: Path, command: str) -> None:
    done = _cli(tmp_path, command, "--help")
    assert done.returncode == 0
    assert "([sync] machine there)" in " ".join(done.stdout.replace("│", " ").split())


def test_a_machine_name_nothing_was_captured_on_is_named_with_the_known_ones(tmp_path: Path, hub_url: str) -> None:
    from sync_helpers import capture, make_home, write_session

    from tapestryd.errors import TapestryError
    from tapestryd.operations.dispatch import run_here
    from tapestryd.operations.requests import ContextRequest, SearchRequest

    laptop, _ = make_home(tmp_path, "laptop", hub_url)
    capture(laptop, write_session(tmp_path / "a", "s-a", ["kiwi on the laptop"]))
    assert run_here(laptop, SearchRequest(query="kiwi", machine="laptop")).to_json()["hits"]
    for request in (SearchRequest(query="kiwi", machine="laptpo"), ContextRequest(machine="laptpo")):
        with pytest.raises(TapestryError, match=r"^no machine named 'laptpo'; known: laptop$"):
            run_here(laptop, request)
    assert not run_here(laptop, SearchRequest(query="mango", machine="laptop")).to_json()["hits"]
