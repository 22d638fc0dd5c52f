"""eval and drift answered by a running tapestryd over its socket (the daemon's read path)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from waiting import PATIENCE, ReadySignal

from tapestryd.config import load_settings
from tapestryd.paths import paths_for
from tapestryd.wire.client import request


def test_the_daemon_answers_eval_and_drift(built_home: Path) -> None:
    """The same figures come back through the socket as the in-process run gives."""
    config = built_home / "tapestry.toml"
    config.write_text(config.read_text() + "[web]\nenabled = false\n")  # test daemons never race for a port
    socket = paths_for(load_settings(built_home)).socket
    with ReadySignal() as ready:
        env = {**os.environ, "TAPESTRY_HOME": str(built_home), **ready.env}
        proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ready.wait(proc)
            result = request(socket, "eval", {"levels": [0, 1], "sample": 1}, timeout=PATIENCE)
            drift = request(socket, "drift", {}, timeout=PATIENCE)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=PATIENCE)
    level0, level1 = result["levels"]
    assert (level0["facts"], level0["retained"], level1["nodes"]) == (3, 3, 3)
    assert [y["sampled"] for y in result["recall_yield"]["levels"]] == [1, 1]
    assert (drift["versions"], drift["nodes_compared"]) == (9, 0)
