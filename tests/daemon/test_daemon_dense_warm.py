"""With embeddings in use, tapestryd loads the model and the stored vectors as it starts (logged as
``dense.warmed``), and searches through the socket rank by meaning too, without loading them again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from daemon_helpers import Daemon, session_line
from waiting import wait_for

pytest.importorskip("tokenizers")
pytest.importorskip("safetensors")

from tiny_bert import tiny_bert  # noqa: E402


def warmed(daemon: Daemon) -> list[dict[str, object]]:
    """The ``dense.warmed`` records of the daemon's JSON log."""
    lines = [json.loads(line) for line in daemon.log.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == "dense.warmed"]


def test_a_restarted_daemon_warms_the_vectors_before_the_first_search(daemon: Daemon, projects: Path,
                                                                      tmp_path: Path) -> None:
    """The first start encodes what it tails; the second loads those vectors at start, and search
    answers through the socket with them."""
    model = {"TAPESTRY_EMBEDDINGS": str(tiny_bert(tmp_path))}
    session = projects / "-home-me-proj" / "s1.jsonl"
    session.parent.mkdir()
    session.write_bytes(session_line("s1", "u1", "the cat sat on the mat") + session_line("s1", "u2", "a dog ran far"))
    daemon.start(env=model)
    wait_for(lambda: len(daemon.messages()) == 2)
    daemon.stop()
    daemon.start(env=model)
    wait_for(lambda: warmed(daemon))
    assert warmed(daemon)[0]["rows"] == 2
    hits = daemon.call("search", {"query": "cat"})["hits"]
    assert hits[0]["message_key"] == "u1"
    assert len(warmed(daemon)) == 1
