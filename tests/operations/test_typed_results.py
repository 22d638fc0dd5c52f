"""Typed results print the very JSON the query layer answers, and read back from it unchanged.

A small home is built through ``ingest`` (two Claude Code sessions) and summarized with the
extractive provider, so hits carry quote marks and nodes exist. For each typed result the
query layer's own answer (what the socket sent before results were typed) is compared, as
JSON text (keys, order, values), with the operation's ``to_json()``; and each answer is read
back with ``from_json`` and written again, unchanged.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from tapestryd.clock import FixedClock
from tapestryd.config import Settings, load_settings
from tapestryd.operations import requests as rq
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.registry import OPERATIONS
from tapestryd.operations.result_parts import DriftedNode, DriftStep, HierarchyCheck, Hit, SummaryRun
from tapestryd.operations.archive import archive_status
from tapestryd.operations.results import (ArchiveListResult, BackupResult, BackupsResult, CompactResult, DriftResult,
                                          EvalResult, ForgetResult, HierarchyStatusResult, IngestResult, ReloadResult,
                                          RepairResult, RestoreResult, SearchResult, StatusResult, SyncInitResult,
                                          SyncResult, SyncStatusResult, VerifyResult)
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.summarizer import RunReport, exclusive
from tapestryd.operations.syncing import sync_status
from tapestryd.operations.shape import Listing, Record, undeclared
from tapestryd.operations.testing import run_json
from tapestryd.paths import paths_for
from tapestryd.queries import contextdoc
from tapestryd.queries.conversations import list_conversations, messages_around, show_conversation, stats
from tapestryd.queries.hybrid import hybrid_search
from tapestryd.queries.recall import recall, show_node
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search
from tapestryd.queries.similar import similar
from tapestryd.queries import sources as _sources  # noqa: F401  (registers the "sources" status section)
from tapestryd.queries.status import build_status
from tapestryd.queries.tree import hierarchy_status, tree
from tapestryd.sources.archive import ArchiveStore
from tapestryd.sources.ingest import ingest_paths

NOW = datetime(2026, 3, 9, 12, tzinfo=timezone.utc)
CLOCK = FixedClock(NOW)


def _line(session: str, uuid: str, text: str, ts: str, role: str = "user") -> str:
    """One Claude Code session record (the shape tests/daemon's session_line writes)."""
    record = {"type": role, "uuid": uuid, "sessionId": session, "timestamp": ts, "cwd": "/home/me/proj",
              "message": {"role": role, "content": text if role == "user" else [{"type": "text", "text": text}]}}
    return json.dumps(record) + "\n"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A Paris home with two sessions imported through ``ingest``, its days closed and summarized."""
    return _summarized_home(tmp_path_factory.mktemp("typed") / "home")


@pytest.fixture
def spare(tmp_path: Path) -> Settings:
    """A home like :func:`home` of the test's own, for the operations that change it (forget, compact, repair)."""
    return _summarized_home(tmp_path / "home")


def _summarized_home(root: Path) -> Settings:
    root.mkdir()
    (root / "tapestry.toml").write_text('[general]\ntimezone = "Europe/Paris"\n[sources]\nwatched_roots = ["%s"]\n'
                                        % (root / "claude-projects"))
    folder = root / "export" / "-home-me-proj"
    folder.mkdir(parents=True)
    (folder / "s1.jsonl").write_text(
        _line("s1", "u1", "where is the lantern", "2026-03-04T10:00:00Z")
        + _line("s1", "u2", "the lantern is in the shed", "2026-03-04T10:01:00Z", role="assistant")
        + _line("s1", "u3", "thanks, and the quokka?", "2026-03-04T10:02:00Z"))
    (folder / "s2.jsonl").write_text(
        _line("s2", "v1", "plan the garden beds", "2026-03-05T09:00:00Z")
        + _line("s2", "v2", "garden beds need compost and a lantern", "2026-03-05T09:05:00Z", role="assistant"))
    settings = load_settings(root)
    receipt = run_here(settings, rq.IngestRequest(paths=(str(root / "export"),)), clock=CLOCK).to_json()
    assert receipt["totals"]["messages_new"] == 5
    run_here(settings, rq.CloseDaysRequest(), clock=CLOCK)
    assert run_here(settings, rq.IterateRequest(), clock=CLOCK).to_json()["summarized"] > 0
    return settings


@pytest.fixture
def reader(home: Settings) -> Iterator[Reader]:
    with Reader.open(home) as opened:
        yield opened


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _same_json(name: str, reader: Reader, args: dict[str, Any], today: Any) -> None:
    """The operation's JSON is the query layer's answer, key for key in the same order, and the
    result type declares every key of it (none is only passed through)."""
    assert _text(run_json(name, reader, args, clock=CLOCK)) == _text(today)
    assert undeclared(OPERATIONS[name].result.from_json(today)) == []


def test_search_prints_the_query_layers_answer(reader: Reader) -> None:
    """Plain, time-phrase and hybrid searches: every key of the answer and of each hit, in order."""
    _same_json("search", reader, {"query": "lantern"}, search(reader, "lantern", SearchFilters(), now=NOW))
    _same_json("search", reader, {"query": "lantern last week"},
               search(reader, "lantern last week", SearchFilters(), now=NOW))
    _same_json("search", reader, {"query": "lantern", "mode": "hybrid"},
               hybrid_search(reader, "lantern", SearchFilters(), now=NOW))
    _same_json("search", reader, {"query": "lan.ern", "regex": True},
               search(reader, "lan.ern", SearchFilters(), now=NOW, regex=True))


def test_search_keeps_the_keys_only_some_answers_have(reader: Reader) -> None:
    """``project`` and a resolved ``conversation`` come last, and only when asked for."""
    plain = run_json("search", reader, {"query": "lantern"}, clock=CLOCK)
    narrowed = run_json("search", reader, {"query": "lantern", "conversation": "s1", "project": "/home/me/proj"},
                        clock=CLOCK)
    assert list(narrowed) == [*plain, "project", "conversation"]
    assert narrowed["conversation"] == "claude-code:s1" and narrowed["project"] == "/home/me/proj"
    assert "mode" not in plain and "conversations" not in plain


def test_similar_prints_the_query_layers_answer(reader: Reader) -> None:
    """Similar answers from FTS5 here (no warm index): the index note and the hits as they were."""
    _same_json("similar", reader, {"query": "lantern"}, similar(reader, "lantern"))


def test_context_prints_the_query_layers_answer(reader: Reader) -> None:
    """Context in json (items with their text, a budget that cuts) and in text (rendered, no text per item)."""
    anchor = datetime(2026, 3, 5).date()
    for fmt, budget in (("json", 120), ("text", None)):
        wanted = contextdoc.ContextRequest(anchor=anchor, fmt=fmt, max_tokens=budget)
        args = {"date": "2026-03-05", "format": fmt, "max_tokens": budget, "now": NOW.isoformat()}
        _same_json("context", reader, args, contextdoc.context_answer(reader, wanted, now=NOW))


def test_conversations_show_messages_and_stats_print_the_query_layers_answer(reader: Reader) -> None:
    """The listing (a JSON list), one conversation in full, messages by id with a missing one, the counts."""
    _same_json("conversations", reader, {}, list_conversations(reader))
    _same_json("show", reader, {"conversation": "s1"}, show_conversation(reader, "s1"))
    _same_json("messages", reader, {"ids": [2, 99], "before": 1, "after": 1},
               messages_around(reader, [2, 99], before=1, after=1))
    _same_json("stats", reader, {}, stats(reader))


def test_recall_node_and_tree_print_the_query_layers_answer(reader: Reader) -> None:
    """Recall with conversation-days, a day node (node sources), a segment (message sources), the tree."""
    _same_json("recall", reader, {"when": "2026-03", "days": 2, "now": NOW.isoformat()},
               recall(reader, "2026-03", now=NOW, days=2))
    _same_json("recall", reader, {"when": "last week", "now": NOW.isoformat()}, recall(reader, "last week", now=NOW))
    for key in ("L1:claude-code:2026-03-04", "L0:claude-code:2026-03-04:claude-code:s1"):
        _same_json("node", reader, {"key": key}, show_node(reader, key))
    _same_json("tree", reader, {"min_level": 0}, tree(reader, min_level=0))


def test_status_prints_the_query_layers_answer(reader: Reader) -> None:
    """Store, projections, daemon, the registered sections in their order, then archive and sync."""
    today = {**build_status(reader), "archive": archive_status(reader.settings, reader.paths),
             "sync": sync_status(reader.settings, reader.paths)}
    _same_json("status", reader, {}, today)
    typed = StatusResult.from_json(today)
    assert typed.store.messages == 5 and "hierarchy" in typed.sections and typed.archive is not None
    assert list(typed.to_json())[:3] == ["store", "projections", "daemon"] and list(typed.to_json())[-2:] == [
        "archive", "sync"]


def test_an_import_receipt_prints_the_importers_answer(tmp_path: Path) -> None:
    """A read file, a file known already, one that is no export and a missing path: the receipt as it was."""
    root = tmp_path / "home"
    (root / "export").mkdir(parents=True)
    (root / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    session = root / "export" / "s9.jsonl"
    session.write_text(_line("s9", "w1", "a lantern by the door", "2026-03-04T10:00:00Z"))
    (root / "export" / "notes.txt").write_text("not an export\n")
    settings = load_settings(root)
    paths = [session, root / "export", root / "missing.json"]
    with Runtime.open(settings) as runtime:
        for _ in range(2):  # new, then known
            today = ingest_paths(runtime.store, paths, settings=settings).to_dict()
            sent = IngestResult.from_json(today)
            assert _text(sent.to_json()) == _text(today) and undeclared(sent) == []
            assert IngestResult.from_json(json.loads(_text(sent.to_json()))) == sent
    assert sent.files[0].messages.known == 1 and sent.totals.errors >= 1 and not sent.failed


def test_iterate_and_generate_print_the_run_report_in_its_order(home: Settings) -> None:
    """The summarizer's report keys in its own order, after ``days_closed`` or ``nodes``; read back unchanged."""
    report = list(RunReport().to_dict())
    iterated = run_here(home, rq.IterateRequest(), clock=CLOCK)
    generated = run_here(home, rq.GenerateRequest(level=1, when="2026-03-04"), clock=CLOCK)
    assert list(iterated.to_json()) == ["days_closed", *report, "failed_in_a_row"]
    assert list(generated.to_json()) == ["nodes", *report]
    assert generated.nodes == ("L1:claude-code:2026-03-04",) and generated.summarized == 1
    for result in (iterated, generated):
        assert type(result).from_json(json.loads(_text(result.to_json()))) == result


def _answered(result_type: type[Any], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What the operations hand ``result_type.from_json`` (the answer as they build it), recorded."""
    seen: list[Any] = []
    read = result_type.from_json

    def record(value: Any) -> Any:
        seen.append(json.loads(_text(value)))
        return read(value)

    monkeypatch.setattr(result_type, "from_json", record)
    return seen


def test_backup_backups_verify_and_restore_print_the_answer_they_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each safety result's JSON is the answer its operation built, key for key, every key declared."""
    root = tmp_path / "home"
    (root / "export").mkdir(parents=True)
    (root / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    (root / "export" / "s9.jsonl").write_text(_line("s9", "w1", "a lantern by the door", "2026-03-04T10:00:00Z"))
    settings = load_settings(root)
    run_here(settings, rq.IngestRequest(paths=(str(root / "export"),)), clock=CLOCK)
    for request, result_type in ((rq.BackupRequest(), BackupResult), (rq.BackupsRequest(), BackupsResult),
                                 (rq.VerifyRequest(), VerifyResult)):
        seen = _answered(result_type, monkeypatch)
        sent = run_here(settings, request, clock=CLOCK)
        assert _text(sent.to_json()) == _text(seen[0]) and undeclared(sent) == [], result_type.__name__
        assert result_type.from_json(json.loads(_text(sent.to_json()))) == sent
    backup = run_here(settings, rq.BackupsRequest(), clock=CLOCK).backups[0]
    seen = _answered(RestoreResult, monkeypatch)
    restored = run_here(settings, rq.RestoreRequest(file=backup.path), clock=CLOCK)
    assert _text(restored.to_json()) == _text(seen[0]) and undeclared(restored) == []
    assert restored.replayed > 0 and restored.previous


def test_the_archive_listing_prints_the_answer_it_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``archive list``'s JSON is the listing its operation built (a list of versions), every key declared."""
    root = tmp_path / "home"
    root.mkdir()
    (root / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    settings = load_settings(root)
    assert run_here(settings, rq.ArchiveListRequest()).to_json() == []
    with ArchiveStore(paths_for(settings).archive_db) as store:
        first = store.start_version("/p/s1.jsonl", "claude-code", 7, "2026-03-04T10:00:00Z")
        store.append(first, b'{"a": 1}\n', consumed=9, inode=7, head=b"{", tail=b"\n", edited=False,
                     now="2026-03-04T10:01:00Z")
        store.start_version("/p/s1.jsonl", "claude-code", 8, "2026-03-05T10:00:00Z")
    seen = _answered(ArchiveListResult, monkeypatch)
    listed = run_here(settings, rq.ArchiveListRequest())
    assert _text(listed.to_json()) == _text(seen[0]) and undeclared(listed) == []
    assert [(f.version, f.state) for f in listed.files] == [(1, "replaced"), (2, "current")]


CASES = [
    ("search", {"query": "lantern"}), ("search", {"query": "lantern last week", "widen": True}),
    ("search", {"query": "lantern", "mode": "hybrid", "conversation": "s2"}), ("similar", {"query": "garden"}),
    ("context", {"date": "2026-03-05", "format": "json", "max_tokens": 120}), ("context", {"format": "markdown"}),
    ("conversations", {}), ("show", {"conversation": "s2"}), ("messages", {"ids": [1, 4, 99], "after": 1}),
    ("stats", {}), ("recall", {"when": "2026-03", "days": 1}), ("node", {"key": "L1:claude-code:2026-03-05"}),
    ("node", {"key": "L0:claude-code:2026-03-05:claude-code:s2"}), ("tree", {"min_level": 0}), ("status", {}),
]


@pytest.mark.parametrize(("name", "args"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_a_typed_result_reads_back_what_it_wrote(reader: Reader, name: str, args: dict[str, Any]) -> None:
    """``from_json(to_json())`` after a trip through JSON text gives the same result and the same text."""
    result_type = OPERATIONS[name].result
    assert issubclass(result_type, (Record, Listing)), f"{name} answers an untyped {result_type.__name__}"
    sent = _text(run_json(name, reader, args, clock=CLOCK))
    again = result_type.from_json(json.loads(sent))
    assert _text(again.to_json()) == sent
    assert again == result_type.from_json(json.loads(_text(again.to_json())))


def test_typed_results_have_typed_parts(reader: Reader) -> None:
    """A search result's hits are Hit records with named fields, read from the socket's JSON too."""
    result = SearchResult.from_json(run_json("search", reader, {"query": "lantern"}, clock=CLOCK))
    assert result.hits and all(isinstance(hit, Hit) for hit in result.hits)
    assert result.hits[0].conversation.startswith("claude-code:") and isinstance(result.hits[0].extra, dict)
    assert result.time is None and result.project is None


def test_every_result_is_typed() -> None:
    """Each result is a typed record or a listing: no answer is kept as untyped JSON."""
    for operation in OPERATIONS.values():
        assert issubclass(operation.result, (Record, Listing)), operation.name


def test_a_key_no_field_names_is_passed_on_and_a_missing_one_takes_its_default() -> None:
    """A newer daemon's extra key (or one the query layer adds before its field is declared) reaches
    the JSON after the fields; an older daemon's missing key takes its field's default."""
    sent = {"query": "q", "hits": [{"kind": "summary", "new_key": 1}], "surprise": True}
    result = SearchResult.from_json(sent)
    assert result.hits == (Hit(kind="summary"),) and result.sort == "relevance"
    assert list(result.to_json())[-1] == "surprise" and result.to_json()["hits"][0]["new_key"] == 1
    assert result == SearchResult.from_json({"query": "q", "hits": [{"kind": "summary"}]})
    assert sorted(undeclared(result)) == ["hits.0.new_key", "surprise"]


def _as_built(result: Any, built: list[Any]) -> Any:
    """``result``'s JSON is the answer its operation built (the last one recorded by :func:`_answered`),
    as JSON text (keys, order, values), every key declared; read back from that text it is equal."""
    assert _text(result.to_json()) == _text(built[-1]), type(result).__name__
    assert undeclared(result) == []
    again = type(result).from_json(json.loads(_text(built[-1])))
    assert again == result and _text(again.to_json()) == _text(built[-1])
    return result


def test_hierarchy_status_prints_the_answer_it_builds(home: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """With checks run now, with the recorded ones, and over projections without the hierarchy's tables
    (the query layer's short answer: no ``checks_at``)."""
    seen = _answered(HierarchyStatusResult, monkeypatch)
    now = _as_built(run_here(home, rq.HierarchyStatusRequest(checks=True), clock=CLOCK), seen)
    assert now.checks_at == "now" and now.checks and all(isinstance(c, HierarchyCheck) for c in now.checks)
    assert now.levels["L0"]["total"] > 0
    _as_built(run_here(home, rq.HierarchyStatusRequest(checks=False), clock=CLOCK), seen)
    no_table = Reader(home, paths_for(home), sqlite3.connect(":memory:"))  # projections without the hierarchy's
    seen.append(hierarchy_status(no_table))
    empty = _as_built(HierarchyStatusResult.from_json(seen[-1]), seen)
    assert empty.checks_at is None and "checks_at" not in empty.to_json() and empty.grade == "A"


def test_repair_prints_its_report_and_its_skip(spare: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repair's report (runs, checks, grade); while another summarizer run holds the lock, its skip alone."""
    seen = _answered(RepairResult, monkeypatch)
    report = _as_built(run_here(spare, rq.RepairRequest(), clock=CLOCK), seen)
    assert report.grade == "A" and isinstance(report.dirty, SummaryRun) and report.error is None
    assert list(report.to_json())[0] == "days_closed" and "skipped" not in report.to_json()
    with exclusive():
        skipped = _as_built(run_here(spare, rq.RepairRequest(), clock=CLOCK), seen)
    assert list(skipped.to_json()) == ["skipped"] and skipped.grade is None
    failed = RepairResult.from_json({"error": "the provider is gone"})
    assert failed.to_json() == {"error": "the provider is gone"} and RepairResult.from_json(failed.to_json()) == failed


def test_eval_and_drift_print_the_report_they_build(home: Settings, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Eval without Recall Yield, and with it and a facts file with a bad line; drift flagged only and --all."""
    seen = _answered(EvalResult, monkeypatch)
    plain = _as_built(run_here(home, rq.EvalRequest(sample=0), clock=CLOCK), seen)
    assert plain.recall_yield is None and plain.levels and plain.provider is not None
    facts = tmp_path / "facts.jsonl"
    facts.write_text(json.dumps({"fact": "The lantern is kept in the garden shed.", "day": "2026-03-04"})
                     + "\nnot json\n")
    sampled = _as_built(run_here(home, rq.EvalRequest(sample=1, facts=str(facts)), clock=CLOCK), seen)
    assert sampled.recall_yield is not None and sampled.recall_yield.levels
    assert sampled.facts.skipped == 1 and sampled.facts.file == str(facts)
    seen = _answered(DriftResult, monkeypatch)
    flagged = _as_built(run_here(home, rq.DriftRequest(), clock=CLOCK), seen)
    assert flagged.nodes is None and flagged.to_json()["nodes"] is None
    every = _as_built(run_here(home, rq.DriftRequest(all=True), clock=CLOCK), seen)
    assert every.nodes is not None and every.nodes_compared == len(every.nodes)
    node = DriftedNode(node="L1:a:2026-03-04", level=1, versions=2, steps=(DriftStep(from_seq=3, to_seq=9),))
    moved = replace(every, nodes=(node,), flagged=(node,))
    assert DriftResult.from_json(json.loads(_text(moved.to_json()))) == moved


def test_forget_and_compact_print_each_outcomes_answer(spare: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget: a dry run, a real one read from --before, the same again; compact: a dry run, a compaction,
    one with nothing left (its ``backup`` null) and the confirmation (other keys altogether)."""
    seen = _answered(ForgetResult, monkeypatch)
    dry = _as_built(run_here(spare, rq.ForgetRequest(conversation="claude-code:s2", dry_run=True), clock=CLOCK), seen)
    assert dry.dry_run and dry.seq is None and "seq" not in dry.to_json() and dry.rule.conversation
    real = _as_built(run_here(spare, rq.ForgetRequest(before="2026-03-05"), clock=CLOCK), seen)
    assert real.seq and real.already_forgotten is False and real.before_read and real.messages == 3
    again = _as_built(run_here(spare, rq.ForgetRequest(before="2026-03-05"), clock=CLOCK), seen)
    assert again.already_forgotten is True and again.to_json()["seq"] is None
    seen = _answered(CompactResult, monkeypatch)
    planned = _as_built(run_here(spare, rq.CompactRequest(dry_run=True), clock=CLOCK), seen)
    assert planned.dry_run and planned.to_json()["backup"] is None and planned.rewritten
    compacted = _as_built(run_here(spare, rq.CompactRequest(), clock=CLOCK), seen)
    assert compacted.backup and compacted.deleted is None
    idle = _as_built(run_here(spare, rq.CompactRequest(), clock=CLOCK), seen)
    assert idle.dry_run is False and idle.to_json()["backup"] is None
    confirmed = _as_built(run_here(spare, rq.CompactRequest(confirm=True), clock=CLOCK), seen)
    assert list(confirmed.to_json()) == ["deleted", "scrubbed"] and confirmed.deleted == (compacted.backup,)


def test_sync_init_and_status_print_each_outcomes_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Status off and on (no hub reached: the lag from the files); init of a new key (its passphrase), and
    of the one already here (none)."""
    root = tmp_path / "home"
    root.mkdir()
    (root / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n'
                                        '[sync]\nmachine = "desk"\n')
    settings = load_settings(root)
    seen = _answered(SyncStatusResult, monkeypatch)
    off = _as_built(run_here(settings, rq.SyncStatusRequest()), seen)
    assert list(off.to_json()) == ["enabled", "machine", "key"] and off.machine == "desk"
    seen_init = _answered(SyncInitResult, monkeypatch)
    made = _as_built(run_here(settings, rq.SyncInitRequest()), seen_init)
    assert made.created and made.passphrase and list(made.to_json())[-1] == "passphrase"
    kept = _as_built(run_here(settings, rq.SyncInitRequest()), seen_init)
    assert not kept.created and kept.passphrase is None and kept.key_id == made.key_id
    (root / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n'
                                        '[sync]\nmachine = "desk"\nurl = "postgresql://me@127.0.0.1:1/hub"\n')
    run_here(load_settings(root), rq.IngestRequest(paths=()))
    on = _as_built(run_here(load_settings(root), rq.SyncStatusRequest()), seen)
    assert on.enabled and on.key and on.to_push == 0 and on.last_success == "" and on.error is None


def test_a_sync_round_and_a_reload_read_back_what_they_wrote() -> None:
    """The round's report (three transfers, a skipped row) and the daemon's reload reply, with and
    without ``web_problem``, read back from their JSON text unchanged (the real ones: tests/sync, tests/daemon)."""
    transfer = {"seen": 3, "new": 1, "skipped": 1, "skipped_rows": [{"seq": 7, "event_id": "e", "reason": "bad"}],
                "new_types": {"MessageRecorded": 1}}
    report = {"machine": "desk", "hub": "postgresql://me@hub/db", "push": transfer, "pull": transfer,
              "forgotten_pushed": 0, "forgotten": transfer, "seconds": 0.25}
    for result_type, answer in ((SyncResult, report),
                                (ReloadResult, {"reloaded": True, "config_file": "/h/tapestry.toml",
                                                "restart_needed": [], "warnings": ["w"], "web": None}),
                                (ReloadResult, {"reloaded": True, "config_file": "/h/tapestry.toml",
                                                "restart_needed": ["timezone"], "warnings": [],
                                                "web": "http://127.0.0.1:8765", "web_problem": "port in use"})):
        _as_built(result_type.from_json(answer), [answer])
    assert SyncResult.from_json(report).pull.skipped_rows[0].reason == "bad"
