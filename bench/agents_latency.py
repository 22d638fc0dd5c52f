"""Benchmark: from an append to a Codex rollout, a Gemini CLI chat or an OpenCode database until search finds it.

Run: python bench/agents_latency.py [--appends 60]
Starts tapestryd (``python -m tapestryd.daemon.main``, this checkout) on a scratch home that
watches a Codex root, a Gemini root and an OpenCode database, then for each format in turn
appends one message at a time and asks the daemon's ``search`` operation through the socket
until the hit appears. Prints median and p95 per format (target p95 < 1 s with native
events) and writes bench/out/agents_latency.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from daemon_common import summary, wait_for, write_json

from tapestryd.config import load_settings
from tapestryd.wire.client import request
from tapestryd.errors import DaemonError
from tapestryd.paths import paths_for

REPO = Path(__file__).resolve().parents[1]
OPENCODE_SCHEMA = """
CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT, time_created INTEGER,
  time_updated INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER,
  time_updated INTEGER, data TEXT);
INSERT INTO session VALUES ('ses_b', NULL, '/bench', 'bench', 0, 0);
"""


def scratch() -> tuple[Path, Path, Path, Path]:
    """A home watching a Codex root, a Gemini root and an OpenCode database: ``(home, rollout, chat, db)``."""
    home = Path(tempfile.mkdtemp(prefix="tapestry-bench-agents-"))
    codex, gemini, db = home / "codex", home / "gemini", home / "opencode" / "opencode.db"
    for folder in (codex, gemini / "h" / "chats", db.parent):
        folder.mkdir(parents=True)
    (home / "tapestry.toml").write_text(
        f'[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\ncodex_roots = ["{codex}"]\n'
        f'gemini_roots = ["{gemini}"]\nopencode_dbs = ["{db}"]\nsweep_interval = 60\n[web]\nenabled = false\n')
    rollout = codex / "rollout-2026-03-04T10-00-00-bench.jsonl"
    rollout.write_text(json.dumps({"timestamp": _now(), "type": "session_meta", "payload": {"id": "bench"}}) + "\n")
    chat = gemini / "h" / "chats" / "session-2026-03-04T10-00-bench.jsonl"
    chat.write_text(json.dumps({"sessionId": "bench", "projectHash": "h", "startTime": _now()}) + "\n")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.executescript(OPENCODE_SCHEMA)
    conn.close()
    return home, rollout, chat, db


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


def append_codex(rollout: Path, n: int, text: str) -> None:
    """One user turn appended to the rollout."""
    line = {"timestamp": _now(), "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}}
    with rollout.open("a") as fh:
        fh.write(json.dumps(line) + "\n")


def append_gemini(chat: Path, n: int, text: str) -> None:
    """One user record appended to the chat."""
    with chat.open("a") as fh:
        fh.write(json.dumps({"id": f"r{n}", "timestamp": _now(), "type": "user", "content": text}) + "\n")


def insert_opencode(db: Path, n: int, text: str) -> None:
    """One user message with its text part committed to the database."""
    at = int(time.time() * 1000)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("INSERT INTO message VALUES (?, 'ses_b', ?, ?, ?)",
                     (f"msg_{n:06d}", at, at, json.dumps({"role": "user", "time": {"created": at}})))
        conn.execute("INSERT INTO part VALUES (?, ?, 'ses_b', ?, ?, ?)",
                     (f"prt_{n:06d}", f"msg_{n:06d}", at, at, json.dumps({"type": "text", "text": text})))
    conn.close()


def measure(socket: Path, write: Callable[[int, str], None], label: str, appends: int) -> list[float]:
    """Seconds from each write until the daemon's search finds its token."""
    latencies = []
    for n in range(appends):
        token = f"numbat{label}{n}zz"
        started = time.perf_counter()
        write(n, f"{label} message {n} mentions {token}")
        wait_for(lambda: request(socket, "search", {"query": token, "level": "messages"}, timeout=10)["hits"], 20,
                 interval=0.01)
        latencies.append(time.perf_counter() - started)
    return latencies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=60)
    args = parser.parse_args()
    home, rollout, chat, db = scratch()
    env = {**os.environ, "TAPESTRY_HOME": str(home), "PYTHONPATH": str(REPO)}
    with (home / "daemon.log").open("ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"], env=env,
                                stdout=subprocess.DEVNULL, stderr=log)
    socket = paths_for(load_settings(home)).socket
    result: dict[str, Any] = {}
    try:
        wait_for(lambda: _ready(socket, proc), 60)
        for label, write in (("codex", lambda n, t: append_codex(rollout, n, t)),
                             ("gemini", lambda n, t: append_gemini(chat, n, t)),
                             ("opencode", lambda n, t: insert_opencode(db, n, t))):
            result[label] = summary(measure(socket, write, label, args.appends))
            print(f"{label}: append → searchable ({args.appends} appends): median {result[label]['median_ms']} ms, "
                  f"p95 {result[label]['p95_ms']} ms, max {result[label]['max_ms']} ms")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        shutil.rmtree(home, ignore_errors=True)
    print(f"wrote {write_json('agents_latency', result)}")
    return 0


def _ready(socket: Path, proc: subprocess.Popen[bytes]) -> bool:
    if proc.poll() is not None:
        raise SystemExit(f"tapestryd exited with {proc.returncode}")
    try:
        return bool(request(socket, "ping", timeout=2))
    except DaemonError:
        return False


if __name__ == "__main__":
    raise SystemExit(main())
