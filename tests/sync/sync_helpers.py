"""Homes standing for machines, for the sync tests: config, capture, one round, the log as a set."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from waiting import PATIENCE, ReadySignal, wait_for

from tapestryd.config import Settings, load_settings
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import IngestRequest, SearchRequest, SyncInitRequest, SyncRequest
from tapestryd.paths import paths_for

LOG_COLUMNS = "event_id, type, schema, occurred_at, recorded_at, agent, source, payload, origin"


def make_home(root: Path, machine: str, hub_url: str, passphrase: str = "") -> tuple[Settings, str]:
    """A home for ``machine`` syncing with ``hub_url``; its key is new (``passphrase`` empty) or the one
    given. Returns its settings and the passphrase."""
    home = root / machine
    home.mkdir(parents=True)
    (home / "tapestry.toml").write_text(
        f'[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = ["{home / "claude-projects"}"]\n'
        f'[sync]\nmachine = "{machine}"\nurl = "{hub_url}"\ninterval = 1\n'
        '[web]\nenabled = false\n')  # a daemon of a test never races another for the calendar's port
    settings = load_settings(home)
    made = run_here(settings, SyncInitRequest(key=passphrase)).to_json()
    return settings, passphrase or made["passphrase"]


def session_line(session: str, uuid: str, text: str, *, role: str = "user", ts: str = "2026-03-04T10:00:00Z") -> str:
    """One Claude Code session record (a user or assistant message), newline included."""
    record = {"type": role, "uuid": uuid, "sessionId": session, "timestamp": ts, "cwd": "/home/me/proj",
              "message": {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}}
    return json.dumps(record) + "\n"


def write_session(folder: Path, session: str, texts: list[str], day: int = 4) -> Path:
    """A Claude Code session file of ``texts`` (user and assistant in turn), one minute apart."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text("".join(session_line(session, f"{session}-{i}", text, role="user" if i % 2 == 0 else "assistant",
                                         ts=f"2026-03-{day:02d}T10:{i % 60:02d}:00Z")
                            for i, text in enumerate(texts)))
    return path


def capture(settings: Settings, *paths: Path) -> dict[str, Any]:
    """Import files into the home (as the tailer or ``ingest`` would); the receipt."""
    return dict(run_here(settings, IngestRequest(paths=tuple(str(p) for p in paths))).to_json())


def sync_here(settings: Settings, *, from_start: bool = False, batch: int = 2000) -> dict[str, Any]:
    """One sync round in this process (no daemon); its report."""
    return dict(run_here(settings, SyncRequest(from_start=from_start, batch=batch)).to_json())


def sync_round(home: str, batch: int, log: str) -> None:
    """One sync round of ``home`` with ``batch`` events per transaction, as the body of a child
    process; its output (log lines, a traceback) appended to ``log``. A failure exits non-zero."""
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(out, 1)
    os.dup2(out, 2)
    sync_here(load_settings(home), batch=batch)


def log_rows(settings: Settings) -> set[tuple[Any, ...]]:
    """Every event of the home's log with its whole envelope but ``seq`` (which each log gives itself)."""
    conn = sqlite3.connect(paths_for(settings).events_db)
    try:
        return set(conn.execute(f"SELECT {LOG_COLUMNS} FROM events"))
    finally:
        conn.close()


def event_ids(settings: Settings) -> list[str]:
    """The event ids of the log in seq order (a repeat would show twice)."""
    conn = sqlite3.connect(paths_for(settings).events_db)
    try:
        return [row[0] for row in conn.execute("SELECT event_id FROM events ORDER BY seq")]
    finally:
        conn.close()


def search(settings: Settings, query: str) -> list[tuple[Any, ...]]:
    """The hits of a search as (conversation, role, timestamp, snippet) in rank order."""
    found = run_here(settings, SearchRequest(query=query, limit=50)).to_json()
    return [(h.get("conversation"), h.get("role"), h.get("ts") or h.get("timestamp"), h.get("snippet"))
            for h in found["hits"]]


class DaemonProcess:
    """``tapestryd`` of one home as a child process (stderr to ``<home>/daemon.log``)."""

    def __init__(self, settings: Settings) -> None:
        import subprocess
        import sys

        self.settings = settings
        self.socket = paths_for(settings).socket
        assert settings.home is not None
        log_path = settings.home / "daemon.log"
        self.notify = ReadySignal()
        with log_path.open("ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tapestryd.daemon.main", "--log-format", "json"],
                                         env={**os.environ, "TAPESTRY_HOME": str(settings.home), **self.notify.env},
                                         stdout=subprocess.DEVNULL, stderr=log)
        self.notify.wait(self.proc, lambda: log_path.read_text()[-3000:])  # its READY=1

    def call(self, op: str, args: dict[str, Any] | None = None, timeout: float = PATIENCE) -> Any:
        """One request through the socket."""
        from tapestryd.wire.client import request

        return request(self.socket, op, args or {}, timeout=timeout)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it lingers; the socket is removed."""
        import signal
        import subprocess

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(PATIENCE)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(PATIENCE)
        self.notify.close()
        self.socket.unlink(missing_ok=True)


def wait_until(predicate: Any, timeout: float = PATIENCE) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` s."""
    return wait_for(predicate, timeout, interval=0.1)
