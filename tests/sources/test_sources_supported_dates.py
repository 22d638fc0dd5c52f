"""Timestamps outside the stored dates (1970-01-02 … 2999-12-30 UTC) are reported and skipped at import.

Year 9999 overflowed week arithmetic in the hierarchy and year 1 closed 740,000 days: such a
message must never reach the log, and the rest of its file must still import.
"""

from __future__ import annotations

import json
from pathlib import Path

from sources_helpers import ingest

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.paths import paths_for
from tapestryd.projections import Projector, default_projections

RANGE = "outside the dates tapestryd stores, 1970-01-02 to 2999-12-30 UTC"


def _claude_ai(path: Path, stamps: list[str]) -> Path:
    messages = [{"uuid": f"m{i}", "text": f"said at {ts}", "content": [{"type": "text", "text": f"said at {ts}"}],
                 "sender": "human", "created_at": ts} for i, ts in enumerate(stamps)]
    path.write_text(json.dumps([{"uuid": "c1", "name": "dates", "created_at": "2024-01-01T00:00:00Z",
                                 "updated_at": "2024-01-01T00:00:00Z", "chat_messages": messages}]))
    return path


def _session(path: Path, stamps: list[str]) -> Path:
    lines = [{"type": "user", "uuid": f"u{i}", "sessionId": "s1", "timestamp": ts,
              "message": {"role": "user", "content": f"said at {ts}"}} for i, ts in enumerate(stamps)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _chatgpt(path: Path, epoch: float) -> Path:
    node = {"id": "n1", "parent": None, "children": [], "message": {
        "id": "n1", "author": {"role": "user"}, "create_time": epoch, "content": {"content_type": "text",
                                                                                 "parts": ["far away"]}}}
    path.write_text(json.dumps([{"id": "c1", "title": "t", "create_time": epoch, "current_node": "n1",
                                 "mapping": {"n1": node}}]))
    return path


def test_out_of_range_messages_are_errors_and_the_rest_imports(store: EventStore, settings: Settings,
                                                               tmp_path: Path) -> None:
    """Claude.ai year 9999 and year 1, a Claude Code line of year 9999, a ChatGPT epoch of year 9999:
    each named with its location; the in-range messages import and the projections catch up."""
    receipt = ingest(store, settings,
                     _claude_ai(tmp_path / "claude.json", ["9999-12-31T23:59:00Z", "0001-01-01T00:00:00Z",
                                                          "2024-01-01T00:01:00Z", "2999-12-31T23:30:00Z"]),
                     _session(tmp_path / "s1.jsonl", ["9999-12-31T23:59:00Z", "2024-01-01T00:00:00Z",
                                                     "0001-01-01T00:00:00.000+01:00", "9999-12-31T23:59:59-05:00"]),
                     _chatgpt(tmp_path / "conversations.json", 253402300000.0))
    errors = [e for f in receipt["files"] for e in f["errors"]]
    assert f"{tmp_path / 'claude.json'}#c1/m0: created_at '9999-12-31T23:59:00Z' is {RANGE}" in errors
    assert f"{tmp_path / 'claude.json'}#c1/m1: created_at '0001-01-01T00:00:00Z' is {RANGE}" in errors
    assert f"{tmp_path / 'claude.json'}#c1/m3: created_at '2999-12-31T23:30:00Z' is {RANGE}" in errors
    assert f"{tmp_path / 's1.jsonl'}:line 1: timestamp '9999-12-31T23:59:00Z' is {RANGE}" in errors
    assert f"{tmp_path / 's1.jsonl'}:line 3: timestamp '0001-01-01T00:00:00.000+01:00' is {RANGE}" in errors
    assert f"{tmp_path / 's1.jsonl'}:line 4: timestamp '9999-12-31T23:59:59-05:00' is {RANGE}" in errors
    assert f"{tmp_path / 'conversations.json'}#c1/n1: create_time 253402300000.0 is {RANGE}" in errors
    assert receipt["totals"]["messages_new"] == 2
    projector = Projector(store, paths_for(settings).projections_db, default_projections("UTC", 0))
    projector.catch_up()
    assert projector.lag() == {name: 0 for name in projector.lag()}
