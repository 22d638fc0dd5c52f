"""The core commands as a user runs them: a real process, a real home, real databases."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from tapestryd.config import load_settings
from tapestryd.events import (
    ConversationTitled,
    MessageRecorded,
    NewEvent,
    event_id,
    format_utc,
)
from tapestryd.operations.runtime import Runtime

T0 = datetime(2026, 3, 4, 9, 30, tzinfo=timezone.utc)


def ctl(*args: str, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run tapestryctl in its own process against ``home``."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "tapestryd.cli", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=60)


def seed(home: Path) -> None:
    """Two conversations written straight into the log, then projected."""
    with Runtime.open(load_settings(home)) as rt:
        events = [
            NewEvent(event_id("a", "1"), MessageRecorded("chatgpt:c1", "m1", "user", "How do I braid a rope?",
                                                         format_utc(T0)), T0, "chatgpt", "f#1"),
            NewEvent(event_id("a", "2"), MessageRecorded("chatgpt:c1", "m2", "assistant", "Take three strands.",
                                                         format_utc(T0)), T0, "chatgpt", "f#2"),
            NewEvent(event_id("a", "3"), ConversationTitled("chatgpt:c1", "Rope braiding"), T0, "chatgpt", "f"),
            NewEvent(event_id("a", "4"), MessageRecorded("claude-ai:c2", "m1", "user", "Plan the garden beds",
                                                         format_utc(T0)), T0, "claude-ai", "g#1"),
        ]
        rt.store.append(events)
        rt.projector.catch_up()


def test_init_writes_a_commented_config_and_prints_paths(tmp_path: Path) -> None:
    """init creates the home, a commented tapestry.toml with the system zone, and lists paths."""
    result = ctl("init", home=tmp_path / "h")
    assert result.returncode == 0, result.stderr
    config = (tmp_path / "h" / "tapestry.toml").read_text()
    assert "# " in config and 'timezone = "' in config and 'timezone = ""' not in config
    assert "events_db" in result.stdout and (tmp_path / "h" / "inbox").is_dir()
    assert load_settings(tmp_path / "h").first_day_of_week == 0


def test_search_conversations_show_and_stats(tmp_path: Path) -> None:
    """The read commands find and print what the log holds."""
    seed(tmp_path)
    hits = json.loads(ctl("search", "braid", "-f", "json", home=tmp_path).stdout)
    assert [h["message_key"] for h in hits if not h["extra"]] == ["m1"] and "[braid]" in hits[0]["snippet"]
    assert all(h["extra"] == {"next_to_match": True} for h in hits[1:])
    assert "Rope braiding" in ctl("conversations", home=tmp_path).stdout
    shown = ctl("show", "c1", home=tmp_path).stdout
    assert shown.index("How do I braid") < shown.index("Take three strands")
    stats = json.loads(ctl("stats", "-f", "json", home=tmp_path).stdout)
    assert stats["messages"] == 3 and stats["conversations"] == 2


def test_export_log_writes_one_event_per_line(tmp_path: Path) -> None:
    """export-log is JSONL in seq order; --since skips what came before."""
    seed(tmp_path)
    lines = [json.loads(x) for x in ctl("export-log", home=tmp_path).stdout.splitlines()]
    assert [e["seq"] for e in lines] == [1, 2, 3, 4] and lines[2]["type"] == "ConversationTitled"
    since = ctl("export-log", "--since", "2", home=tmp_path).stdout.splitlines()
    assert [json.loads(x)["seq"] for x in since] == [3, 4]


def test_rebuild_replays_the_log(tmp_path: Path) -> None:
    """Deleting projections.db loses nothing: rebuild restores every message."""
    seed(tmp_path)
    (tmp_path / "projections.db").unlink()
    result = ctl("rebuild", home=tmp_path)
    assert result.returncode == 0 and "replayed 4 events" in result.stdout
    assert json.loads(ctl("stats", "-f", "json", home=tmp_path).stdout)["messages"] == 3


def test_user_mistakes_are_one_line_errors(tmp_path: Path) -> None:
    """No traceback for an unknown conversation, an empty home or a missing path."""
    empty = ctl("search", "x", home=tmp_path / "empty")
    assert empty.returncode == 1 and "ingest" in empty.stderr and "Traceback" not in empty.stderr
    seed(tmp_path)
    missing = ctl("show", "nope", home=tmp_path)
    assert missing.returncode == 1 and "no conversation matches" in missing.stderr
    gone = ctl("ingest", str(tmp_path / "nothing.json"), home=tmp_path)
    assert gone.returncode == 1 and "no such file" in gone.stderr and "Traceback" not in gone.stderr


def test_export_log_redacted_filters_a_streamed_reply_as_one_message(tmp_path: Path) -> None:
    """A private span and a secret's label/key pair cut across two records sharing message.id: --redacted
    hides both as the joined message hides them; plain export-log still prints them verbatim."""
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # the AWS documentation's example secret access key
    texts = ["Deploy with aws secret key: <private>the vault phrase is", f"zanzibarquux</private> {key} then run make."]
    session = tmp_path / "0a1b2c3d-0000-4000-8000-0000000000e1.jsonl"
    session.write_text("".join(json.dumps({
        "parentUuid": None, "isSidechain": False, "cwd": "/home/sam/proj", "sessionId": session.stem,
        "type": "assistant", "uuid": f"a{i}", "timestamp": f"2026-03-04T09:30:0{i}.000Z",
        "message": {"id": "msg_S", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": text}]}}) + "\n" for i, text in enumerate(texts)))
    home = tmp_path / "h"
    ingested = ctl("ingest", str(session), home=home)
    assert ingested.returncode == 0, ingested.stderr
    raw = [json.loads(x)["payload"] for x in ctl("export-log", home=home).stdout.splitlines()]
    assert [p["text"] for p in raw if "text" in p] == texts
    redacted = ctl("export-log", "--redacted", home=home)
    assert redacted.returncode == 0, redacted.stderr
    parts = [p["text"] for p in (json.loads(x)["payload"] for x in redacted.stdout.splitlines()) if "text" in p]
    assert len(parts) == 2 and "Deploy with aws secret key:" in parts[0] and "then run make." in parts[1]
    assert "[secret:aws-secret-key]" in redacted.stdout
    assert all(word not in redacted.stdout for word in ("zanzibarquux", "vault phrase", key))
