"""tapestryd's life as a service manager sees it: start, refuse a twin, reload, notify, stop."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import subprocess
import sys
from pathlib import Path

from daemon_helpers import Daemon, session_line, wait_for, write_config
from waiting import PATIENCE
from tapestryd.daemon.logs import Redactor, log_format


def test_sigterm_exits_zero_within_five_seconds_and_removes_the_socket(daemon: Daemon) -> None:
    """A clean stop is fast, exits 0 and leaves no socket behind."""
    daemon.start()
    mode = stat.S_IMODE(daemon.socket.stat().st_mode)
    assert mode == 0o600 and stat.S_IMODE(daemon.socket.parent.stat().st_mode) == 0o700
    code, seconds = daemon.stop(signal.SIGTERM)
    assert code == 0 and seconds < 5
    assert not daemon.socket.exists()
    assert '"daemon.stopped"' in daemon.log.read_text()


def test_a_second_instance_refuses_to_start_and_names_the_holder(daemon: Daemon, home: Path) -> None:
    """Two daemons on one home would be two writers: the second exits 1 and says who holds it."""
    daemon.start()
    second = subprocess.run([sys.executable, "-m", "tapestryd.daemon.main"], capture_output=True, text=True,
                            env={**os.environ, "TAPESTRY_HOME": str(home)}, timeout=30)
    assert second.returncode == 1
    assert f"pid {daemon.proc.pid}" in second.stderr and "second instance" in second.stderr  # type: ignore[union-attr]
    assert daemon.call("ping")["pong"] is True


def test_sighup_reloads_the_config_and_watches_a_new_root(daemon: Daemon, home: Path, projects: Path) -> None:
    """A root added to tapestry.toml is watched after SIGHUP, without a restart."""
    daemon.start()
    extra = home / "more-projects" / "-home-me-other"
    extra.mkdir(parents=True)
    write_config(home, roots=[projects, home / "more-projects"])
    daemon.send(signal.SIGHUP)
    wait_for(lambda: len(daemon.call("status")["daemon"]["sources"]["roots"]) == 2)
    (extra / "s9.jsonl").write_bytes(session_line("s9", "u1", "after reload comes the heron"))
    wait_for(lambda: daemon.call("search", {"query": "heron"})["hits"])
    assert '"daemon.reloaded"' in daemon.log.read_text()


def test_a_broken_config_on_reload_keeps_the_daemon_serving(daemon: Daemon, home: Path) -> None:
    """SIGHUP with invalid TOML logs the error, keeps the old settings and goes on serving."""
    daemon.start()
    (home / "tapestry.toml").write_text("[sources\nbroken")
    daemon.send(signal.SIGHUP)
    wait_for(lambda: '"daemon.reload_failed"' in daemon.log.read_text())
    assert daemon.call("status")["daemon"]["errors"][-1]["source"] == "reload"
    assert daemon.stop()[0] == 0


def test_systemd_gets_ready_watchdog_and_stopping(daemon: Daemon, tmp_path: Path) -> None:
    """Type=notify: READY=1 once serving, WATCHDOG=1 while alive, STOPPING=1 on SIGTERM."""
    address = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(address)
        listener.settimeout(10)
        daemon.start(env={"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "400000"})
        seen = [listener.recv(4096).decode() for _ in range(3)]
        daemon.stop()
        listener.settimeout(0.5)
        while True:
            try:
                seen.append(listener.recv(4096).decode())
            except TimeoutError:
                break
    assert seen[0].startswith("READY=1") and "STATUS=serving on" in seen[0]
    assert seen[1:3] == ["WATCHDOG=1", "WATCHDOG=1"] and seen[-1] == "STOPPING=1"


def test_a_notify_listener_that_stops_reading_never_keeps_the_daemon_from_stopping(
        daemon: Daemon, tmp_path: Path) -> None:
    """A full notify queue drops messages instead of blocking the main loop, so SIGTERM still
    stops the daemon (it once hung in sendto, pinging a watchdog nobody had asked for)."""
    address = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(address)
        listener.settimeout(PATIENCE)
        daemon.start(env={"NOTIFY_SOCKET": address})
        assert listener.recv(4096).decode().startswith("READY=1")
        filler = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        filler.setblocking(False)
        with filler, contextlib.suppress(BlockingIOError):
            while True:
                filler.sendto(b"X=1", address)
        code, _ = daemon.stop(signal.SIGTERM, timeout=120)
    assert code == 0 and '"daemon.stopped"' in daemon.log.read_text()


def test_the_api_key_never_reaches_the_log(daemon: Daemon, projects: Path) -> None:
    """A log line that would quote the provider key shows ``[redacted]`` instead."""
    secret = "sk-test-0123456789abcdefSECRET"
    folder = projects / f"-home-me-{secret}"
    folder.mkdir()
    (folder / "s1.jsonl").write_bytes(session_line("s1", "u1", "a path that holds a key"))
    daemon.start(env={"TAPESTRY_API_KEY": secret})
    wait_for(lambda: daemon.call("search", {"query": "holds key"})["hits"])
    daemon.stop()
    log = daemon.log.read_text()
    assert '"source.tailed"' in log and "[redacted]" in log and secret not in log


def test_tapestry_disable_makes_the_daemon_do_nothing(home: Path, projects: Path) -> None:
    """TAPESTRY_DISABLE=1 exits 0 at once without creating a database."""
    done = subprocess.run([sys.executable, "-m", "tapestryd.daemon.main"], capture_output=True, text=True,
                          env={**os.environ, "TAPESTRY_HOME": str(home), "TAPESTRY_DISABLE": "1"}, timeout=30)
    assert done.returncode == 0 and not (home / "events.db").exists()


def test_a_data_dir_that_cannot_be_created_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """A data dir below a regular file (as good as read-only): tapestryd exits 1 naming the path."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "file").write_text("not a folder")
    (home / "tapestry.toml").write_text(f'[paths]\ndata_dir = "{home / "file" / "data"}"\n[web]\nenabled = false\n')
    done = subprocess.run([sys.executable, "-m", "tapestryd.daemon.main"], capture_output=True, text=True,
                          env={**os.environ, "TAPESTRY_HOME": str(home)}, timeout=30)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"tapestryd: {home / 'file' / 'data'}: Not a directory" in done.stderr


class _Tty:
    def isatty(self) -> bool:
        return True


def test_logs_are_key_value_on_a_terminal_and_json_under_a_service_manager() -> None:
    """systemd's INVOCATION_ID / JOURNAL_STREAM, or no terminal, mean JSON lines."""
    assert log_format(environ={}, stream=_Tty()) == "console"
    assert log_format(environ={"INVOCATION_ID": "abc"}, stream=_Tty()) == "json"
    assert log_format(environ={"JOURNAL_STREAM": "8:123"}, stream=_Tty()) == "json"
    assert log_format(environ={}, stream=object()) == "json"
    assert log_format("console", environ={"INVOCATION_ID": "abc"}) == "console"


def test_the_redactor_scrubs_secrets_in_nested_values_and_secret_named_keys() -> None:
    """Every occurrence of the key, in strings, lists and dicts, and whole secret-named values."""
    redact = Redactor(["sk-abc123"])
    event = redact(None, "info", {"event": "x", "url": "https://h/?k=sk-abc123", "headers": {"a": ["sk-abc123"]},
                                  "api_key": "anything", "count": 3})
    assert event == {"event": "x", "url": "https://h/?k=[redacted]", "headers": {"a": ["[redacted]"]},
                     "api_key": "[redacted]", "count": 3}
