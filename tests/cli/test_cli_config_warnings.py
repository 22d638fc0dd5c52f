"""A mistyped key in tapestry.toml: every command warns once on stderr and still answers; the
daemon logs it, and its status (the fast path, which never reads the file) shows it once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from cli_runner import tapestryctl
from test_cli_core import seed
from waiting import PATIENCE, ReadySignal


TYPO = "unknown key 'timezon' in [general] (ignored); did you mean 'timezone'?"


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\ntimezon = "UTC"\n'
                                        "[sources]\nwatched_roots = []\n[web]\nenabled = false\n")
    return home


def ctl(*args: str, home: Path, fast: str = "0") -> subprocess.CompletedProcess[str]:
    """tapestryctl in this process (tests/cli_runner.py) against ``home``."""
    env = {**os.environ, "TAPESTRY_HOME": str(home), "TAPESTRY_FAST": fast}
    return tapestryctl(*args, env=env)


def test_commands_warn_once_and_still_answer(tmp_path: Path) -> None:
    """status, search and conversations without a daemon: one warning line each, exit 0."""
    home = _home(tmp_path)
    seed(home)
    for args in (("status",), ("search", "rope"), ("conversations",)):
        out = ctl(*args, home=home)
        assert out.returncode == 0, out.stderr
        assert out.stderr.count(TYPO) == 1 and f"warning: {home / 'tapestry.toml'}: {TYPO}" in out.stderr
        assert TYPO not in out.stdout
    assert "Rope braiding" in ctl("search", "rope", home=home).stdout


def test_the_daemon_logs_it_and_its_status_shows_it_once(tmp_path: Path) -> None:
    """tapestryd logs config.key_ignored at start; status through it (fast or full CLI) says it once."""
    home = _home(tmp_path)
    seed(home)
    log = home / "daemon.log"
    ready = ReadySignal()
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"],
                                env={**os.environ, "TAPESTRY_HOME": str(home), **ready.env},
                                stdout=subprocess.DEVNULL, stderr=sink)
    try:
        ready.wait(proc, log.read_text)
        assert "config.key_ignored" in log.read_text() and TYPO in log.read_text()
        for fast in ("1", "0"):
            out = ctl("status", home=home, fast=fast)
            assert out.returncode == 0, out.stderr
            assert "tapestryd: running" in out.stdout
            assert (out.stdout + out.stderr).count(TYPO) == 1, (fast, out.stdout, out.stderr)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=PATIENCE)
        ready.close()
