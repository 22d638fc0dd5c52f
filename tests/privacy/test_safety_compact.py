"""Compaction: forgotten text leaves the log file and, once confirmed, every backup."""

from __future__ import annotations

from pathlib import Path

from privacy_helpers import at, message, record, texts, title
from typer.testing import CliRunner

import tapestryd.cli.safety  # noqa: F401  (registers the commands)
from tapestryd.cli.app import app
from tapestryd.config import Settings
from tapestryd.operations import backup as backups
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.paths import paths_for

SECRET_WORD = "zanzibarquokka"
PATTERN = "zanzibar.uokka"  # a --match pattern is kept in the log, so it must not spell the word


def _history(settings: Settings) -> None:
    with Runtime.open(settings) as rt:
        record(rt,
               message("claude-code:p", "1", f"my {SECRET_WORD} diagnosis", at("2025-01-10")),
               message("claude-code:p", "2", "what should I ask the doctor", at("2025-01-10", 13)),
               title("claude-code:p", f"Health {SECRET_WORD}"),
               message("claude-code:q", "1", "keep this one", at("2025-01-11")),
               message("claude-code:q", "2", f"but forget {SECRET_WORD} here", at("2025-01-11", 13)))


def _on_disk(path: Path) -> bool:
    data = b"".join(Path(f"{path}{s}").read_bytes() for s in ("", "-wal") if Path(f"{path}{s}").exists())
    return SECRET_WORD.encode() in data


def _run(settings: Settings, op: str, **args: object) -> dict[str, object]:
    with Runtime.open(settings) as rt:
        return run_json(op, rt, args)


def test_compaction_removes_forgotten_text_from_the_file(settings: Settings) -> None:
    """After forget + compact the word is in no byte of events.db, but in the kept backup."""
    _history(settings)
    paths = paths_for(settings)
    old_backup = backups.backup_log(paths.events_db, paths.backups).path
    _run(settings, "forget", conversation="claude-code:p")
    _run(settings, "forget", match=PATTERN)
    assert _on_disk(paths.events_db)
    dry = _run(settings, "compact", dry_run=True)
    assert dry["rewritten"] == {"MessageRecorded": 3, "ConversationTitled": 1} and _on_disk(paths.events_db)
    report = _run(settings, "compact")
    assert not _on_disk(paths.events_db)
    assert _on_disk(Path(str(report["backup"]))) and _on_disk(old_backup)
    confirmed = _run(settings, "compact", confirm=True)
    assert confirmed["deleted"] == [report["backup"]] and not Path(str(report["backup"])).exists()
    assert not _on_disk(old_backup) and confirmed["scrubbed"][str(old_backup)] == 4


def test_compaction_keeps_envelopes_and_projections(settings: Settings) -> None:
    """Seqs and event ids stay (a re-import is a no-op); a rebuild equals the state before."""
    _history(settings)
    _run(settings, "forget", conversation="claude-code:p")
    with Runtime.open(settings) as rt:
        before, count = texts(rt), rt.store.count()
    _run(settings, "compact")
    with Runtime.open(settings) as rt:
        rt.projector.rebuild()
        assert texts(rt) == before == {("claude-code:q", "1"): "keep this one",
                                       ("claude-code:q", "2"): f"but forget {SECRET_WORD} here"}
        assert rt.store.count() == count
        again = rt.store.append([message("claude-code:p", "1", f"my {SECRET_WORD} diagnosis", at("2025-01-10"))])
        assert again.known == 1


def test_nothing_to_compact_without_forget(settings: Settings) -> None:
    """No Forgotten event: compaction changes nothing and writes no backup."""
    _history(settings)
    report = _run(settings, "compact")
    assert report["backup"] is None and report["rewritten"] == {}
    assert _on_disk(paths_for(settings).events_db)


def test_forget_and_compact_commands(settings: Settings) -> None:
    """The CLI path: dry run, forget, compact, confirm, each with a readable line."""
    _history(settings)
    runner = CliRunner()
    dry = runner.invoke(app, ["forget", "--match", PATTERN, "--dry-run"])
    assert dry.exit_code == 0 and "would forget 2 messages in 2 conversations" in dry.output
    done = runner.invoke(app, ["forget", "--match", PATTERN])
    assert done.exit_code == 0 and "forgot 2 messages" in done.output and "compact" in done.output
    compacted = runner.invoke(app, ["compact"])
    assert compacted.exit_code == 0 and "compact --confirm" in compacted.output
    confirmed = runner.invoke(app, ["compact", "--confirm"])
    assert confirmed.exit_code == 0 and "deleted" in confirmed.output
    bad = runner.invoke(app, ["forget"])
    assert bad.exit_code != 0


def _indexed_terms(projections_db: Path) -> set[str]:
    """Every term in any FTS5 index of ``projections_db`` (fts5vocab, deleted documents' terms included
    until their segments are merged)."""
    import sqlite3

    conn = sqlite3.connect(projections_db)
    try:
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                                   " AND sql LIKE 'CREATE VIRTUAL TABLE%fts5(%'")]
        terms: set[str] = set()
        for table in tables:
            conn.execute(f"CREATE VIRTUAL TABLE temp.v_{table} USING fts5vocab(main, {table}, 'row')")
            terms.update(term for (term,) in conn.execute(f"SELECT term FROM temp.v_{table}"))
        return terms
    finally:
        conn.close()


def test_compaction_takes_forgotten_words_out_of_the_indexes(settings: Settings) -> None:
    """After forget + compact no full-text index of projections.db holds the forgotten word as a term, and no
    byte of the file holds it (t15: a deleted document's terms stayed in the FTS5 segments)."""
    _history(settings)
    paths = paths_for(settings)
    _run(settings, "forget", match=PATTERN)
    assert _on_disk(paths.projections_db)  # deleted rows' terms wait in their segments for a merge
    _run(settings, "compact")
    assert SECRET_WORD not in _indexed_terms(paths.projections_db)
    assert "keep" in _indexed_terms(paths.projections_db)
    assert not _on_disk(paths.projections_db)
