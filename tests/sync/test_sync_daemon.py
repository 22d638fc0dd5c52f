"""The daemon syncs on its interval, answers `tapestryctl sync`, and captures on while the hub is down."""

from __future__ import annotations

from pathlib import Path

from pgcluster import PgCluster
from sync_helpers import DaemonProcess, make_home, search, session_line, sync_here, wait_until

from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import SyncRequest
from tapestryd.sync.hub import Hub


def _hub_holds(url: str, n: int) -> bool:
    with Hub(url) as hub:
        return hub.head() >= n and len(hub.rows_after(0, 100_000)[1]) >= n


def test_the_daemon_pushes_on_its_interval_and_captures_while_the_hub_is_down(tmp_path: Path, hub_url: str,
                                                                              pg_cluster: PgCluster) -> None:
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    projects = tmp_path / "laptop" / "claude-projects" / "proj"
    projects.mkdir(parents=True)
    session = projects / "live.jsonl"
    session.write_text(session_line("live", "u1", "the first capybara note"))
    daemon = DaemonProcess(laptop)
    try:
        wait_until(lambda: _hub_holds(hub_url, 2))  # the message and its title, pushed by the job
        sync_here(desktop)
        assert search(desktop, "capybara")

        report = run_here(laptop, SyncRequest()).to_json()  # through the daemon: sync_round on its thread
        assert report["machine"] == "laptop" and report["push"]["new"] == 0

        pg_cluster.stop()
        try:
            with session.open("a") as out:
                out.write(session_line("live", "u2", "an outage okapi note", ts="2026-03-04T10:01:00Z"))
            found = wait_until(lambda: daemon.call("search", {"query": "okapi"})["hits"])
            assert found  # captured and searchable with the hub down
            status = wait_until(lambda: (s := daemon.call("status")["sync"]).get("last_error") and s)
            assert status["to_push"] >= 1 and "hub postgresql" in status["last_error"]["message"]
        finally:
            pg_cluster.start()
        wait_until(lambda: daemon.call("status")["sync"].get("to_push") == 0)  # caught up by itself
    finally:
        daemon.stop()
    sync_here(desktop)
    assert search(desktop, "okapi")


def test_a_conversation_forgotten_elsewhere_leaves_this_machines_raw_archive(tmp_path: Path, hub_url: str) -> None:
    from tapestryd.operations.requests import ArchiveListRequest, ForgetRequest

    desktop, key = make_home(tmp_path, "desktop", hub_url)
    laptop, _ = make_home(tmp_path, "laptop", hub_url, key)
    projects = tmp_path / "desktop" / "claude-projects" / "proj"
    projects.mkdir(parents=True)
    (projects / "private.jsonl").write_text(session_line("private", "p1", "the quokka secret"))
    (projects / "public.jsonl").write_text(session_line("public", "q1", "the wombat notes"))
    daemon = DaemonProcess(desktop)  # tails, archives and pushes both sessions
    try:
        archived = wait_until(lambda: {Path(f["path"]).name for f in run_here(desktop, ArchiveListRequest()).to_json()}
                              >= {"private.jsonl", "public.jsonl"}, 60)
        assert archived
        wait_until(lambda: _hub_holds(hub_url, 4), 60)
    finally:
        daemon.stop()
    sync_here(laptop)
    run_here(laptop, ForgetRequest(conversation="claude-code:private"))  # forgotten on the laptop
    sync_here(laptop)
    sync_here(desktop)  # `tapestryctl sync` with no daemon: the pulled Forgotten event reaches the archive too
    assert {Path(f["path"]).name for f in run_here(desktop, ArchiveListRequest()).to_json()} == {"public.jsonl"}
    assert not search(desktop, "quokka") and search(desktop, "wombat")
