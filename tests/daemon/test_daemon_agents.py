"""Codex CLI rollouts, Gemini CLI chats and OpenCode databases captured live, exactly once across SIGKILLs."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from agent_sources import (
    codex_message,
    codex_meta,
    configure,
    gemini_header,
    gemini_record,
    opencode_db,
    opencode_message,
)
from daemon_helpers import Daemon, wait_for

from tapestryd.paths import paths_for


@pytest.fixture
def agents_daemon(home: Path) -> Iterator[tuple[Daemon, Path, Path, Path]]:
    """A daemon (not started) of a home watching a Codex root, a Gemini root and an OpenCode database."""
    codex, gemini, db = configure(home)
    opencode_db(db)
    handle = Daemon(home)
    yield handle, codex, gemini, db
    handle.cleanup()


def found(daemon: Daemon, word: str) -> list[str]:
    """Agents of the projected messages whose text the full-text index finds for ``word``."""
    conn = sqlite3.connect(f"file:{paths_for(daemon.settings).projections_db}?mode=ro", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT m.agent FROM messages_fts f JOIN messages m ON m.id = f.rowid"
                                           " WHERE messages_fts MATCH ?", (word,))]
    except sqlite3.OperationalError:  # the projections are not created yet
        return []
    finally:
        conn.close()


def test_each_growing_format_is_searchable_soon_after_an_append(agents_daemon: tuple[Daemon, Path, Path, Path]) -> None:
    """An appended rollout line, chat record or database row is found by search, under its agent."""
    daemon, codex, gemini, db = agents_daemon
    rollout = codex / "2026" / "03" / "04" / "rollout-2026-03-04T10-00-00-live.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_bytes(codex_meta("live-codex"))
    chat = gemini / "a1b2" / "chats" / "session-2026-03-04T10-00-live.jsonl"
    chat.write_bytes(gemini_header("live-gemini"))
    daemon.start()
    with rollout.open("ab") as fh:
        fh.write(codex_message("the codex turn mentions quokkacodex"))
    with chat.open("ab") as fh:
        fh.write(gemini_record("r1", "the gemini turn mentions quokkagemini"))
    conn = sqlite3.connect(db)
    opencode_message(conn, 1, "the opencode turn mentions quokkaopencode")
    conn.close()
    assert wait_for(lambda: found(daemon, "quokkacodex")) == ["codex"]
    assert wait_for(lambda: found(daemon, "quokkagemini")) == ["gemini-cli"]
    assert wait_for(lambda: found(daemon, "quokkaopencode")) == ["opencode"]
    sources = daemon.call("status")["sources"]
    assert sources["codex (codex)"].startswith("1 file, 1 message, last capture 20")
    assert sources["gemini (gemini-cli)"].startswith("1 file, 1 message")
    assert sources["opencode (opencode)"].startswith("1 file, 1 message")


def test_a_gemini_record_edited_while_tailed_stays_one_message(agents_daemon: tuple[Daemon, Path, Path, Path]) -> None:
    """The record appended again with new text replaces the first version in search."""
    daemon, _, gemini, _ = agents_daemon
    chat = gemini / "a1b2" / "chats" / "session-2026-03-04T10-00-edit.jsonl"
    chat.write_bytes(gemini_header("edit") + gemini_record("g1", "first draft wombatone", kind="gemini"))
    daemon.start()
    wait_for(lambda: found(daemon, "wombatone"))
    with chat.open("ab") as fh:
        fh.write(gemini_record("g1", "second draft wombattwo", kind="gemini"))
    wait_for(lambda: found(daemon, "wombattwo"))
    assert found(daemon, "wombatone") == [] and len(daemon.messages()) == 1


def write_growing(codex: Path, gemini: Path, db: Path, seconds: float, seed: int) -> list[str]:
    """Append to a rollout and a chat, insert database rows, for about ``seconds``; the texts written."""
    rng = random.Random(seed)
    rollout = codex / "rollout-2026-03-04T10-00-00-crash.jsonl"
    chat = gemini / "a1b2" / "chats" / "session-2026-03-04T10-00-crash.jsonl"
    rollout.write_bytes(codex_meta("crash-codex"))
    chat.write_bytes(gemini_header("crash-gemini"))
    written: list[str] = []
    conn = sqlite3.connect(db)
    steps = 150
    try:
        with rollout.open("ab", buffering=0) as cx, chat.open("ab", buffering=0) as gm:
            for i in range(steps):
                for fh, line, text in ((cx, codex_message(f"codex line {i}", minute=i), f"codex line {i}"),
                                       (gm, gemini_record(f"r{i}", f"gemini line {i}"), f"gemini line {i}")):
                    cut = rng.randrange(1, len(line) - 1) if rng.random() < 0.3 else len(line)
                    fh.write(line[:cut])
                    time.sleep(seconds / steps / 4)
                    fh.write(line[cut:])
                    written.append(text)
                opencode_message(conn, i, f"opencode line {i}")
                written.append(f"opencode line {i}")
                time.sleep(seconds / steps / 2 * rng.random())
    finally:
        conn.close()
    return written


def test_sigkill_while_agents_write_loses_and_repeats_nothing(agents_daemon: tuple[Daemon, Path, Path, Path]) -> None:
    """Kill -9 the daemon five times while the three formats grow: every message stored exactly once."""
    daemon, codex, gemini, db = agents_daemon
    rng = random.Random(20261201)
    written: list[str] = []
    writer = threading.Thread(target=lambda: written.extend(write_growing(codex, gemini, db, 5.0, seed=3)))
    daemon.start()
    writer.start()
    for _ in range(5):
        time.sleep(rng.uniform(0.1, 0.6))
        daemon.stop(signal.SIGKILL)
        daemon.start()
    writer.join()
    wait_for(lambda: len(daemon.messages()) >= len(written))
    stored = [text for _, _, text in daemon.messages()]
    assert len(written) == 450 and sorted(stored) == sorted(written)
    assert len(stored) == daemon.event_count()
    tracebacks = daemon.log.read_text().split("Traceback (most recent call last):")[1:]
    # a projector child still starting when its parent is killed may die in multiprocessing's spawn_main
    assert all("spawn_main" in trace.split("\n", 3)[2] for trace in tracebacks), tracebacks


def test_an_older_gemini_json_chat_rewritten_whole_is_captured(agents_daemon: tuple[Daemon, Path, Path, Path]) -> None:
    """chats/session-*.json is read whole at each rewrite; turns already stored are not stored again."""
    daemon, _, gemini, _ = agents_daemon
    chat = gemini / "a1b2" / "chats" / "session-2025-11-20T19-00-old.json"
    turns = [{"id": "a", "timestamp": "2025-11-20T19:00:05.000Z", "type": "user", "content": "first kakapoone"}]
    header = {"sessionId": "old", "projectHash": "a1b2", "startTime": "2025-11-20T19:00:00.000Z"}
    chat.write_text(json.dumps({**header, "messages": turns}, indent=2))
    daemon.start()
    wait_for(lambda: found(daemon, "kakapoone"))
    turns.append({"id": "b", "timestamp": "2025-11-20T19:00:09.000Z", "type": "gemini", "content": "then kakapotwo"})
    chat.write_text(json.dumps({**header, "messages": turns}, indent=2))
    assert wait_for(lambda: found(daemon, "kakapotwo")) == ["gemini-cli"]
    assert len(daemon.messages()) == 2 == daemon.event_count()
