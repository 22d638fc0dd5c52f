"""`tapestryctl search --no-subagents`: what subagents said is searchable, and can be left out."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import tapestryctl as run_cli

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "agents" / "claude-subagents"
SUBAGENT = {"s-u1", "msg_s1"}  # the subagent file's messages that mention "integral"


def tapestryctl(home: Path, *args: str) -> str:
    """Run the real CLI (its fast path included) with the test home, in this process (tests/cli_runner.py);
    its stdout, after checking it exited 0."""
    done = run_cli(*args, env={"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin"})
    done.check_returncode()
    return done.stdout


def test_search_leaves_subagent_messages_out_on_request(home: Path) -> None:
    """A subagent's reply is found by default and not with --no-subagents; the parent's reply is found both ways."""
    tapestryctl(home, "ingest", str(FIXTURE))
    every = {h["message_key"] for h in json.loads(tapestryctl(home, "search", "integral", "-f", "json"))}
    kept = {h["message_key"]
            for h in json.loads(tapestryctl(home, "search", "integral", "--no-subagents", "-f", "json"))}
    assert SUBAGENT <= every and "msg_m2" in every
    assert not kept & SUBAGENT and "msg_m2" in kept
