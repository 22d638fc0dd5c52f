"""Counts shown to a person take the singular for one: "1 file", never "1 files"."""

from __future__ import annotations

from tapestryd.cli.render import render_receipt
from tapestryd.operations.results import IngestResult
from tapestryd.plural import counted


def test_one_is_singular_and_the_rest_plural() -> None:
    assert [counted(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert counted(1, "new message") == "1 new message" and counted(3, "new message") == "3 new messages"
    assert counted(2, "entry", "entries") == "2 entries" and counted(1, "entry", "entries") == "1 entry"


def test_the_ingest_total_reads_as_a_sentence() -> None:
    """'total: 1 new message, 0 already known, 1 error in 1 file' (it said '1 new messages … 1 errors in 1 files')."""
    receipt = IngestResult.from_json({"files": [], "failed": False, "totals": {
        "files": 1, "conversations_new": 1, "conversations_known": 0, "messages_new": 1, "messages_known": 0,
        "skipped": {}, "errors": 1}})
    assert render_receipt(receipt).endswith("total: 1 new message, 0 already known, 1 error in 1 file")
