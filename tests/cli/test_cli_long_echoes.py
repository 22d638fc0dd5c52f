"""A pasted paragraph given as a date, an agent or a conversation comes back cut in the error line, as a long
query is cut in 'no matches for …', with the daemon down and through it (the fast path)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from cli_runner import tapestryctl
from test_cli_core import seed
from waiting import PATIENCE, ReadySignal

PASTED = "the week we talked about the garlic beds and the rope " * 60  # 3,240 characters
CASES = [("search", "rope", "--since", PASTED), ("search", "rope", "--agent", PASTED), ("recall", PASTED),
         ("show", PASTED), ("context", "--date", PASTED)]


def ctl(home: Path, *args: str, fast: str) -> subprocess.CompletedProcess[str]:
    """tapestryctl in this process (tests/cli_runner.py), the fast path on or off."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home), "TAPESTRY_FAST": fast}
    return tapestryctl(*args, env=env)


def check_cut(home: Path, fast: str) -> None:
    for args in CASES:
        out = ctl(home, *args, fast=fast)
        error = out.stderr.strip().splitlines()[-1]
        assert out.returncode == 1 and error.startswith("error: "), (args, out.stderr[:300])
        assert len(error) < 600 and "the week we talked" in error and "…" in error, (args, error[:300])


def test_long_values_are_cut_in_error_lines(tmp_path: Path) -> None:
    """'cannot read '<3 KB>' as a date …' was printed whole, before its hint."""
    seed(tmp_path)
    check_cut(tmp_path, "0")


def test_long_values_are_cut_through_the_daemon_too(tmp_path: Path) -> None:
    seed(tmp_path)
    (tmp_path / "tapestry.toml").write_text("[web]\nenabled = false\n[sources]\nwatched_roots = []\n")
    log = tmp_path / "daemon.log"
    ready = ReadySignal()
    with log.open("wb") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"],
                                env={**os.environ, "TAPESTRY_HOME": str(tmp_path), **ready.env},
                                stdout=subprocess.DEVNULL, stderr=sink)
    try:
        ready.wait(proc, log.read_text)
        check_cut(tmp_path, "1")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=PATIENCE)
        ready.close()
