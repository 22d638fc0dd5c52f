"""Line ends a session file may have: CR only, CRLF, a head of blank lines; U+2028 is text, not an end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sources_helpers import ingest, rows

from tapestryd.config import Settings
from tapestryd.events.store import EventStore
from tapestryd.projections import Projector
from tapestryd.sources.tailer import Tailer

SESSION = "c4c4-0000-4000-8000-00000000000c"


def records(*texts: str) -> list[bytes]:
    out = []
    for n, text in enumerate(texts):
        role = "user" if n % 2 == 0 else "assistant"
        rec = {"type": role, "sessionId": SESSION, "uuid": f"u{n}", "timestamp": f"2026-05-01T09:00:0{n}Z",
               "message": {"role": role, "content": text}}
        out.append(json.dumps(rec, ensure_ascii=False).encode("utf-8"))
    return out


def session_file(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "projects" / "p" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def texts(projector: Projector) -> list[str]:
    projector.catch_up()
    return [t for (t,) in rows(projector.conn, "SELECT text FROM messages ORDER BY ts")]


@pytest.mark.parametrize("end", [b"\r", b"\r\n", b"\n"], ids=["cr", "crlf", "lf"])
def test_every_line_end_imports_every_line(end: bytes, tmp_path: Path, store: EventStore, settings: Settings,
                                           projector: Projector) -> None:
    """Old-Mac CR-only ends used to read as one unfinished line: nothing imported, no error."""
    path = session_file(tmp_path, end.join(records("Hello", "Hi there", "Bye")) + end)
    receipt = ingest(store, settings, path)
    assert (receipt["totals"]["messages_new"], receipt["totals"]["errors"]) == (3, 0)
    assert texts(projector) == ["Hello", "Hi there", "Bye"]


def test_a_file_starting_with_64_kb_of_blank_lines_imports(tmp_path: Path, store: EventStore, settings: Settings,
                                                           projector: Projector) -> None:
    """The format is told from the first bytes that are not blank (before: an 'empty export', nothing imported)."""
    path = session_file(tmp_path, b"\n" * (64 << 10) + b"\n".join(records("After the gap", "Still here")) + b"\n")
    receipt = ingest(store, settings, path)
    assert receipt["files"][0]["parser"] == "claude-code"
    assert texts(projector) == ["After the gap", "Still here"]


def test_line_and_paragraph_separators_inside_a_string_stay_text(tmp_path: Path, store: EventStore,
                                                                 settings: Settings, projector: Projector) -> None:
    """Raw U+2028/U+2029 in a JSON string: one message, read whole or tailed, and the prompt's title keeps them."""
    text = "first\u2028second\u2029third"
    data = b"\n".join(records(text, "ok")) + b"\n"
    path = session_file(tmp_path, data)
    Tailer(store, agent="claude-code").tail(str(path))
    ingest(store, settings, session_file(tmp_path / "copy", data))
    assert texts(projector) == [text, "ok"]
    assert rows(projector.conn, "SELECT title FROM conversations") == [(text,)]


AGENTS = Path(__file__).resolve().parents[1] / "fixtures" / "agents"


@pytest.mark.parametrize("fixture", ["codex/rollout-2026-03-02T09-00-00-11111111-2222-4333-8444-555555555555.jsonl",
                                     "gemini/session-2026-03-04T08-00-5e551000.jsonl"], ids=["codex", "gemini-cli"])
def test_codex_and_gemini_files_with_cr_only_ends_import_as_with_lf(fixture: str, tmp_path: Path,
                                                                    store: EventStore, settings: Settings,
                                                                    projector: Projector) -> None:
    """The same rollout or chat with its LF ends turned into lone CRs imports the same messages."""
    source = AGENTS / fixture
    lf = ingest(store, settings, source)["totals"]["messages_new"]
    projector.catch_up()
    before = rows(projector.conn, "SELECT COUNT(*) FROM messages")
    cr = tmp_path / "cr" / source.name
    cr.parent.mkdir()
    cr.write_bytes(source.read_bytes().replace(b"\n", b"\r"))
    receipt = ingest(store, settings, cr)
    assert lf > 0 and receipt["totals"]["errors"] == 0
    assert receipt["totals"]["messages_known"] == lf and receipt["totals"]["messages_new"] == 0
    projector.catch_up()
    assert rows(projector.conn, "SELECT COUNT(*) FROM messages") == before


@pytest.mark.parametrize("end", [b"\r", b"\r\n"], ids=["cr", "crlf"])
def test_a_growing_file_with_cr_ends_is_tailed(end: bytes, tmp_path: Path, store: EventStore,
                                               projector: Projector) -> None:
    """The tailer cuts lines at a lone CR too (before: a CR-only file was never captured live, no error);
    a CRLF whose LF arrives in a later append is read once."""
    lines = records("Hello", "Hi there", "Bye")
    path = session_file(tmp_path, lines[0] + end + lines[1] + b"\r")
    tailer = Tailer(store, agent="claude-code")
    tailer.tail(str(path))
    with path.open("ab") as fh:
        fh.write(end[1:] + lines[2] + end)
    tailer.tail(str(path))
    Tailer(store, agent="claude-code").tail(str(path))  # a restarted daemon: nothing more
    assert texts(projector) == ["Hello", "Hi there", "Bye"]
