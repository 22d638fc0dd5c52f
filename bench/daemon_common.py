"""Shared pieces of the daemon benchmarks: a scratch home, tapestryd as a subprocess, /proc readings.

Not a benchmark itself; imported by ``bench/daemon_*.py``.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from tapestryd.config import load_settings
from tapestryd.errors import DaemonError
from tapestryd.paths import paths_for
from tapestryd.wire.client import request

OUT = Path(__file__).resolve().parent / "out"
BIN = Path(sys.executable).parent


def scratch_home(prefix: str, *, sweep: float = 60.0) -> tuple[Path, Path]:
    """A fresh TAPESTRY_HOME with one watched root inside it: ``(home, root)``."""
    home = Path(tempfile.mkdtemp(prefix=f"tapestry-bench-{prefix}-"))
    root = home / "claude-projects"
    root.mkdir()
    (home / "tapestry.toml").write_text(f'[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = ["{root}"]\n'
                                        f"sweep_interval = {sweep}\n")
    return home, root


def session_line(session: str, uuid: str, text: str, ts: str = "") -> bytes:
    """One Claude Code user record, newline included."""
    stamp = ts or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    record = {"type": "user", "uuid": uuid, "sessionId": session, "timestamp": stamp,
              "message": {"role": "user", "content": text}}
    return json.dumps(record).encode() + b"\n"


class Daemon:
    """tapestryd on ``home`` as a subprocess (logs to ``home/daemon.log``)."""

    def __init__(self, home: Path, tree: Path | None = None) -> None:
        """Start it: the installed ``tapestryd`` script, or the package of checkout ``tree``."""
        self.home = home
        self.socket = paths_for(load_settings(home)).socket
        self.env = {**os.environ, "TAPESTRY_HOME": str(home)}
        argv = [str(BIN / "tapestryd")]
        if tree is not None:
            self.env["PYTHONPATH"] = str(tree)
            argv = [sys.executable, "-c", "from tapestryd.daemon.main import main; main()"]
        log = (home / "daemon.log").open("ab")
        self.proc = subprocess.Popen([*argv, "--log-format", "json"], env=self.env, cwd=tree,
                                     stdout=subprocess.DEVNULL, stderr=log)
        wait_for(self.ready, 60)

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            raise SystemExit(f"tapestryd exited with {self.proc.returncode}; see {self.home / 'daemon.log'}")
        try:
            return bool(request(self.socket, "ping", timeout=2))
        except DaemonError:
            return False

    def call(self, op: str, args: dict[str, Any] | None = None) -> Any:
        return request(self.socket, op, args or {}, timeout=60)

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(10)


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 0.02) -> Any:
    """Poll until ``predicate()`` is truthy; raises TimeoutError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"not within {timeout} s")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """Resident set size of a process in MB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], p: float) -> float:
    """The ``p``-th percentile (0-100), nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def summary(values: list[float]) -> dict[str, float]:
    """Median, p95 and max of ``values``, rounded to 0.1 ms when they are seconds."""
    return {"median_ms": round(statistics.median(values) * 1000, 1), "p95_ms": round(percentile(values, 95) * 1000, 1),
            "max_ms": round(max(values) * 1000, 1), "n": len(values)}


def write_json(name: str, data: dict[str, Any]) -> Path:
    """Write ``bench/out/<name>.json``."""
    OUT.mkdir(exist_ok=True)
    path = OUT / f"{name}.json"
    path.write_text(json.dumps(data, indent=2))
    return path
