"""Tester report 4: pause and stop end a remote provider's retries (items 1, 11); a busy web
port on reload keeps the calendar where it was and says so (item 3); the user's own mistakes
are not listed as daemon errors (item 12); the JSON log holds no colour codes (item 16)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Iterator

import pytest

from daemon_helpers import Daemon, wait_for, write_config
from fake_llm import FakeLLM, Reply
from test_daemon_pause_reload import _free_port, _serves, export
from tapestryd.cli.fast import render_control
from tapestryd.config import load_settings
from tapestryd.errors import DaemonError
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import IngestRequest


@pytest.fixture
def failing() -> Iterator[FakeLLM]:
    """A fake LLM answering every call with HTTP 500 after 1 s."""
    fake = FakeLLM(fail_with=Reply(500, "boom", delay=1.0)).start()
    yield fake
    fake.stop()


def with_backlog(tmp_path: Path, conversations: int) -> Daemon:
    """A daemon that starts with closed days to summarize: an export of past days is imported first,
    in this process (the daemon closes those days as it starts)."""
    run_here(load_settings(tmp_path), IngestRequest(paths=(str(export(tmp_path / "export.json", conversations)),)))
    return Daemon(tmp_path).start()


def _summarize_with(tmp_path: Path, llm: FakeLLM) -> None:
    write_config(tmp_path, roots=[tmp_path / "projects"],
                 extra=f'[summarize]\nprovider = "openai"\nbase_url = "{llm.url}"\nmodel = "x"\n')


def test_pause_ends_the_retries_of_the_node_in_hand(tmp_path: Path, failing: FakeLLM) -> None:
    """Paused while a call that will fail is in flight: no new request starts, the abandonment is logged."""
    _summarize_with(tmp_path, failing)
    daemon = with_backlog(tmp_path, 3)
    try:
        seen = len(failing.calls)
        wait_for(lambda: len(failing.calls) > seen)
        assert daemon.call("pause") == {"paused": True}
        held = len(failing.calls)
        wait_for(lambda: "hierarchy" in daemon.call("status")["daemon"]["jobs"])  # the run ended, halted
        assert len(failing.calls) == held
        log = daemon.log.read_text()
        assert "provider.retries_abandoned" in log
        assert daemon.call("status")["daemon"]["errors"] == []  # a halted node is not a failure
    finally:
        daemon.stop()
        daemon.cleanup()


def test_stop_during_a_retry_wait_is_quick_and_clean(tmp_path: Path, failing: FakeLLM) -> None:
    """SIGTERM while the provider's retry waits: exit 0 well within the job grace, `"clean": true`."""
    failing.fail_with = Reply(500, "boom", delay=0.1)
    _summarize_with(tmp_path, failing)
    daemon = with_backlog(tmp_path, 3)
    try:
        seen = len(failing.calls)
        wait_for(lambda: len(failing.calls) > seen + 1)  # the second attempt: the waits are longer now
        logged = daemon.log.read_text().count('"provider.retried"')
        wait_for(lambda: daemon.log.read_text().count('"provider.retried"') > logged)  # it failed; a wait began
        code, seconds = daemon.stop()
        assert code == 0 and seconds < 2.0
        log = daemon.log.read_text()
        assert '"clean": true' in log and "daemon.jobs_abandoned" not in log
    finally:
        daemon.cleanup()


def test_stop_says_unclean_when_a_job_was_abandoned(tmp_path: Path, failing: FakeLLM) -> None:
    """A provider call still in flight after the job grace: the stop line says `"clean": false`."""
    failing.fail_with = Reply(500, "boom", delay=8.0)
    _summarize_with(tmp_path, failing)
    daemon = with_backlog(tmp_path, 3)
    try:
        seen = len(failing.calls)
        wait_for(lambda: len(failing.calls) > seen)
        code, _ = daemon.stop()
        assert code == 0
        log = daemon.log.read_text()
        assert "daemon.jobs_abandoned" in log
        assert '"clean": false' in log and '"clean": true' not in log.split("daemon.jobs_abandoned")[-1]
    finally:
        daemon.cleanup()


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port something else listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


def test_reload_to_a_busy_port_keeps_the_calendar_and_says_so(tmp_path: Path, busy_port: int) -> None:
    """The calendar stays on its old port; reload's reply, its printed lines and status name the busy port."""
    first = _free_port()
    write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {first}\n")
    daemon = Daemon(tmp_path).start()
    try:
        wait_for(lambda: daemon.call("status")["daemon"].get("web"))
        write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {busy_port}\n")
        result = daemon.call("reload")
        said = f"calendar: port {busy_port} is in use on 127.0.0.1; still serving on http://127.0.0.1:{first}/"
        assert result["web_problem"] == said and result["web"] == f"http://127.0.0.1:{first}/"
        assert _serves(first)
        status = daemon.call("status")["daemon"]
        assert status["web"] == f"http://127.0.0.1:{first}/"
        assert status["errors"][-1] == {**status["errors"][-1], "source": "web", "message": said}
        write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {first}\n")
        assert "web_problem" not in daemon.call("reload") and _serves(first)  # back to what is served: no restart
    finally:
        daemon.stop()


def test_reload_prints_the_calendar_problem(capsys: pytest.CaptureFixture[str]) -> None:
    """`tapestryctl reload` prints the calendar's problem line on stderr beside `tapestryd reloaded`."""
    said = "calendar: port 5966 is in use on 127.0.0.1; still serving on http://127.0.0.1:5962/"
    assert render_control("reload", {"config_file": "/h/tapestry.toml", "web_problem": said}) == \
        "tapestryd reloaded /h/tapestry.toml"
    assert capsys.readouterr().err == said + "\n"


def test_a_busy_port_at_start_is_named_clearly(tmp_path: Path, busy_port: int) -> None:
    """Start with the calendar's port taken: log and status say `port N is in use`, not `: 1`."""
    write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {busy_port}\n")
    daemon = Daemon(tmp_path).start()
    try:
        said = f"calendar: port {busy_port} is in use on 127.0.0.1"
        assert daemon.call("status")["daemon"]["errors"][-1]["message"] == said
        assert said in daemon.log.read_text()
    finally:
        daemon.stop()


def test_a_users_mistake_is_not_a_daemon_error(tmp_path: Path) -> None:
    """forget naming no conversation is answered with an error, and status lists no daemon error."""
    write_config(tmp_path, roots=[tmp_path / "projects"])
    daemon = Daemon(tmp_path).start()
    try:
        with pytest.raises(DaemonError):
            daemon.call("forget", {"conversation": "nothing-like-this", "dry_run": True})
        assert daemon.call("status")["daemon"]["errors"] == []
    finally:
        daemon.stop()


def test_the_json_log_holds_no_colour_codes(tmp_path: Path) -> None:
    """The calendar's access log lines reach the JSON log as plain text."""
    port = _free_port()
    write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {port}\n")
    daemon = Daemon(tmp_path).start()
    try:
        wait_for(lambda: daemon.call("status")["daemon"].get("web"))
        assert _serves(port)
        wait_for(lambda: "GET / HTTP/1.1" in daemon.log.read_text())
    finally:
        daemon.stop()
    lines = [json.loads(line) for line in daemon.log.read_text().splitlines() if line.startswith("{")]
    access = [line["event"] for line in lines if "GET / HTTP/1.1" in str(line.get("event"))]
    assert access and not any("\x1b" in event for event in access)
