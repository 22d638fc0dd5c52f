"""``tapestryctl calendar`` as a real process: it serves the page and stops on Ctrl-C."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tapestryd.config import Settings


def test_calendar_command_serves_the_month_and_stops_on_sigint(history: Settings, home: Path) -> None:
    """The command prints its address, answers with the month page, and exits 0 on SIGINT."""
    proc = subprocess.Popen([sys.executable, "-m", "tapestryd.cli", "calendar", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TAPESTRY_HOME": str(home)}, preexec_fn=_ctrl_c_default)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, f"no address in {line!r}; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"
        with urllib.request.urlopen(url.group(0) + "month/2026-03", timeout=10) as page:
            assert "Garden planning day" in page.read().decode()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0


def _ctrl_c_default() -> None:
    """Ctrl-C as at a terminal, even when this suite runs in a background job (which ignores SIGINT,
    and Python then installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
