"""Project folders named by [privacy] exclude_projects are never read by the tailer."""

from __future__ import annotations

from pathlib import Path

from daemon_helpers import Daemon, session_line, wait_for, write_config

from tapestryd.events.store import EventStore


def test_an_excluded_project_folder_is_never_read(tmp_path: Path) -> None:
    """/srv/secret's sessions stay unread (no offset, no event); /srv/public's are stored."""
    root = tmp_path / "projects"
    for name, text in (("-srv-secret", "the merger with Initech"), ("-srv-public", "the README typo")):
        (root / name).mkdir(parents=True)
        (root / name / f"{name}.jsonl").write_bytes(session_line(name, "u1", text))
    write_config(tmp_path, roots=[root], extra='[privacy]\nexclude_projects = ["/srv/secret"]\n')
    daemon = Daemon(tmp_path).start()
    try:
        wait_for(lambda: daemon.event_count() == 1)
        (root / "-srv-secret" / "later.jsonl").write_bytes(session_line("s2", "u9", "Initech again"))
        with (root / "-srv-public" / "-srv-public.jsonl").open("ab") as fh:
            fh.write(session_line("-srv-public", "u2", "fixed"))
        wait_for(lambda: sorted(m[2] for m in daemon.messages()) == ["fixed", "the README typo"])
        sweeps = {daemon.call("status")["daemon"]["last_sweep"]}  # two more sweeps must not read it either
        wait_for(lambda: sweeps.add(daemon.call("status")["daemon"]["last_sweep"]) or len(sweeps) > 2, interval=0.2)
        daemon.call("catch_up")  # runs on the writer after the tail passes those sweeps queued there
        assert daemon.event_count() == 2
    finally:
        daemon.stop()
    with EventStore(tmp_path / "events.db", readonly=True) as store:
        assert not any("secret" in path for path in store.offsets())
