"""The raw archive as the tailer reads: byte-exact copies, incremental blocks, versions, private modes."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Iterator

import pytest
from cli_runner import tapestryctl

from tapestryd.config import Settings, load_settings
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import VerifyRequest
from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.sources.archive import ArchiveStore, ArchiveHook, archive_for
from tapestryd.sources.archive.store import BLOCK
from tapestryd.sources.tailer import Tailer, scan_sessions


def record(session: str, n: int, *, ts: str = "2026-03-04T10:00:00Z", text: str = "") -> bytes:
    """One Claude Code line: a user message, or an assistant turn with a tool call and thinking."""
    if n % 2:
        content: object = [{"type": "thinking", "thinking": f"pondering step {n}"},
                           {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": f"ls /tmp/{n}"}},
                           {"type": "text", "text": text or f"reply {n}"}]
    else:
        content = text or f"question {n} about the weather in town number {n * 7}"
    line = {"type": "assistant" if n % 2 else "user", "uuid": f"{session}-{n}", "sessionId": session,
            "timestamp": ts, "message": {"role": "assistant" if n % 2 else "user", "content": content}}
    return json.dumps(line).encode() + b"\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def store(settings: Settings) -> Iterator[EventStore]:
    log = EventStore(paths_for(settings).events_db)
    yield log
    log.close()


@pytest.fixture
def tailer(store: EventStore, archive: ArchiveHook) -> Tailer:
    return Tailer(store, agent="claude-code", archive=archive)


@pytest.fixture
def session(home: Path) -> Path:
    folder = home / "claude-projects" / "-home-me-proj"
    folder.mkdir(parents=True)
    return folder / "s1.jsonl"


def archived(settings: Settings, path: Path) -> list[tuple[int, str, bytes]]:
    """``(version, state, kept bytes)`` of every archived version of ``path``."""
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        return [(f.version, f.state, b"".join(db.read(f.id))) for f in db.versions(str(path))
                if f.state in ("current", "replaced")]


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(data)


def test_several_appends_give_back_the_exact_bytes_through_the_cli(settings: Settings, tailer: Tailer,
                                                                   session: Path, home: Path, tmp_path: Path) -> None:
    """Each append is captured as the tailer reads it; `archive extract` returns the file byte for byte."""
    for batch in range(5):
        append(session, b"".join(record("s1", batch * 40 + n) for n in range(40)))
        tailer.tail(str(session))
        assert archived(settings, session)[-1][2] == session.read_bytes()
    out = tmp_path / "copy.jsonl"
    env = {**os.environ, "TAPESTRY_HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = tapestryctl("archive", "extract", "s1.jsonl", "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    assert sha(out.read_bytes()) == sha(session.read_bytes())
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    listed = tapestryctl("archive", "list", "-f", "json", env=env)
    rows = json.loads(listed.stdout)
    assert [(r["path"], r["original_bytes"]) for r in rows] == [(str(session), session.stat().st_size)]
    assert 0 < rows[0]["stored_bytes"] < rows[0]["original_bytes"] / 3
    assert rows[0]["last_capture"]


def test_an_append_recompresses_only_the_last_block(settings: Settings, tailer: Tailer, session: Path) -> None:
    """Blocks before the last one are left as they were (same rows): the file is never recompressed whole."""
    append(session, b"".join(record("s1", n) for n in range(1500)))
    tailer.tail(str(session))
    before = _blocks(settings)
    assert len(before) >= 3
    append(session, record("s1", 2000))
    tailer.tail(str(session))
    after = _blocks(settings)
    assert after[:-1] == before[:-1]
    assert after[-1] != before[-1]
    assert all(length == BLOCK for _, length, _ in after[:-1])


def _blocks(settings: Settings) -> list[tuple[int, int, bytes]]:
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        return db.conn.execute("SELECT rowid, length, data FROM blocks ORDER BY file_id, start").fetchall()


def test_an_unfinished_last_line_is_archived_and_completed_later(settings: Settings, tailer: Tailer,
                                                                 session: Path) -> None:
    """Byte-exact to the end of the file, half a line included; the rest is appended when written.
    A first line without its newline waits (it names no format yet)."""
    first, second = record("s1", 0), record("s1", 1)
    append(session, first[:30])
    tailer.tail(str(session))
    assert archived(settings, session) == []
    append(session, first[30:] + second[:30])
    tailer.tail(str(session))
    assert archived(settings, session)[0][2] == first + second[:30]
    append(session, second[30:])
    tailer.tail(str(session))
    assert archived(settings, session) == [(1, "current", session.read_bytes())]


def test_the_corpus_sessions_are_archived_byte_for_byte(settings: Settings, tailer: Tailer, corpus: Path) -> None:
    """Real Claude Code files, read in place (one ends without a newline): each archived copy equals it."""
    files = sorted((corpus / "claude-code").rglob("*.jsonl"))
    assert files
    tailer.tail_many([str(f) for f in files])
    for path in files:
        assert archived(settings, path) == [(1, "current", path.read_bytes())], path.name


def test_a_truncated_file_becomes_a_new_version_and_the_old_one_is_kept(settings: Settings, tailer: Tailer,
                                                                        session: Path) -> None:
    """Truncated and rewritten (same inode): version 1 keeps what was read, version 2 is the new content."""
    append(session, b"".join(record("s1", n) for n in range(10)))
    tailer.tail(str(session))
    old = session.read_bytes()
    with session.open("r+b") as fh:
        fh.truncate(0)
        fh.write(b"".join(record("s1", n, text=f"rewritten {n}") for n in range(30)))
    tailer.tail(str(session))
    versions = archived(settings, session)
    assert [(v, s) for v, s, _ in versions] == [(1, "replaced"), (2, "current")]
    assert versions[0][2] == old
    assert versions[1][2] == session.read_bytes()


def test_a_replaced_file_is_a_new_version_but_a_copy_renamed_over_it_continues(settings: Settings, tailer: Tailer,
                                                                                session: Path) -> None:
    """A new inode with other bytes is a new version; one holding the same bytes plus more goes on."""
    append(session, b"".join(record("s1", n) for n in range(10)))
    tailer.tail(str(session))
    copy = session.with_suffix(".tmp")
    copy.write_bytes(session.read_bytes() + record("s1", 10))
    os.replace(copy, session)
    tailer.tail(str(session))
    assert [(v, s, data) for v, s, data in archived(settings, session)] == [(1, "current", session.read_bytes())]
    other = session.with_suffix(".tmp")
    other.write_bytes(b"".join(record("s2", n) for n in range(12)))
    os.replace(other, session)
    tailer.tail(str(session))
    assert [(v, s) for v, s, _ in archived(settings, session)] == [(1, "replaced"), (2, "current")]
    assert archived(settings, session)[1][2] == session.read_bytes()


def test_files_read_before_the_archive_was_on_are_caught_up_by_the_sweep(settings: Settings, store: EventStore,
                                                                         archive: ArchiveHook, session: Path) -> None:
    """The log already has every line; the sweep still hands the file to the tailer for the archive."""
    append(session, b"".join(record("s1", n) for n in range(20)))
    Tailer(store, agent="claude-code").tail(str(session))
    tailer = Tailer(store, agent="claude-code", archive=archive)
    scan = scan_sessions([session.parent])
    assert tailer.changed(scan) == [str(session)]
    tailer.tail_many(tailer.changed(scan))
    assert archived(settings, session)[0][2] == session.read_bytes()
    assert tailer.changed(scan_sessions([session.parent])) == []


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_the_archive_is_private_whatever_the_umask(settings: Settings, tailer: Tailer, session: Path,
                                                   umask: int) -> None:
    """Folder 0700, database and its WAL files 0600."""
    old = os.umask(umask)
    try:
        append(session, record("s1", 0))
        tailer.tail(str(session))
    finally:
        os.umask(old)
    folder = paths_for(settings).archive_db.parent
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    files = list(folder.iterdir())
    assert {f.name for f in files} >= {"archive.db", "archive.db-wal"}
    assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == {f.name: 0o600 for f in files}


def test_archive_is_on_for_claude_code_and_codex_by_default_and_can_be_turned_off(home: Path) -> None:
    """Defaults from ARCHIVE_DEFAULTS; every source off means no hook at all."""
    settings = load_settings(home)
    assert settings.archive.keeps("claude-code") and settings.archive.keeps("codex")
    assert not settings.archive.keeps("gemini")
    (home / "tapestry.toml").write_text('[archive]\nclaude-code = false\ngemini = true\n')
    changed = load_settings(home)
    assert changed.archive.sources == ("codex", "gemini") and not changed.warnings
    (home / "tapestry.toml").write_text('[archive]\nclaude-code = false\ncodex = false\n')
    assert archive_for(load_settings(home)) is None


AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"


def test_each_tailed_format_is_archived_when_its_source_is_on(home: Path, store: EventStore, tmp_path: Path) -> None:
    """One tailer reads Codex and Gemini CLI files: the Codex rollout is archived (on by default), the
    Gemini chat is not until `[archive] gemini = true`, when the sweep catches it up."""
    folder = tmp_path / "agents"
    folder.mkdir()
    rollout = next((AGENTS / "codex").glob("rollout-*.jsonl")).read_bytes()
    chat = next((AGENTS / "gemini").glob("session-*.jsonl")).read_bytes()
    codex, gemini = folder / "rollout-live.jsonl", folder / "session-live.jsonl"
    half = rollout.index(b"\n", len(rollout) // 2) + 1
    codex.write_bytes(rollout[:half])
    gemini.write_bytes(chat)
    hook = archive_for(load_settings(home))
    assert hook is not None
    tailer = Tailer(store, agent="claude-code", archive=hook, agents={"codex": "codex", "gemini": "gemini-cli"})
    tailer.tail_many(tailer.changed(scan_sessions([folder])))
    append(codex, rollout[half:])
    tailer.tail(str(codex))
    hook.close()
    settings = load_settings(home)
    assert [(v, data) for v, _, data in archived(settings, codex)] == [(1, rollout)]
    assert archived(settings, gemini) == [] and tailer.changed(scan_sessions([folder])) == []
    (home / "tapestry.toml").write_text((home / "tapestry.toml").read_text() + "\n[archive]\ngemini = true\n")
    hook = archive_for(load_settings(home))
    assert hook is not None
    tailer = Tailer(store, agent="claude-code", archive=hook, agents={"codex": "codex", "gemini": "gemini-cli"})
    assert tailer.changed(scan_sessions([folder])) == [str(gemini)]
    tailer.tail_many([str(gemini)])
    hook.close()
    assert [(v, data) for v, _, data in archived(settings, gemini)] == [(1, chat)]
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        assert {f.path: f.source for f in db.listing()} == {str(codex): "codex", str(gemini): "gemini"}


def test_verify_reads_every_archived_block_back(settings: Settings, tailer: Tailer, session: Path) -> None:
    """`verify` passes on an intact archive and names the version whose block no longer decompresses."""
    append(session, b"".join(record("s1", n) for n in range(900)))
    tailer.tail(str(session))
    checks = {c["name"]: c for c in run_here(settings, VerifyRequest()).to_json()["checks"]}
    assert checks["archive"]["ok"] and checks["archive"]["problems"] == []
    conn = sqlite3.connect(paths_for(settings).archive_db)
    with conn:
        conn.execute("UPDATE blocks SET data = substr(data, 1, 40) WHERE start = ?", (BLOCK,))
    conn.close()
    report = run_here(settings, VerifyRequest()).to_json()
    archive = next(c for c in report["checks"] if c["name"] == "archive")
    assert not report["ok"] and not archive["ok"]
    assert any(f"{session} (id 1, version 1): block at byte {BLOCK} does not decompress" in p
               for p in archive["problems"])


def test_a_rollout_moved_to_another_folder_keeps_its_versions(settings: Settings, tailer: Tailer,
                                                              tmp_path: Path) -> None:
    """Codex moves a finished rollout to archived_sessions/: the archive follows it, no second copy."""
    rollout = next((AGENTS / "codex").glob("rollout-*.jsonl")).read_bytes()
    live, done = tmp_path / "sessions" / "rollout-a.jsonl", tmp_path / "archived_sessions" / "rollout-a.jsonl"
    live.parent.mkdir()
    done.parent.mkdir()
    live.write_bytes(rollout)
    tailer.tail(str(live))
    os.rename(live, done)
    append(done, rollout.splitlines(keepends=True)[-1])
    tailer.tail(str(done))
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        rows = [(f.path, f.version, f.source) for f in db.listing()]
        assert rows == [(str(done), 1, "codex")]
        assert b"".join(db.read(db.listing()[0].id)) == done.read_bytes()
