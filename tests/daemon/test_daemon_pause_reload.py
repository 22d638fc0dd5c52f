"""Tester report 3: pause halts summarizing and resume restarts it; reload refuses an unknown
provider (and so does start); reload moves the calendar to a new port; SIGTERM during a
summarizing backlog ends the summarizer child and exits cleanly, leaking no semaphore."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from daemon_helpers import Daemon, wait_for, write_config
from fake_llm import FakeLLM
from tapestryd.config import SummarizeSettings
from tapestryd.errors import ConfigError, DaemonError
from tapestryd.operations.results import ReloadResult
from tapestryd.summarize import make_summarizer


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    """A fake LLM answering every call after 0.2 s."""
    fake = FakeLLM(slow_from=1, slow_delay=0.2).start()
    yield fake
    fake.stop()


def export(path: Path, conversations: int, *, words: int = 12) -> Path:
    """A ChatGPT conversations.json: one two-message conversation per day from 2025-01-01 (UTC)."""
    text = " ".join(f"sourdough step {w} keeps the crumb open." for w in range(words))
    items = []
    for c in range(conversations):
        at = 1_735_725_600 + c * 86_400
        mapping = {"u": {"id": "u", "parent": None, "children": ["a"], "message": {
                       "id": f"u{c}", "author": {"role": "user"}, "create_time": at,
                       "content": {"content_type": "text", "parts": [f"Question {c}: {text}"]}}},
                   "a": {"id": "a", "parent": "u", "children": [], "message": {
                       "id": f"a{c}", "author": {"role": "assistant"}, "create_time": at + 60,
                       "content": {"content_type": "text", "parts": [f"Answer {c}: {text}"]}}}}
        items.append({"id": f"conv{c}", "title": f"Bread {c}", "create_time": at, "current_node": "a",
                      "mapping": mapping})
    path.write_text(json.dumps(items))
    return path


def stopped_cleanly(daemon: Daemon, tracker: list[int]) -> str:
    """The daemon's log once the resource trackers in ``tracker`` (which report leaks at exit) are gone."""
    for pid in tracker:
        wait_for(lambda: not alive(pid))
    log = daemon.log.read_text()
    assert '"clean": true' in log and "Traceback" not in log
    assert "leaked" not in log
    return log


def with_backlog(tmp_path: Path, conversations: int) -> Daemon:
    """A daemon that starts with a backlog to summarize: a first one imports an export and stops.

    Its log (appended to by both) tells whether the import, follower child included, leaked.
    """
    first = Daemon(tmp_path).start()
    assert first.proc is not None
    try:
        first.call("ingest", {"paths": [str(export(tmp_path / "export.json", conversations))]}, timeout=120)
        tracker = list(children(first.proc.pid))
        code, _ = first.stop()
    finally:
        first.cleanup()
    assert code == 0
    for pid in tracker:
        wait_for(lambda: not alive(pid))
    return Daemon(tmp_path).start()


def children(pid: int) -> dict[int, str]:
    """The child processes of ``pid`` (every thread's) with their command lines."""
    found: dict[int, str] = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                listed = fh.read().split()
        except FileNotFoundError:  # the thread ended meanwhile
            continue
        for child in listed:
            try:
                found[int(child)] = Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace")
            except FileNotFoundError:
                continue
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_pause_halts_summarizing_and_resume_restarts_it(tmp_path: Path, llm: FakeLLM) -> None:
    """While paused no provider call starts (beyond the one in flight); resume summarizes again at once."""
    write_config(tmp_path, roots=[tmp_path / "projects"],
                 extra=f'[summarize]\nprovider = "openai"\nbase_url = "{llm.url}"\nmodel = "m"\n')
    daemon = with_backlog(tmp_path, 12)
    try:
        wait_for(lambda: len(llm.calls) >= 3)
        assert daemon.call("pause") == {"paused": True}
        wait_for(lambda: "hierarchy" in daemon.call("status")["daemon"]["jobs"])  # ended after the node in hand
        held = len(llm.calls)
        assert daemon.call("status")["daemon"]["paused"] is True
        daemon.call("resume")
        wait_for(lambda: len(llm.calls) > held)
    finally:
        daemon.stop()


def test_the_pause_message_says_what_changed_meanwhile() -> None:
    """`tapestryctl pause` tells the user resume catches up with what changed while paused."""
    from tapestryd.cli.fast import render_control

    assert render_control("pause", {"paused": True}) == \
        "tapestryd paused; `tapestryctl resume` catches up with what changed meanwhile"


def _provider_error(provider: str) -> str:
    with pytest.raises(ConfigError) as caught:
        make_summarizer(SummarizeSettings(provider=provider))
    return caught.value.message


def test_reload_refuses_an_unknown_provider_and_keeps_the_old_settings(tmp_path: Path) -> None:
    """provider = "gpt" is refused with iterate's one-line error; the daemon keeps its working settings."""
    write_config(tmp_path, roots=[tmp_path / "projects"])
    daemon = Daemon(tmp_path).start()
    try:
        write_config(tmp_path, roots=[tmp_path / "projects"], sweep=7, extra='[summarize]\nprovider = "gpt"\n')
        with pytest.raises(DaemonError) as refused:
            daemon.call("reload")
        assert refused.value.message == _provider_error("gpt")
        status = daemon.call("status")["daemon"]
        assert status["errors"][-1]["source"] == "reload"
        assert status["scheduled"]["sweep"]  # the jobs of the old settings still run
        write_config(tmp_path, roots=[tmp_path / "projects"])
        assert daemon.call("reload")["reloaded"] is True
    finally:
        daemon.stop()


def test_start_refuses_an_unknown_provider_with_one_line(tmp_path: Path) -> None:
    """tapestryd exits 2 (invalid configuration) with the same line `iterate` prints."""
    write_config(tmp_path, roots=[tmp_path / "projects"], extra='[summarize]\nprovider = "gpt"\n')
    done = subprocess.run([sys.executable, "-m", "tapestryd.daemon.main"], capture_output=True, text=True,
                          env={**os.environ, "TAPESTRY_HOME": str(tmp_path)}, timeout=30)
    assert done.returncode == 2
    assert done.stderr.strip() == f"tapestryd: {_provider_error('gpt')}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serves(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
            return page.status == 200
    except OSError:
        return False


def test_reload_moves_the_calendar_to_a_new_port(tmp_path: Path) -> None:
    """A changed [web] port is applied by reload: the calendar answers on the new port only."""
    first, second = _free_port(), _free_port()
    write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {first}\n")
    daemon = Daemon(tmp_path).start()
    try:
        wait_for(lambda: daemon.call("status")["daemon"].get("web"))
        assert _serves(first)
        write_config(tmp_path, roots=[tmp_path / "projects"], extra=f"[web]\nport = {second}\n")
        result = daemon.call("reload")
        assert result["restart_needed"] == [] and result["web"] == f"http://127.0.0.1:{second}/"
        assert list(result) == ["reloaded", "config_file", "restart_needed", "warnings", "web"]  # the daemon's order
        typed = ReloadResult.from_json(result)
        assert json.dumps(typed.to_json()) == json.dumps(result) and typed.web_problem is None
        assert _serves(second) and not _serves(first)
        assert daemon.call("status")["daemon"]["web"] == f"http://127.0.0.1:{second}/"
    finally:
        daemon.stop()


def test_sigterm_while_summarizing_ends_the_child_and_exits_cleanly(tmp_path: Path) -> None:
    """SIGTERM mid-backlog: exit 0 within 5 s, a clean stop, no summarizer child left, no leaked semaphore."""
    write_config(tmp_path, roots=[tmp_path / "projects"])
    daemon = with_backlog(tmp_path, 400)
    assert daemon.proc is not None
    pid = daemon.proc.pid
    try:
        procs = wait_for(lambda: (c := children(pid)) and any("spawn_main" in line for line in c.values()) and c,
                         interval=0.02)
        code, seconds = daemon.stop(signal.SIGTERM)
    finally:
        daemon.cleanup()
    assert code == 0 and seconds < 5
    stopped_cleanly(daemon, list(procs))  # the summarizer's worker and the resource tracker are gone
    assert daemon.log.read_text().count('"daemon.stopped"') == 2
