"""A forget line rule that covers one line of a message written over several lines removes the whole message from
the raw archive: every version now, the parts captured later (after a restart too), as the projections forget it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tapestryd.config import Settings, load_settings
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.paths import paths_for
from tapestryd.sources.archive import ArchiveHook, ArchiveStore, archive_for, follow_forgotten
from tapestryd.sources.tailer import Tailer

SESSION = "5c0ffee0-0000-4000-8000-000000000001"


def part(n: int, message: str, block: dict[str, object], *, second: int = 0) -> bytes:
    """One Claude Code record of a streamed assistant message: one content block, the message's ``message.id`` and
    ``requestId``, a uuid of its own (the shape Claude Code 2.x writes, as in the corpus' sidechain session)."""
    record = {"parentUuid": f"u{n - 1}", "isSidechain": False, "type": "assistant", "uuid": f"u{n}",
              "sessionId": SESSION, "timestamp": f"2026-03-04T10:00:{second:02d}.000Z", "requestId": f"req_{message}",
              "message": {"id": f"msg_{message}", "type": "message", "role": "assistant",
                          "model": "claude-sonnet-4-5", "content": [block]}}
    return json.dumps(record).encode() + b"\n"


def prompt(n: int, text: str) -> bytes:
    """A user turn (no ``message.id``: a message of one line, keyed by its uuid)."""
    record = {"parentUuid": f"u{n - 1}", "type": "user", "uuid": f"u{n}", "sessionId": SESSION,
              "timestamp": "2026-03-04T09:59:00.000Z", "message": {"role": "user", "content": text}}
    return json.dumps(record).encode() + b"\n"


def thinking(text: str) -> dict[str, object]:
    return {"type": "thinking", "thinking": text, "signature": "c2ln"}


def text(words: str) -> dict[str, object]:
    return {"type": "text", "text": words}


def tool(n: int, command: str) -> dict[str, object]:
    return {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": command}}


# msg_A: four records, only the text one holds the word; msg_B: another reply of two records.
ASKED = prompt(1, "where did we put the notes?")
A = [part(2, "A", thinking("looking through the folders")), part(3, "A", tool(3, "ls ~/notes")),
     part(4, "A", text("they are in the quokka folder")), part(5, "A", tool(5, "cat ~/notes/index"))]
B = [part(6, "B", thinking("summing up")), part(7, "B", text("anything else?"))]


@pytest.fixture
def tailer(runtime: Runtime, archive: ArchiveHook) -> Tailer:
    return Tailer(runtime.store, agent="claude-code", archive=archive)


@pytest.fixture
def folder(home: Path) -> Path:
    path = home / "claude-projects" / "-home-me-proj"
    path.mkdir(parents=True)
    return path


def versions(settings: Settings, path: Path) -> list[bytes]:
    """The kept bytes of every archived version of ``path`` holding bytes, oldest first."""
    with ArchiveStore(paths_for(settings).archive_db, readonly=True) as db:
        return [b"".join(db.read(f.id)) for f in db.versions(str(path)) if f.state in ("current", "replaced")]


def grow(tailer: Tailer, path: Path, *lines: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(b"".join(lines))
    tailer.tail(str(path))


def forget(rt: Runtime, **args: object) -> Any:
    return run_json("forget", rt, args)


def test_every_record_of_the_message_leaves_every_version_and_the_dry_run_counts_them(
        settings: Settings, runtime: Runtime, tailer: Tailer, folder: Path) -> None:
    """One record of msg_A holds the word; its three others go too, also from a newer version whose lines of msg_A
    hold no word; msg_B and the user turn stay byte for byte; the dry run says the same numbers."""
    path = folder / f"{SESSION}.jsonl"
    grow(tailer, path, ASKED, *A[:3])
    path.write_bytes(A[3] + B[0])  # rewritten in place (another head): a second version
    tailer.tail(str(path))
    grow(tailer, path, B[1])
    assert versions(settings, path) == [ASKED + b"".join(A[:3]), A[3] + B[0] + B[1]]
    preview = forget(runtime, match="quokka", dry_run=True)
    assert preview["archive"] == {"events": 0, "dropped": 0, "rewritten": 2, "lines": 4}
    assert versions(settings, path)[1] == path.read_bytes()
    result = forget(runtime, match="quokka")
    assert result["archive"] == {"events": 1, "dropped": 0, "rewritten": 2, "lines": 4}
    assert versions(settings, path) == [ASKED, B[0] + B[1]]


def test_a_later_part_of_the_forgotten_message_is_not_archived_also_after_a_restart(
        settings: Settings, runtime: Runtime, tailer: Tailer, archive: ArchiveHook, folder: Path) -> None:
    """Parts of msg_A streamed after the forget hold no word; they are not kept, by this archive nor by one opened
    again on the same file (the daemon restarted); msg_B's records captured meanwhile are."""
    path = folder / f"{SESSION}.jsonl"
    grow(tailer, path, ASKED, *A[:3])
    forget(runtime, match="quokka")
    assert versions(settings, path) == [ASKED]
    grow(tailer, path, A[3], B[0])
    assert versions(settings, path) == [ASKED + B[0]]
    archive.close()
    restarted = archive_for(load_settings(settings.home))
    assert restarted is not None
    try:
        late = part(8, "A", text("one more line of that reply"))
        grow(Tailer(runtime.store, agent="claude-code", archive=restarted), path, late, B[1])
    finally:
        restarted.close()
    assert versions(settings, path) == [ASKED + B[0] + B[1]]


def test_a_rule_in_force_takes_the_parts_archived_before_the_covered_one(
        settings: Settings, runtime: Runtime, tailer: Tailer, folder: Path) -> None:
    """The rule came first; msg_A's first records (no word) are archived, then its record with the word arrives:
    the earlier records of the message leave the archive with it."""
    path = folder / f"{SESSION}.jsonl"
    grow(tailer, path, ASKED)
    forget(runtime, match="quokka")
    grow(tailer, path, A[0], A[1])
    assert versions(settings, path) == [ASKED + A[0] + A[1]]
    grow(tailer, path, A[2], B[0])
    assert versions(settings, path) == [ASKED + B[0]]
    grow(tailer, path, A[3], B[1])
    assert versions(settings, path) == [ASKED + B[0] + B[1]]


def test_re_applying_the_rule_removes_nothing_more(settings: Settings, runtime: Runtime, tailer: Tailer,
                                                   archive: ArchiveHook, folder: Path) -> None:
    """Followed again from the start (a crash before the checkpoint moved, a restored log), the rule finds no line
    of msg_A left and the archive stays as it was."""
    path = folder / f"{SESSION}.jsonl"
    grow(tailer, path, ASKED, *A, *B)
    forget(runtime, match="quokka")
    before = versions(settings, path)
    assert before == [ASKED + b"".join(B)]
    archive.archive.store.set_checkpoint(0, "")
    again = follow_forgotten(archive.archive.store, runtime.store)
    assert (again.events, again.rewritten, again.lines) == (1, 0, 0)
    assert versions(settings, path) == before


def test_the_versions_of_a_gemini_record_go_with_the_one_that_holds_the_word(home: Path, folder: Path) -> None:
    """Gemini CLI appends a message record again, whole, as it changes (same id): the word only in its last
    version's text takes the earlier versions too, and a ``$set`` checkpoint holding an earlier copy of it; a
    checkpoint the rule covers does not reach the other records it holds; those records, the title and the header
    stay."""
    (home / "tapestry.toml").write_text((home / "tapestry.toml").read_text() + "[archive]\ngemini = true\n")
    settings = load_settings(home)
    path = folder / "session-2026-03-04T10-00-5c0ffee0.jsonl"
    header = json.dumps({"sessionId": "g-1", "projectHash": "ab12", "startTime": "2026-03-04T10:00:00.000Z",
                         "lastUpdated": "2026-03-04T10:00:00.000Z", "messages": []}).encode() + b"\n"

    def record(rid: str, kind: str, content: str, **extra: object) -> dict[str, object]:
        return {"id": rid, "timestamp": "2026-03-04T10:00:01.000Z", "type": kind, "content": content, **extra}

    def line(value: dict[str, object]) -> bytes:
        return json.dumps(value).encode() + b"\n"

    asked, other = record("r1", "user", "where are the notes?"), record("r3", "user", "thanks")
    early = [record("r2", "gemini", "", thoughts=[{"subject": "Looking", "description": "through folders"}]),
             record("r2", "gemini", "", toolCalls=[{"id": "c1", "name": "ls", "args": {"path": "~/notes"}}])]
    final = record("r2", "gemini", "in the quokka folder", toolCalls=[{"id": "c1", "name": "ls"}])
    before = line({"$set": {"messages": [asked, early[1]]}})  # a checkpoint written before the word came
    after = line({"$set": {"messages": [asked, final]}})  # the rule covers it: it goes, r1 is not reached
    title = line({"$set": {"summary": "Finding the notes"}})
    with Runtime.open(settings) as rt:
        hook = archive_for(settings)
        assert hook is not None
        try:
            grow(Tailer(rt.store, agent="claude-code", archive=hook), path, header, line(asked), line(early[0]),
                 before, line(early[1]), line(final), after, title, line(other))
            assert versions(settings, path) == [path.read_bytes()]
            assert run_json("forget", rt, {"match": "quokka"})["archive"]["lines"] == 5
        finally:
            hook.close()
    assert versions(settings, path) == [header + line(asked) + title + line(other)]


def test_a_streamed_reply_of_a_real_session_goes_whole(settings: Settings, runtime: Runtime, tailer: Tailer,
                                                       corpus: Path) -> None:
    """In a session Claude Code 2.0.46 wrote (read in place), msg_017zj… is a text record then a tool_use record;
    the words only its text holds take both records out of the archive, and no other line."""
    path = corpus / "claude-code" / "daaain-sidechain_integrated-v2.0.46.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    parts = [n for n, raw in enumerate(lines) if b'"id": "msg_017zj75dqWUNqVxCUrhqbTkf"' in raw]
    assert len(parts) == 2 and sum(b"how `data-border" in lines[n] for n in parts) == 1
    tailer.tail(str(path))
    assert forget(runtime, match="how `data-border")["archive"] == {"events": 1, "dropped": 0, "rewritten": 1,
                                                                    "lines": 2}
    assert versions(settings, path) == [b"".join(raw for n, raw in enumerate(lines) if n not in parts)]
