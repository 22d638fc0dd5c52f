"""Messages carry the machine that captured them: search, context and status filter and show it."""

from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest
from query_helpers import NOW, History

from tapestryd.cli.fast import render_status
from tapestryd.cli.render import render_hits
from tapestryd.clock import FixedClock
from tapestryd.errors import TapestryError
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.base import ReadDeps
from tapestryd.operations.control import status
from tapestryd.operations.query import context, search
from tapestryd.operations.requests import ContextRequest, SearchRequest, StatusRequest
from tapestryd.operations.runtime import Runtime
from tapestryd.queries.reader import Reader


def write(history: History) -> None:
    """Two machines' messages about a deploy in one log (the desk's as sync copies them), and a summary."""
    events = []
    for n, machine in enumerate(["laptop", "desk", "desk", ""]):  # "" is this machine: [sync] machine
        at = NOW - timedelta(minutes=50 - n)
        body = MessageRecorded(f"claude-code:s{n}", f"m{n}", "user", f"deploy the service, step {n}", format_utc(at))
        events.append(NewEvent(event_id("machine-test", str(n)), body, at, "claude-code", f"t#{n}", origin=machine))
    history.pending.extend(events)
    history.summary("L1:claude-code:2026-03-04", "Deploy day", "We planned the deploy of the service.")
    history.commit()


def ask(history: History, request: object) -> dict[str, object]:
    with Reader.open(history.settings) as reader:
        deps = ReadDeps(reader, FixedClock(NOW))
        handler = {SearchRequest: search, ContextRequest: context, StatusRequest: status}[type(request)]
        return handler(request, deps).to_json()  # type: ignore[operator, no-any-return]


def test_search_hits_name_their_machine_and_the_filter_keeps_one(history: History) -> None:
    """Every message hit has its origin; --machine keeps that machine's messages and leaves summaries out."""
    write(history)
    here = history.settings.sync.machine
    everything = ask(history, SearchRequest(query="deploy service", limit=20))
    hits = everything["hits"]
    assert isinstance(hits, list)
    assert sorted(h["origin"] for h in hits if h["kind"] == "message") == sorted(["laptop", "desk", "desk", here])
    assert any(h["kind"] == "summary" and h["origin"] == "" for h in hits)
    desk = ask(history, SearchRequest(query="deploy service", machine="desk", limit=20))["hits"]
    assert isinstance(desk, list)
    assert {(h["kind"], h["conversation"], h["origin"]) for h in desk} == {
        ("message", "claude-code:s1", "desk"), ("message", "claude-code:s2", "desk")}
    assert "claude-code@desk  user" in render_hits({"hits": desk})
    with pytest.raises(TapestryError, match="no machine named 'nowhere'; known: desk, laptop"):  # a typo, named
        ask(history, SearchRequest(query="deploy", machine="nowhere"))


def test_context_filters_raw_messages_by_machine_and_names_machines_when_several(history: History) -> None:
    """Today's raw messages keep their origin; with several machines each line says which."""
    write(history)
    whole = ask(history, ContextRequest(recent=10))
    assert "claude-code@laptop user: deploy the service, step 0" in str(whole["rendered"])
    only = ask(history, ContextRequest(recent=10, machine="laptop", format="json"))
    raw = [i for i in only["items"] if i["level"] == "raw"]  # type: ignore[union-attr]
    assert [(i["origin"], i["key"]) for i in raw] == [("laptop", "claude-code:s0/m0")]
    assert only["machine"] == "laptop"
    single = ask(history, ContextRequest(recent=10, machine="desk"))
    assert "claude-code user: deploy the service, step 1" in str(single["rendered"])  # one machine: no names


def test_status_counts_messages_per_machine(history: History) -> None:
    """The store section counts each machine's messages, most first."""
    write(history)
    store = ask(history, StatusRequest())["store"]
    assert isinstance(store, dict)
    here = history.settings.sync.machine
    assert store["machines"] == dict(sorted({"desk": 2, "laptop": 1, here: 1}.items(), key=lambda kv: (-kv[1], kv[0])))
    assert "machines: desk 2 messages" in render_status({"store": store})


def test_a_projection_made_before_origins_is_filled_as_a_rebuild_fills_it(history: History) -> None:
    """A messages table without origin gets the column from its events' origins: the rows equal a rebuild's."""
    write(history)
    db = history.settings.data_dir / "projections.db"
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX messages_origin")
        conn.execute("ALTER TABLE messages DROP COLUMN origin")
    with Reader.open(history.settings) as reader:  # read-only, before any writer: search still answers
        hits = search(SearchRequest(query="deploy"), ReadDeps(reader, FixedClock(NOW))).to_json()["hits"]
        assert {h["origin"] for h in hits} == {""}
    with Runtime.open(history.settings) as runtime:  # a writer opens the projector: the column is filled
        filled = runtime.projector.conn.execute("SELECT * FROM messages ORDER BY id").fetchall()
        runtime.projector.rebuild()
        rebuilt = runtime.projector.conn.execute("SELECT * FROM messages ORDER BY id").fetchall()
    assert filled == rebuilt and {row[-1] for row in filled} == {"laptop", "desk", history.settings.sync.machine}
