"""Sync when things go wrong: a wrong key, bad hub rows, the hub down or restarted mid-round."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pgcluster import PgCluster
from sync_helpers import capture, event_ids, log_rows, make_home, search, sync_here, write_session

from tapestryd.cli.sync_cmds import render_round, render_status
from tapestryd.errors import SyncError
from tapestryd.events.codec import EVENT_TYPES
from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import SyncStatusRequest
from tapestryd.operations.results import SyncResult, SyncStatusResult
from tapestryd.operations.shape import undeclared
from tapestryd.paths import paths_for
from tapestryd.sync.crypto import Opened, Sealer, load_key, new_key
from tapestryd.sync.hub import Hub


def _status(settings: object) -> dict[str, object]:
    return dict(run_here(settings, SyncStatusRequest()).to_json())  # type: ignore[arg-type]


def test_a_machine_with_another_key_is_refused_and_keeps_its_log(tmp_path: Path, hub_url: str) -> None:
    laptop, _ = make_home(tmp_path, "laptop", hub_url)
    capture(laptop, write_session(tmp_path / "a", "s-a", ["alpha one", "alpha two"]))
    sync_here(laptop)
    stranger, _ = make_home(tmp_path, "stranger", hub_url)  # its own new key, not the laptop's
    capture(stranger, write_session(tmp_path / "b", "s-b", ["beta one"]))
    before = log_rows(stranger)
    with pytest.raises(SyncError, match="sealed with key"):
        sync_here(stranger)
    assert log_rows(stranger) == before
    status = _status(stranger)
    assert "sealed with key" in status["last_error"]["message"] and status["to_push"] > 0  # type: ignore[index,operator]
    typed = SyncStatusResult.from_json(status)
    assert json.dumps(typed.to_json()) == json.dumps(status) and undeclared(typed) == []
    assert "last error: " in render_status(typed) and "sealed with key" in render_status(typed)
    with Hub(hub_url) as hub:
        assert all(row.origin == "laptop" for row in hub.rows_after(0, 1000)[1])


def test_bad_hub_rows_are_reported_and_skipped(tmp_path: Path, hub_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    capture(laptop, write_session(tmp_path / "a", "s-a", ["good message kiwi"]))
    sync_here(laptop)
    sealer = Sealer(load_key(paths_for(laptop).sync_key))
    envelope = {"origin": "future", "schema": 1, "occurred_at": "2026-03-04T10:00:00.000000Z"}

    def sealed(event_id: str, type_name: str, payload: str, key_sealer: Sealer = sealer) -> dict[str, object]:
        box = key_sealer.seal(event_id, "future", type_name, 1, envelope["occurred_at"],  # type: ignore[arg-type]
                              Opened("x", "y", payload, ""))
        return {"event_id": event_id, "type": type_name, **envelope, "key_id": box.key_id, "nonce": box.nonce,
                "ciphertext": box.ciphertext}

    bad = [
        sealed("unknown-type", "MessageTranslated", json.dumps({"text": "hola"})),
        sealed("not-json", "ConversationTitled", "{not json"),
        sealed("missing-field", "ConversationTitled", json.dumps({"title": "no conversation"})),
        sealed("other-key", "ConversationTitled", json.dumps({"conversation": "c", "title": "t"}), Sealer(new_key())),
        {**sealed("garbled", "ConversationTitled", json.dumps({"conversation": "c", "title": "t"})),
         "ciphertext": b"\x00" * 40},
        {**sealed("bad-time", "ConversationTitled", json.dumps({"conversation": "c", "title": "t"})),
         "occurred_at": "yesterday"},
    ]
    with Hub(hub_url) as hub:
        hub.push("future", bad, 6)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    built: list[str] = []
    read = SyncResult.from_json
    monkeypatch.setattr(SyncResult, "from_json", lambda value: built.append(json.dumps(value)) or read(value))
    report = sync_here(desktop)
    assert json.dumps(report) == built[-1] and undeclared(read(report)) == []  # the round's own report, key for key
    assert read(json.loads(built[-1])) == read(report) and "hub row" in render_round(read(report))
    reasons = {row["event_id"]: row["reason"] for row in report["pull"]["skipped_rows"]}
    assert report["pull"]["skipped"] == len(bad) == len(reasons)
    assert "unknown event type 'MessageTranslated'" in reasons["unknown-type"]
    assert "does not decode" in reasons["not-json"] and "does not decode" in reasons["missing-field"]
    assert "another key" in reasons["other-key"] and "does not open" in reasons["garbled"]
    assert "does not open" in reasons["bad-time"]  # the envelope is bound to the ciphertext
    assert search(desktop, "kiwi")  # the good rows came in
    assert _status(desktop)["skipped_total"] == len(bad)
    assert sync_here(desktop)["pull"]["skipped"] == 0  # passed over once, not every round


def test_hub_rows_whose_fields_have_the_wrong_types_are_skipped_and_projections_go_on(tmp_path: Path,
                                                                                      hub_url: str) -> None:
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    capture(laptop, write_session(tmp_path / "a", "s-a", ["good message kiwi"]))
    sync_here(laptop)
    sealer = Sealer(load_key(paths_for(laptop).sync_key))
    good = {"conversation": "claude-code:evil", "message": "m", "role": "user", "text": "mango words",
            "timestamp": "2026-03-04T10:00:00Z"}
    cases = {"text-int": ("MessageRecorded", {**good, "message": "m1", "text": 123}),
             "role-dict": ("MessageRecorded", {**good, "message": "m2", "role": {"x": 1}}),
             "conversation-null": ("MessageRecorded", {**good, "message": "m3", "conversation": None}),
             "skipped-str": ("MessageRecorded", {**good, "message": "m4", "skipped": {"a": "b"}}),
             "meta-list": ("MessageRecorded", {**good, "message": "m5", "meta": [1]}),
             "level-bool": ("NodeSummarized", {"node": "n", "level": True, "fingerprint": "f", "provider": "p",
                                               "model": "m", "prompt_version": "1", "title": "t", "text": "x"}),
             "title-list": ("ConversationTitled", {"conversation": "c", "title": ["t"]})}
    occurred = "2026-03-04T10:00:00.000000Z"
    rows = []
    for event_id, (type_name, payload) in cases.items():
        schema = EVENT_TYPES[type_name].schema
        box = sealer.seal(event_id, "future", type_name, schema, occurred, Opened("x", "y", json.dumps(payload), ""))
        rows.append({"event_id": event_id, "origin": "future", "type": type_name, "schema": schema,
                     "occurred_at": occurred, "key_id": box.key_id, "nonce": box.nonce, "ciphertext": box.ciphertext})
    odd = {**good, "message": "m6", "text": "guava odd time", "timestamp": "yesterday-ish"}  # search parses it
    box = sealer.seal("odd-time", "future", "MessageRecorded", 2, occurred, Opened("x", "y", json.dumps(odd), ""))
    rows.append({**rows[0], "event_id": "odd-time", "type": "MessageRecorded", "nonce": box.nonce,
                 "ciphertext": box.ciphertext})
    cases["odd-time"] = ("MessageRecorded", odd)
    newer = {**good, "message": "m8", "text": "guava from a newer schema"}
    box = sealer.seal("schema-newer", "future", "MessageRecorded", 9, occurred, Opened("x", "y", json.dumps(newer), ""))
    rows.append({**rows[0], "event_id": "schema-newer", "type": "MessageRecorded", "schema": 9, "nonce": box.nonce,
                 "ciphertext": box.ciphertext})
    cases["schema-newer"] = ("MessageRecorded", newer)
    fine = {**good, "message": "m7", "text": "guava fine", "timestamp": "2026-03-04T10:00:00+02:00"}
    box = sealer.seal("fine", "future", "MessageRecorded", 2, occurred, Opened("x", "y", json.dumps(fine), ""))
    rows.append({**rows[0], "event_id": "fine", "type": "MessageRecorded", "nonce": box.nonce,
                 "ciphertext": box.ciphertext})
    with Hub(hub_url) as hub:
        hub.push("future", rows, len(rows))
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    report = sync_here(desktop)
    reasons = {row["event_id"]: row["reason"] for row in report["pull"]["skipped_rows"]}
    assert set(reasons) == set(cases)
    assert search(desktop, "guava")
    assert "field text is int, not str" in reasons["text-int"]
    assert "field level is bool, not int" in reasons["level-bool"]
    assert "field timestamp 'yesterday-ish' is not an ISO instant" in reasons["odd-time"]
    assert "MessageRecorded schema 9 is newer than this version's 2" in reasons["schema-newer"]
    assert not set(cases) & set(event_ids(desktop))
    capture(desktop, write_session(tmp_path / "d", "s-d", ["later papaya"]))
    assert search(desktop, "kiwi") and search(desktop, "papaya")  # the projections were not wedged


def test_hub_down_capture_and_search_go_on_and_sync_catches_up(tmp_path: Path, hub_url: str,
                                                              pg_cluster: PgCluster) -> None:
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    capture(laptop, write_session(tmp_path / "a", "s-a", ["before the outage mango"]))
    sync_here(laptop)
    pg_cluster.stop()
    try:
        capture(laptop, write_session(tmp_path / "b", "s-b", ["during the outage papaya"]))
        assert search(laptop, "papaya")
        started = time.monotonic()
        with pytest.raises(SyncError, match="hub postgresql"):
            sync_here(laptop)
        assert time.monotonic() - started < 15
        status = _status(laptop)
        assert status["to_push"] == 4 and status["last_error"]  # a message, its title, two import receipts
    finally:
        pg_cluster.start()
    sync_here(laptop)
    assert _status(laptop)["to_push"] == 0
    sync_here(desktop)
    assert search(desktop, "papaya") and search(desktop, "mango")


def test_a_hub_restart_mid_round_loses_and_doubles_nothing(tmp_path: Path, hub_url: str,
                                                          pg_cluster: PgCluster) -> None:
    import threading

    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    for n in range(4):
        capture(laptop, write_session(tmp_path / "a", f"s-{n}", [f"restart {n} line {i}" for i in range(1500)]))
    failures: list[BaseException] = []

    def round_() -> None:
        try:
            sync_here(laptop, batch=100)  # sixty transactions: the restart lands among them
        except SyncError as exc:
            failures.append(exc)

    pusher = threading.Thread(target=round_)
    pusher.start()
    with Hub(hub_url) as hub:  # restart once the first rows are in, while the rest are on their way
        deadline = time.monotonic() + 60
        while hub.head() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        hub.close()
    pg_cluster.stop("immediate")
    pg_cluster.start()
    pusher.join(120)
    assert failures, "the restart came after the round had finished: nothing was tested"
    sync_here(laptop)
    sync_here(desktop)
    ids = event_ids(laptop)
    with Hub(hub_url) as hub:
        rows = hub.rows_after(0, 100_000)[1]
    assert sorted(r.event_id for r in rows) == sorted(ids)
    assert sorted(event_ids(desktop)) == sorted(ids) and len(set(event_ids(desktop))) == len(ids)
