"""A restarted tapestryd loads the warm index its last fit saved instead of fitting it again, and
what is forgotten meanwhile never comes back through ``similar``, before or after a restart."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from daemon_helpers import Daemon, session_line
from waiting import wait_for

from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import IngestRequest
from tapestryd.paths import paths_for
from tapestryd.projections.warmfile import Saved, index_file, read


def logged(daemon: Daemon, since: int) -> list[str]:
    """The events of the daemon's JSON log lines after byte ``since``."""
    with daemon.log.open("rb") as fh:
        fh.seek(since)
        return [json.loads(line)["event"] for line in fh if line.startswith(b"{")]


def similar(daemon: Daemon, query: str) -> dict[str, Any]:
    """``similar``'s answer once the warm index answers it."""
    answer: dict[str, Any] = wait_for(lambda: (found := daemon.call("similar", {"query": query}))["index"]["warm"]
                                      and found, interval=0.1)
    return answer


def saved_with(path: Path, documents: int) -> Saved | None:
    """The saved index when it holds ``documents`` documents."""
    found = read(path)
    return found if isinstance(found, Saved) and found.fitted.size == documents else None


def test_a_restart_loads_the_saved_index_and_forgotten_messages_stay_out(daemon: Daemon, projects: Path,
                                                                          tmp_path: Path) -> None:
    today = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")  # no past day to close and summarize
    folder = tmp_path / "export" / "-home-me-proj"  # imported before the start: the first fit reads all four
    folder.mkdir(parents=True)
    (folder / "lamp.jsonl").write_bytes(session_line("lamp", "u1", "where is the brass lantern", ts=today)
                                        + session_line("lamp", "u2", "the brass lantern hangs in the shed",
                                                       role="assistant", ts=today))
    (folder / "bread.jsonl").write_bytes(session_line("bread", "u3", "a recipe for braided bread with sesame",
                                                      ts=today)
                                         + session_line("bread", "u4", "braided bread needs a long proof",
                                                        role="assistant", ts=today))
    run_here(daemon.settings, IngestRequest(paths=(str(folder),)))
    saved = index_file(paths_for(daemon.settings).projections_db)
    daemon.start()
    wait_for(lambda: saved_with(saved, 4))
    fitted = similar(daemon, "brass lantern shed")
    bread = similar(daemon, "braided bread sesame")
    assert fitted["index"]["origin"] == "fitted" and fitted["index"]["fitted"] == 4
    assert len(bread["hits"]) == 2
    daemon.stop()

    since = daemon.log.stat().st_size
    daemon.start()
    loaded = similar(daemon, "brass lantern shed")
    assert loaded["index"]["origin"] == "loaded" and loaded["index"]["fitted"] == 4
    assert loaded["hits"] == fitted["hits"]
    assert "similarity.loaded" in logged(daemon, since) and "similarity.fitted" not in logged(daemon, since)

    conversation = bread["hits"][0]["conversation"]
    daemon.call("forget", {"conversation": conversation})
    # the file that held the bread is removed as the forget is applied; the refit writes one without it
    wait_for(lambda: saved_with(saved, 2))
    terms = read(saved).terms  # type: ignore[union-attr]
    assert "braid" not in terms and "lantern" in terms
    assert similar(daemon, "braided bread sesame")["hits"] == []
    daemon.stop()

    since = daemon.log.stat().st_size
    daemon.start()
    after = similar(daemon, "braided bread sesame")
    assert after["index"]["origin"] == "loaded" and after["hits"] == []
    assert "similarity.fitted" not in logged(daemon, since)
    daemon.stop()
