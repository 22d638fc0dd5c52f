"""Compaction scrubs the summaries made before a forget, in the log and in the backups,
and a rebuild of the compacted log gives the projections it gave before."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

import tapestryd.cli.core  # registers export-log
import tapestryd.cli.safety  # noqa: F401  (registers forget and compact)
from tapestryd.cli.app import app
from tapestryd.config import Settings
from tapestryd.operations import backup as backups
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.paths import paths_for

SECRET = "Zanzibar quokka"
PATTERN = "zanzibar.quokka"  # a --match pattern stays in the log, so it must not spell the words


def _conversation(cid: str, title: str, start: float, texts: list[str]) -> dict[str, Any]:
    """One conversation of a ChatGPT export: a chain of alternating user/assistant messages."""
    mapping: dict[str, Any] = {}
    parent = None
    for index, text in enumerate(texts):
        node = f"{cid}-m{index}"
        role = "user" if index % 2 == 0 else "assistant"
        mapping[node] = {"id": node, "parent": parent, "children": [],
                         "message": {"id": node, "author": {"role": role}, "create_time": start + 60 * index,
                                     "content": {"content_type": "text", "parts": [text]}}}
        if parent:
            mapping[parent]["children"].append(node)
        parent = node
    return {"id": cid, "title": title, "create_time": start, "update_time": start + 600, "mapping": mapping}


def _export(folder: Path) -> Path:
    """Three conversations over two days (2025-03-04 and -05): the words in a message, in a title, nowhere."""
    day = 1741089600.0  # 2025-03-04 12:00 UTC
    convs = [
        _conversation("conv-trip", "Holiday plans", day,
                      [f"We saw the {SECRET} festival on the island.", "That sounds like a lovely trip.",
                       "Next year we plan to visit Lisbon.", "Lisbon is great in spring."]),
        _conversation("conv-notes", f"{SECRET} notes", day + 3600,
                      ["Help me write a packing list.", "Sunscreen, a hat and sandals."]),
        _conversation("conv-code", "Parser refactor", day + 86400,
                      ["How do I split this parser module?", "Move the tokenizer into its own file."]),
    ]
    path = folder / "conversations.json"
    path.write_text(json.dumps(convs))
    return path


def _run(settings: Settings, op: str, **args: object) -> dict[str, Any]:
    with Runtime.open(settings) as rt:
        return run_json(op, rt, args)


def _projections(settings: Settings) -> dict[str, list[tuple[Any, ...]]]:
    """What a user sees: messages, conversations, and each node's title, summary, state and counts."""
    with Runtime.open(settings) as rt:
        conn = rt.projector.conn
        return {
            "messages": conn.execute(
                "SELECT conversation, message_key, role, text FROM messages ORDER BY 1, 2").fetchall(),
            "conversations": conn.execute("SELECT key, title, message_count FROM conversations ORDER BY 1").fetchall(),
            "nodes": conn.execute("SELECT key, level, title, summary, state, message_count, source_chars,"
                                  " summarized_seq FROM nodes ORDER BY key").fetchall(),
        }


def _log_hits(settings: Settings) -> list[str]:
    """Types of the events whose payload holds the secret words (any case)."""
    conn = sqlite3.connect(paths_for(settings).events_db)
    try:
        return [t for t, p in conn.execute("SELECT type, payload FROM events") if SECRET.lower() in p.lower()]
    finally:
        conn.close()


def _in_file(path: Path) -> bool:
    data = b"".join(Path(f"{path}{s}").read_bytes() for s in ("", "-wal") if Path(f"{path}{s}").exists())
    return SECRET.lower().encode() in data.lower()


def _summarized_home(settings: Settings, tmp_path: Path) -> Path:
    """Import the export and summarize every level; returns a backup made before any forget."""
    _run(settings, "ingest", paths=[str(_export(tmp_path))])
    report = _run(settings, "iterate")
    assert report["summarized"] > 0
    assert {"NodeSummarized", "MessageRecorded", "ConversationTitled"} <= set(_log_hits(settings))
    paths = paths_for(settings)
    return backups.backup_log(paths.events_db, paths.backups).path


def test_compaction_scrubs_summaries_in_log_and_backups(settings: Settings, tmp_path: Path) -> None:
    """forget --match, compact, compact --confirm: no event payload and no backup keeps the words,
    and a rebuild gives the projections the forget left."""
    old_backup = _summarized_home(settings, tmp_path)
    _run(settings, "forget", match=PATTERN)
    before = _projections(settings)
    assert not any(SECRET.lower() in str(row).lower() for rows in before.values() for row in rows)
    report = _run(settings, "compact")
    assert report["rewritten"]["NodeSummarized"] >= 5  # the trip's L0 to L4 at least
    assert _log_hits(settings) == [] and not _in_file(paths_for(settings).events_db)
    confirmed = _run(settings, "compact", confirm=True)
    assert confirmed["scrubbed"][str(old_backup)] == sum(report["rewritten"].values())
    assert not _in_file(old_backup)
    _run(settings, "rebuild")
    assert _projections(settings) == before


def test_resummarized_after_forget_then_compacted(settings: Settings, tmp_path: Path) -> None:
    """Summaries made again after the forget stay; the old ones go; rebuild gives the same
    summaries. The L0 that lost a message (its fingerprint counted the forgotten message, which
    a rebuild no longer sees) and its ancestors are dirty once, and one iterate makes them clean
    with the same summaries. A second compaction has nothing left to do."""
    _summarized_home(settings, tmp_path)
    _run(settings, "forget", match=PATTERN)
    assert _run(settings, "iterate")["summarized"] > 0
    before = _projections(settings)
    assert before["nodes"] and all(summary and state != "dirty" for _, _, _, summary, state, *_ in before["nodes"])
    _run(settings, "compact")
    assert _log_hits(settings) == []
    _run(settings, "rebuild")
    after = _projections(settings)
    assert _without_states(after) == _without_states(before)
    dirty = {key for key, _, _, _, state, *_ in after["nodes"] if state == "dirty"}
    trip = "L0:chatgpt:2025-03-04:chatgpt:conv-trip"
    assert dirty == {trip, "L1:chatgpt:2025-03-04", "L2:chatgpt:2025-03-03w", "L3:chatgpt:2025-03", "L4:chatgpt:2025"}
    assert _run(settings, "iterate")["summarized"] >= 1
    again = _projections(settings)
    assert [row[:7] for row in again["nodes"]] == [row[:7] for row in before["nodes"]]
    assert _run(settings, "compact", dry_run=True)["rewritten"] == {}


def _without_states(seen: dict[str, list[tuple[Any, ...]]]) -> dict[str, list[tuple[Any, ...]]]:
    return {**seen, "nodes": [row[:4] + row[5:] for row in seen["nodes"]]}


def test_export_log_shows_no_forgotten_summary(settings: Settings, tmp_path: Path) -> None:
    """The user's check from the report: `export-log` after forget and compact never prints the words."""
    _summarized_home(settings, tmp_path)
    runner = CliRunner()
    assert runner.invoke(app, ["forget", "--match", PATTERN]).exit_code == 0
    assert SECRET.lower() in runner.invoke(app, ["export-log"]).output.lower()
    assert runner.invoke(app, ["compact"]).exit_code == 0
    assert runner.invoke(app, ["compact", "--confirm"]).exit_code == 0
    exported = runner.invoke(app, ["export-log"])
    assert exported.exit_code == 0 and SECRET.lower() not in exported.output.lower()


def test_forgotten_conversation_blanks_week_above_a_dropped_day(settings: Settings, tmp_path: Path) -> None:
    """Forgetting the only conversation of a day drops its L0 and L1; the week, month and year
    above (which may quote it) are blanked too, their old summaries compacted away, and a
    rebuild agrees."""
    _summarized_home(settings, tmp_path)
    word = "tokenizer"
    _run(settings, "forget", conversation="chatgpt:conv-code")
    before = _projections(settings)
    nodes = {key: (title, summary, state) for key, _, title, summary, state, *_ in before["nodes"]}
    assert "L1:chatgpt:2025-03-05" not in nodes
    for key in ("L2:chatgpt:2025-03-03w", "L3:chatgpt:2025-03", "L4:chatgpt:2025"):
        assert nodes[key] == ("", "", "dirty")
    report = _run(settings, "compact")
    assert report["rewritten"]["NodeSummarized"] >= 5
    conn = sqlite3.connect(paths_for(settings).events_db)
    try:
        assert not [t for t, p in conn.execute("SELECT type, payload FROM events") if word in p]
    finally:
        conn.close()
    _run(settings, "rebuild")
    assert _projections(settings) == before


def test_a_conversation_forgotten_by_pattern_stays_gone_after_compact_and_rebuild(settings: Settings,
                                                                                   tmp_path: Path) -> None:
    """Title and every message match: the conversation goes; its scrubbed title event must not
    bring back an empty '(untitled)' row when the compacted log is replayed."""
    export = tmp_path / "gone" / "conversations.json"
    export.parent.mkdir()
    export.write_text(json.dumps([
        _conversation("conv-gone", f"{SECRET} diary", 1741089600.0, [f"The {SECRET} ate my lunch.",
                                                                      f"A {SECRET} does that."]),
        _conversation("conv-kept", "Parser refactor", 1741093200.0, ["Split the parser.", "Move the tokenizer."])]))
    _run(settings, "ingest", paths=[str(export)])
    _run(settings, "forget", match=PATTERN)
    before = _projections(settings)
    assert [key for key, *_ in before["conversations"]] == ["chatgpt:conv-kept"]
    _run(settings, "compact")
    _run(settings, "rebuild")
    assert _projections(settings) == before


def test_compact_counts_the_log_waiting_in_its_wal(settings: Settings, tmp_path: Path) -> None:
    """With another connection open (a running daemon), most of the log sits in events.db-wal: the size
    before compaction counts it, so compact does not report a log that grew (0.15 -> 0.46 MB on the demo)."""
    _run(settings, "ingest", paths=[str(_export(tmp_path))])
    holder = sqlite3.connect(paths_for(settings).events_db)
    try:
        holder.execute("SELECT count(*) FROM events").fetchone()
        _run(settings, "iterate")
        _run(settings, "forget", match=PATTERN)
        assert Path(f"{paths_for(settings).events_db}-wal").stat().st_size > 0
        report = _run(settings, "compact")
    finally:
        holder.close()
    assert report["rewritten"] and report["bytes_after"] <= report["bytes_before"]
