"""The daemon serves the calendar when [web] is enabled, and goes on when its port is taken."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

from daemon_helpers import Daemon, wait_for, write_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_daemon_serves_the_calendar_and_stops_it(tmp_path: Path) -> None:
    """GET / answers on the configured port while the daemon runs; SIGTERM closes it."""
    port = free_port()
    write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {port}\n")
    daemon = Daemon(tmp_path).start()
    try:
        wait_for(lambda: daemon.call("status")["daemon"].get("web"))
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            assert page.status == 200 and b"tapestry" in page.read()
        assert daemon.call("status")["daemon"]["web"] == f"http://127.0.0.1:{port}/"
    finally:
        code, _ = daemon.stop()
    assert code == 0
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_a_taken_port_is_reported_and_the_daemon_keeps_serving(tmp_path: Path) -> None:
    """Another program on the calendar's port does not stop memory from working."""
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {port}\n")
        daemon = Daemon(tmp_path).start()
        try:
            status = wait_for(lambda: (s := daemon.call("status")["daemon"])["errors"] and s)
            assert status["web"] is None and any("calendar" in str(e) for e in status["errors"])
            assert daemon.call("ping")["pong"] is True
        finally:
            daemon.stop()
