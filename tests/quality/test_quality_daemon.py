"""eval and drift answered by a running tapestryd over its socket (the daemon's read path)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tapestryd.config import load_settings
from tapestryd.errors import DaemonError
from tapestryd.paths import paths_for
from tapestryd.wire.client import request


def _ready(socket: Path, proc: subprocess.Popen[bytes]) -> bool:
    assert proc.poll() is None, f"tapestryd exited with {proc.returncode}"
    try:
        return bool(request(socket, "ping", {}, timeout=2))
    except DaemonError:
        return False


def test_the_daemon_answers_eval_and_drift(built_home: Path) -> None:
    """The same figures come back through the socket as the in-process run gives."""
    socket = paths_for(load_settings(built_home)).socket
    env = {**os.environ, "TAPESTRY_HOME": str(built_home)}
    proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not _ready(socket, proc):
            assert time.monotonic() < deadline, "tapestryd did not answer ping within 30 s"
            time.sleep(0.1)
        result = request(socket, "eval", {"levels": [0, 1], "sample": 1}, timeout=60)
        drift = request(socket, "drift", {}, timeout=60)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    level0, level1 = result["levels"]
    assert (level0["facts"], level0["retained"], level1["nodes"]) == (3, 3, 3)
    assert [y["sampled"] for y in result["recall_yield"]["levels"]] == [1, 1]
    assert (drift["versions"], drift["nodes_compared"]) == (9, 0)
