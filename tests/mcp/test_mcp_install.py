"""``tapestryctl install-mcp``: Claude Code through its CLI or its user config, snippets for Codex and Gemini;
and the MCP SDK stays out of every other command's start-up."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import tomllib
from pathlib import Path

from cli_runner import tapestryctl

from tapestryd.mcp.install import codex_snippet, gemini_snippet, server_command

ROOT = Path(__file__).resolve().parents[2]


def beside_or_none() -> str:
    """What the subprocesses below register: the tapestryctl beside this interpreter (an installed
    checkout's venv, as CI makes), else none (their PATH holds no tapestryctl): ``-m tapestryd.cli``."""
    beside = Path(sys.executable).parent / "tapestryctl"
    return str(beside) if beside.is_file() else ""


def ctl(home: Path, *args: str, path: str = "/usr/bin:/bin") -> subprocess.CompletedProcess[str]:
    env = {"TAPESTRY_HOME": str(home), "HOME": str(home), "PATH": path}
    return tapestryctl(*args, env=env, cwd=ROOT)


def test_without_the_claude_cli_the_server_is_merged_into_claude_json(home: Path) -> None:
    """User scope lives at the top of ~/.claude.json: the entry is added there, every other key kept;
    --dry-run says so and writes nothing."""
    config = home / ".claude.json"
    config.write_text(json.dumps({"theme": "dark", "mcpServers": {"other": {"command": "x"}}}))
    dry = ctl(home, "install-mcp", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert f"would add mcpServers.tapestry to {config}" in dry.stdout
    assert json.loads(config.read_text()) == {"theme": "dark", "mcpServers": {"other": {"command": "x"}}}
    done = ctl(home, "install-mcp")
    assert done.returncode == 0, done.stderr
    data = json.loads(config.read_text())
    assert data["theme"] == "dark" and data["mcpServers"]["other"] == {"command": "x"}
    entry = data["mcpServers"]["tapestry"]
    assert entry["type"] == "stdio" and entry["env"] == {}
    assert [entry["command"], *entry["args"]] == server_command(str(home), which=beside_or_none())


def test_a_claude_json_whose_mcp_servers_is_no_object_is_one_error_line_and_left_as_it_was(home: Path) -> None:
    """``"mcpServers": null`` or a list (a hand edit gone wrong): one error line naming the file and the key, no
    traceback, the file unchanged."""
    config = home / ".claude.json"
    for servers in (None, [1], "x"):
        config.write_text(json.dumps({"theme": "dark", "mcpServers": servers}))
        done = ctl(home, "install-mcp")
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert f"{config}" in done.stderr and "mcpServers" in done.stderr
        assert json.loads(config.read_text()) == {"theme": "dark", "mcpServers": servers}


def test_with_the_claude_cli_it_runs_claude_mcp_add_in_user_scope(home: Path, tmp_path: Path) -> None:
    """The documented line: claude mcp add --scope user tapestry -- <command>."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "argv.json"
    fake = bin_dir / "claude"
    fake.write_text(f"#!{sys.executable}\nimport json, sys\njson.dump(sys.argv[1:], open({str(record)!r}, 'w'))\n")
    fake.chmod(0o755)
    path = f"{bin_dir}:/usr/bin:/bin"
    assert "would run: " in ctl(home, "install-mcp", "--dry-run", path=path).stdout and not record.exists()
    done = ctl(home, "install-mcp", path=path)
    assert done.returncode == 0, done.stderr
    argv = json.loads(record.read_text())
    assert argv[:6] == ["mcp", "add", "--scope", "user", "tapestry", "--"]
    assert argv[6:] == server_command(str(home), which=beside_or_none())
    assert argv[-3:] == ["--home", str(home.resolve()), "mcp"]
    assert not (home / ".claude.json").exists()


def test_a_failing_claude_cli_is_one_error_line(home: Path, tmp_path: Path) -> None:
    """An entry already registered (claude exits 1) is reported with its message and how to replace it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\necho 'MCP server tapestry already exists in user config' >&2\nexit 1\n")
    (bin_dir / "claude").chmod(0o755)
    done = ctl(home, "install-mcp", path=f"{bin_dir}:/usr/bin:/bin")
    assert done.returncode == 1 and "already exists" in done.stderr and "claude mcp remove" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_codex_and_gemini_snippets_parse_in_their_formats(home: Path) -> None:
    """Codex CLI's [mcp_servers.<name>] TOML table and Gemini CLI's mcpServers JSON, printed with the same command."""
    command = ["/opt/bin/tapestryctl", "--home", "/h/with \"quote\"", "mcp"]
    codex = tomllib.loads(codex_snippet(command))["mcp_servers"]["tapestry"]
    assert [codex["command"], *codex["args"]] == command
    gemini = json.loads(gemini_snippet(command))["mcpServers"]["tapestry"]
    assert [gemini["command"], *gemini["args"]] == command
    shown = ctl(home, "install-mcp", "--dry-run").stdout
    assert "[mcp_servers.tapestry]" in shown and '"mcpServers"' in shown


def test_other_commands_never_import_the_mcp_sdk() -> None:
    """Every command module of the CLI loads without the SDK: only `tapestryctl mcp` pays for it."""
    code = ("import importlib, sys\nfrom tapestryd.cli.main import COMMAND_MODULES\n"
            "for name in COMMAND_MODULES: importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'pydantic'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_tapestryctl_beside_the_running_interpreter_wins_over_one_on_path(home: Path, tmp_path: Path) -> None:
    """Run from a venv's bin without activating it, with another install's tapestryctl on PATH: the entry
    named that other one (an older version, another home's), not the one the user ran."""
    venv_bin, other_bin = tmp_path / "venv" / "bin", tmp_path / "other"
    venv_bin.mkdir(parents=True)
    other_bin.mkdir()
    (venv_bin / "python").symlink_to(sys.executable)
    for script in (venv_bin / "tapestryctl", other_bin / "tapestryctl"):
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o755)
    env = {"TAPESTRY_HOME": str(home), "HOME": str(home), "PATH": f"{other_bin}:/usr/bin:/bin",
           "PYTHONPATH": os.pathsep.join([str(ROOT), *site.getsitepackages()])}
    done = subprocess.run([str(venv_bin / "python"), "-m", "tapestryd.cli", "install-mcp"], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["tapestry"]
    assert [entry["command"], *entry["args"]] == [str(venv_bin / "tapestryctl"), "--home", str(home.resolve()), "mcp"]
