"""tapestryctl against the daemon: the standard-library fast path, the fallback, control commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Iterator

import pytest
from cli_runner import tapestryctl
from daemon_helpers import Daemon, session_line, wait_for, write_config

from tapestryd.cli.fast import parse
from tapestryd.config import load_settings
from tapestryd.paths import paths_for
from tapestryd.wire.address import socket_path

HEAVY = ("typer", "click", "rich", "sqlite3", "structlog", "sklearn", "watchdog", "apscheduler", "tapestryd.config",
         "tapestryd.queries", "tapestryd.operations.query")


def ctl(*args: str, home: Path, env: dict[str, str] | None = None,
        python: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """tapestryctl as a user runs it: in its own process when ``python`` has interpreter options for it
    (what it imports), else in this one (tests/cli_runner.py)."""
    full = {**os.environ, "TAPESTRY_HOME": str(home), **(env or {})}
    if not python:
        return tapestryctl(*args, env=full)
    return subprocess.run([sys.executable, *python, "-m", "tapestryd.cli", *args], capture_output=True, text=True,
                          env=full, timeout=60)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon for the read-only tests of this module, with two messages of today."""
    home = tmp_path_factory.mktemp("cli") / "home"
    projects = home / "claude-projects" / "-home-me-p"
    projects.mkdir(parents=True)
    write_config(home, roots=[projects.parent])
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")  # today: context shows it raw
    (projects / "s.jsonl").write_bytes(session_line("s", "u1", "where is the lantern", ts=now)
                                       + session_line("s", "u2", "the lantern is in the shed", role="assistant",
                                                      ts=now))
    daemon = Daemon(home).start()
    wait_for(lambda: len(daemon.messages()) == 2)
    # the warm index answers search once it holds both messages; wait, so every test sees one ranking
    wait_for(lambda: _indexed(daemon) == 2)
    yield daemon
    daemon.cleanup()


def _indexed(daemon: Daemon) -> int:
    index = daemon.call("similar", {"query": "lantern"})["index"]
    return int(index.get("fitted", 0)) + int(index.get("delta", 0))


def test_the_fast_path_imports_only_the_standard_library(served: Daemon) -> None:
    """status, context, search and similar through the socket never import typer, SQLite or the config."""
    for argv, expected in ((["status"], "running, pid"), (["context"], "lantern"),
                           (["search", "lantern", "-f", "json"], "lantern"), (["similar", "lantern"], "lantern")):
        done = ctl(*argv, home=served.home, python=("-X", "importtime"))
        assert done.returncode == 0 and expected in done.stdout, (argv, done.stderr[-2000:])
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        assert "tapestryd.cli.fast" in imported and "tapestryd.wire.client" in imported
        assert not {m for m in imported if any(m == h or m.startswith(h + ".") for h in HEAVY)}, argv


def test_the_fast_path_prints_what_the_full_cli_prints(served: Daemon) -> None:
    """Same bytes whether the fast path or typer answers.

    context is anchored on the day after the session's: on its own day it prints the current
    minute, which may turn between the two runs.
    """
    first = json.loads((served.home / "claude-projects" / "-home-me-p" / "s.jsonl").read_text().splitlines()[0])
    after = (date.fromisoformat(first["timestamp"][:10]) + timedelta(days=1)).isoformat()
    for argv in (["context", "--date", after], ["context", "--date", after, "-f", "json"],
                 ["search", "lantern", "shed", "-f", "jsonl"],
                 ["search", "lantern", "-n", "1"], ["similar", "lantern"],
                 ["similar", "lantern", "-f", "json", "-n", "1"]):
        fast, full = ctl(*argv, home=served.home), ctl(*argv, home=served.home, env={"TAPESTRY_FAST": "0"})
        assert fast.returncode == full.returncode == 0, (argv, full.stderr[-2000:])
        assert fast.stdout == full.stdout and "lantern" in fast.stdout, argv


def test_status_through_the_socket_shows_the_daemon(served: Daemon) -> None:
    """status: counts, lag, and the daemon's pid, roots, files and inbox."""
    out = ctl("status", home=served.home).stdout
    assert f"running, pid {served.proc.pid}" in out  # type: ignore[union-attr]
    assert f"{served.home / 'claude-projects'} (native); 1 session files" in out
    assert "store: 1 conversation, 2 messages" in out and "messages 0 behind" in out


def test_control_commands_then_read_only_answers_when_the_daemon_is_down(daemon: Daemon, home: Path,
                                                                        projects: Path) -> None:
    """pause stops tailing (queries go on), resume catches up, reload re-reads the config; once
    the daemon is down, queries say so on stderr and answer read-only, control commands refuse."""
    (projects / "-home-me-p").mkdir()
    (projects / "-home-me-p" / "s.jsonl").write_bytes(session_line("s", "u1", "where is the lantern"))
    daemon.start()
    assert ctl("pause", home=home).returncode == 0
    assert daemon.call("status")["daemon"]["paused"] is True
    with (projects / "-home-me-p" / "s.jsonl").open("ab") as fh:
        fh.write(session_line("s", "u3", "written while paused: a kestrel"))
    assert "lantern" in ctl("search", "lantern", home=home).stdout
    assert not daemon.call("search", {"query": "kestrel"})["hits"]
    assert ctl("resume", home=home).returncode == 0
    wait_for(lambda: daemon.call("search", {"query": "kestrel"})["hits"])
    reloaded = ctl("reload", home=home)
    assert reloaded.returncode == 0 and "reloaded" in reloaded.stdout
    daemon.stop()
    for argv in (["status"], ["search", "kestrel"]):
        done = ctl(*argv, home=home)
        assert done.returncode == 0 and "not running" in done.stderr and "read-only" in done.stderr, done.stderr
    assert "tapestryd: not running" in ctl("status", home=home).stdout
    refused = ctl("pause", home=home)
    assert refused.returncode == 1 and "not running" in refused.stderr and "Traceback" not in refused.stderr


@pytest.mark.parametrize("env", [{"TAPESTRY_HOME": "HOME"}, {"TAPESTRY_HOME": "HOME", "XDG_RUNTIME_DIR": "XDG"},
                                 {"TAPESTRY_SOCKET": "SOCK"}, {"XDG_RUNTIME_DIR": "XDG"}, {}])
def test_the_fast_socket_path_is_the_one_paths_for_computes(env: dict[str, str], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path finds the same socket as the daemon, without importing the config."""
    (tmp_path / "xdg").mkdir()
    values = {"HOME": str(tmp_path / "h"), "XDG": str(tmp_path / "xdg"), "SOCK": str(tmp_path / "d.sock")}
    for name in ("TAPESTRY_HOME", "TAPESTRY_SOCKET", "XDG_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name, value in env.items():
        monkeypatch.setenv(name, values[value])
    assert socket_path() == str(paths_for(load_settings()).socket)


def test_the_fast_path_declines_what_it_does_not_fully_understand() -> None:
    """Unknown options, --help, missing values and other commands go to the full CLI."""
    assert parse(["status"]) == (None, "status", {"format": "text"})
    home, command, args = parse(["--home", "/x", "search", "a", "b", "--limit=3"])  # type: ignore[misc]
    assert (home, command, args["query"], args["limit"]) == ("/x", "search", "a b", 3)
    for argv in (["status", "--help"], ["search"], ["search", "q", "-n"], ["search", "q", "-n", "x"],
                 ["status", "extra"], ["stats"], ["search", "q", "--bogus"], ["status", "-f", "yaml"], [],
                 ["similar", "q", "--top", "0"], ["context", "--recent", "501"], ["search", "q", "--hybrid"]):
        assert parse(argv) is None, argv
