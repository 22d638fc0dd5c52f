"""The raw archive in the running daemon: live appends, status, and SIGKILL in the middle of a capture."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from agent_sources import codex_message, codex_meta, configure, gemini_header, gemini_record
from cli_runner import tapestryctl
from daemon_helpers import Daemon, session_line, wait_for
from tapestryd.config import load_settings
from tapestryd.paths import paths_for
from tapestryd.sources.archive import Archive, ArchiveStore

REPO = Path(__file__).resolve().parents[2]


def archived(home: Path, path: Path) -> tuple[int, bytes]:
    """``(source bytes read, kept bytes)`` of the newest version of ``path`` ((0, b"") before any)."""
    db = paths_for(load_settings(home)).archive_db
    if not db.exists():
        return 0, b""
    with ArchiveStore(db, readonly=True) as store:
        if not store.ready() or (file := store.latest(str(path))) is None:
            return 0, b""
        return file.consumed, b"".join(store.read(file.id))


def caught_up(home: Path, path: Path) -> bool:
    return archived(home, path)[0] == path.stat().st_size


def test_live_appends_are_archived_and_extract_gives_the_exact_file(daemon: Daemon, home: Path,
                                                                   projects: Path, tmp_path: Path) -> None:
    """The watchdog-driven tailer archives each append; `archive extract` equals the source; status shows sizes."""
    folder = projects / "-home-me-live"
    folder.mkdir()
    session = folder / "live.jsonl"
    session.write_bytes(session_line("live", "u0", "the first heron"))
    daemon.start()
    for n in range(1, 5):
        with session.open("ab") as fh:
            fh.write(b"".join(session_line("live", f"u{n}-{i}", f"append {n} line {i} " + "wading " * 40)
                              for i in range(25)))
        wait_for(lambda: caught_up(home, session))
    out = tmp_path / "back.jsonl"
    env = {**os.environ, "TAPESTRY_HOME": str(home), "PYTHONPATH": str(REPO)}
    done = tapestryctl("archive", "extract", str(session), "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert hashlib.sha256(out.read_bytes()).hexdigest() == hashlib.sha256(session.read_bytes()).hexdigest()
    status = daemon.call("status")["archive"]
    assert status["files"] == 1 and status["original_bytes"] == session.stat().st_size
    assert 0 < status["stored_bytes"] < status["original_bytes"] and status["disk_bytes"] > 0


def test_sigkill_while_sessions_grow_loses_no_archived_byte(daemon: Daemon, home: Path, projects: Path) -> None:
    """Five rounds: append a burst to two files (the last line of one left half-written until the next
    round), kill -9 the daemon as soon as the archive has taken some of it, restart. In the end every
    file's archived copy equals the file, and every message is stored once."""
    folder = projects / "-home-me-crash"
    folder.mkdir()
    paths = [folder / f"crash-{n}.jsonl" for n in range(2)]
    written, rest = [], b""
    daemon.start()
    for round_ in range(6):
        seen = archived(home, paths[0])[0]
        lines = [[session_line(f"crash-{n}", f"u-{n}-{round_}-{i}",
                               f"round {round_} file {n} line {i} " + "ripple " * 30)
                  for i in range(150)] for n in range(2)]
        written += [text for n in range(2) for i in range(150)
                    for text in [f"round {round_} file {n} line {i} " + "ripple " * 30]]
        with paths[0].open("ab") as fh:
            fh.write(b"".join(lines[0]))
        with paths[1].open("ab") as fh:
            fh.write(rest + b"".join(lines[1][:-1]) + lines[1][-1][:40])
        rest = lines[1][-1][40:]
        if round_ < 5:
            wait_for(lambda: archived(home, paths[0])[0] > seen)
            daemon.stop(signal.SIGKILL)
            daemon.start()
    with paths[1].open("ab") as fh:
        fh.write(rest)
    for path in paths:
        wait_for(lambda: caught_up(home, path))
        assert archived(home, path)[1] == path.read_bytes()
    wait_for(lambda: len(daemon.messages()) >= len(written))
    assert sorted(text for _, _, text in daemon.messages()) == sorted(written)
    assert daemon.event_count() == len(written)


_CHILD = """
import sys
from pathlib import Path
from tapestryd.sources.archive import Archive
from tapestryd.sources.archive.store import ArchiveStore

steps = []
add = ArchiveStore._add_blocks
def add_then_hold(self, *args):
    delta = add(self, *args)
    steps.append(delta)
    if len(steps) == 2:  # the second step's blocks are written, its transaction not committed
        print("holding", flush=True)
        sys.stdin.read()
    return delta
ArchiveStore._add_blocks = add_then_hold
with open(sys.argv[2], "rb") as fh:
    Archive(Path(sys.argv[1])).capture("claude-code", sys.argv[2], fh)
"""


def test_sigkill_inside_an_archive_transaction_keeps_the_archive_whole(tmp_path: Path) -> None:
    """A capture killed between writing a step's blocks and committing: the archive holds exactly the
    first step, intact, and the next capture reads the rest from the source."""
    source = tmp_path / "big.jsonl"
    with source.open("wb") as fh:
        for i in range(40_000):
            fh.write(session_line("big", f"u{i}", f"line {i} " + os.urandom(48).hex()))
    db = tmp_path / "archive" / "archive.db"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(db), str(source)], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdout is not None and child.stdout.readline() == b"holding\n"
    child.send_signal(signal.SIGKILL)
    assert child.wait(10) == -signal.SIGKILL
    with ArchiveStore(db, readonly=True) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        file = store.latest(str(source))
        assert file is not None
        kept = b"".join(store.read(file.id))
    data = source.read_bytes()
    assert 0 < file.consumed < len(data) and kept == data[:file.consumed] and file.size == len(kept)
    archive = Archive(db)
    with source.open("rb") as fh:
        archive.capture("claude-code", str(source), fh)
    archive.close()
    with ArchiveStore(db, readonly=True) as store:
        final = store.latest(str(source))
        assert final is not None and final.version == 1
        assert hashlib.sha256(b"".join(store.read(final.id))).digest() == hashlib.sha256(data).digest()
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM files").fetchone()[0] == 1


def test_codex_rollouts_are_archived_live_and_gemini_chats_are_not_by_default(home: Path) -> None:
    """The defaults through the running daemon: a growing Codex rollout is archived (source codex),
    a Gemini CLI chat tailed beside it is not."""
    codex, gemini, _ = configure(home)
    rollout = codex / "2026" / "03" / "04" / "rollout-2026-03-04T10-00-00-live.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_bytes(codex_meta("live-codex"))
    chat = gemini / "a1b2" / "chats" / "session-2026-03-04T10-00-live.jsonl"
    chat.write_bytes(gemini_header("live-gemini"))
    daemon = Daemon(home)
    try:
        daemon.start()
        for n in range(3):
            with rollout.open("ab") as fh:
                fh.write(codex_message(f"codex turn {n} about the kettle", minute=n))
            with chat.open("ab") as fh:
                fh.write(gemini_record(f"r{n}", f"gemini turn {n} about the kettle"))
            wait_for(lambda: caught_up(home, rollout))
        wait_for(lambda: daemon.event_count() == 6)
    finally:
        daemon.cleanup()
    assert archived(home, rollout)[1] == rollout.read_bytes()
    with ArchiveStore(paths_for(load_settings(home)).archive_db, readonly=True) as store:
        assert [(f.path, f.source) for f in store.listing()] == [(str(rollout), "codex")]
