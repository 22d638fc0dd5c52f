"""Claude Code lines that only look like a person's turn, and the title a session gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sources_helpers import ingest, rows

from tapestryd.config import Settings
from tapestryd.events.codec import decode
from tapestryd.events.store import EventStore
from tapestryd.events.types import ConversationTitled
from tapestryd.projections import Projector
from tapestryd.sources.parsers.claude_code_turns import prompt_title

SESSION = "7e57-0000-4000-8000-00000000000b"
CONV = f"claude-code:{SESSION}"


class Lines:
    """A session file written line by line, each line with its own uuid and a rising time."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, kind: str, **fields: Any) -> Lines:
        n = len(self.lines)
        record = {"type": kind, "sessionId": SESSION, "uuid": f"l{n}", "timestamp": f"2026-04-01T10:00:{n:02d}Z",
                  **fields}
        self.lines.append(json.dumps(record))
        return self

    def user(self, text: str, **fields: Any) -> Lines:
        return self.add("user", message={"role": "user", "content": text}, **fields)

    def assistant(self, text: str) -> Lines:
        n = len(self.lines)
        return self.add("assistant", message={"id": f"msg_{n}", "role": "assistant",
                                              "content": [{"type": "text", "text": text}]})

    def write(self, folder: Path) -> Path:
        path = folder / "projects" / "p" / f"{SESSION}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line + "\n" for line in self.lines), encoding="utf-8")
        return path


def user_texts(projector: Projector) -> list[str]:
    projector.catch_up()
    return [t for (t,) in rows(projector.conn, "SELECT text FROM messages WHERE role = 'user' ORDER BY ts")]


def title(projector: Projector) -> str:
    projector.catch_up()
    (found,), = rows(projector.conn, "SELECT title FROM conversations WHERE key = ?", CONV)
    return str(found)


def test_slash_command_envelopes_and_compact_summaries_are_not_turns(tmp_path: Path, store: EventStore,
                                                                     settings: Settings, projector: Projector) -> None:
    """Command and local-output envelopes, and both shapes of the compact summary, are skipped with a reason."""
    session = (Lines()
               .user("<command-name>/status</command-name>\n<command-message>status</command-message>\n"
                     "<command-args></command-args>")
               .user("<local-command-stdout>Model: opus\nCost: $0.10</local-command-stdout>")
               .user("This session is being continued from a previous conversation that ran out of context. "
                     "The conversation is summarized below: ...")
               .user("Summary of the earlier work", isCompactSummary=True)
               .user("Why does <command-name> show up in my logs?")
               .write(tmp_path))
    receipt = ingest(store, settings, session)
    assert user_texts(projector) == ["Why does <command-name> show up in my logs?"]
    skipped = receipt["files"][0]["skipped"]
    assert (skipped["slash-command"], skipped["compact-summary"]) == (2, 2)


def queued(prompt: Any, mode: str = "prompt", origin: str = "human") -> dict[str, Any]:
    return {"attachment": {"type": "queued_command", "prompt": prompt, "commandMode": mode,
                           "origin": {"kind": origin}}}


def test_a_queued_prompt_is_one_turn_whichever_copies_it_left(tmp_path: Path, store: EventStore,
                                                              settings: Settings, projector: Projector) -> None:
    """Queue bookkeeping repeats a prompt; an absorbed prompt exists only as an attachment; each counts once."""
    session = (Lines()
               .user("Refactor the loader")
               .add("queue-operation", operation="enqueue", content="also fix the tests")
               .add("queue-operation", operation="dequeue", content="also fix the tests")
               .user("also fix the tests")
               .add("queue-operation", operation="enqueue", content="and update the docs")
               .add("attachment", **queued("and update the docs"))
               .add("queue-operation", operation="remove", content="and update the docs")
               .user("and update the docs")
               .add("attachment", **queued([{"type": "text", "text": "check CI too"}]))
               .add("attachment", **queued("<task-notification>done</task-notification>", mode="task-notification"))
               .add("attachment", **queued("from a peer", origin="agent"))
               .write(tmp_path))
    receipt = ingest(store, settings, session)
    assert user_texts(projector) == ["Refactor the loader", "also fix the tests", "and update the docs",
                                     "check CI too"]
    assert receipt["files"][0]["skipped"]["queued-copy"] == 1


def test_a_session_is_titled_by_its_first_prompt_until_it_has_a_title(tmp_path: Path, store: EventStore,
                                                                      settings: Settings,
                                                                      projector: Projector) -> None:
    """No title record: the first prompt's first line (cut at a word); an ai-title then replaces it."""
    lines = (Lines().user("Sidechain task prompt", isSidechain=True)
             .user("Please look at the flaky upload test in tests/test_upload.py; it fails about once in ten runs "
                   "on CI\nand never locally.")
             .assistant("Looking."))
    ingest(store, settings, lines.write(tmp_path))
    assert title(projector) == "Please look at the flaky upload test in tests/test_upload.py; it fails about…"
    ingest(store, settings, lines.add("ai-title", aiTitle="Flaky upload test").write(tmp_path))
    assert title(projector) == "Flaky upload test"


def test_a_custom_title_outranks_later_ai_titles_and_the_first_prompt(tmp_path: Path, store: EventStore,
                                                                      settings: Settings,
                                                                      projector: Projector) -> None:
    """/rename's custom-title wins over an ai-title written after it; a summary yields to an ai-title."""
    session = (Lines().add("summary", summary="Old summary title").add("custom-title", customTitle="Upload saga")
               .user("Why does test_upload fail?").add("ai-title", aiTitle="Debugging uploads").write(tmp_path))
    ingest(store, settings, session)
    assert title(projector) == "Upload saga"
    projector.rebuild()
    assert title(projector) == "Upload saga"


def test_a_summary_title_outranks_the_first_prompt_read_before_it(tmp_path: Path, store: EventStore,
                                                                   settings: Settings,
                                                                   projector: Projector) -> None:
    """Tailing order: the prompt stand-in comes first, a summary record later replaces it, and
    the stand-in offered again by a later read changes nothing."""
    lines = Lines().user("Where is the config read?")
    ingest(store, settings, lines.write(tmp_path))
    assert title(projector) == "Where is the config read?"
    ingest(store, settings, lines.add("summary", summary="Config loading").user("And written?").write(tmp_path))
    assert title(projector) == "Config loading"


def test_a_title_logged_before_kinds_existed_decodes_as_a_sessions_own_title() -> None:
    """An old log's ConversationTitled payload (no ``kind``) still replays, as kind ''."""
    old = decode("ConversationTitled", 1, json.dumps({"conversation": CONV, "title": "From 2025", "updated": ""}))
    assert old == ConversationTitled(CONV, "From 2025", "", "")


def test_a_prompt_title_shows_nothing_private_or_secret(tmp_path: Path, store: EventStore, settings: Settings,
                                                        projector: Projector) -> None:
    """A private span opened on the first line hides the lines after it; a secret on the first line is redacted."""
    hidden = Lines().user("<private>\nmy bank pin is 4312\n</private>\nWhat does this error mean?")
    ingest(store, settings, hidden.write(tmp_path / "a"))
    assert title(projector) == "What does this error mean?"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert prompt_title(f"Why is {token} rejected?\nmore") == "Why is [secret:github-token] rejected?"


def test_a_session_in_an_excluded_project_leaves_no_title(home: Path, tmp_path: Path) -> None:
    """Its first prompt would be its title: excluded with its messages, a summary logged before them too."""
    from tapestryd.config import load_settings

    (home / "tapestry.toml").write_text('[privacy]\nexclude_projects = ["/clients/*"]\n')
    settings = load_settings(home)
    path = (Lines().add("summary", summary="Acme merger plan")
            .user("Draft the acme merger terms", cwd="/clients/acme").write(tmp_path))
    log = EventStore(tmp_path / "events.db")
    receipt = ingest(log, settings, path)
    logged = " ".join(e.event.title for e in log.read() if isinstance(e.event, ConversationTitled))
    log.close()
    assert receipt["totals"]["skipped"]["excluded-project"] == 1 and "acme" not in logged.lower()


def test_each_session_of_a_file_is_titled_by_its_own_first_prompt(tmp_path: Path, store: EventStore,
                                                                   settings: Settings, projector: Projector) -> None:
    """A file naming two sessions (the corpus's polylogue-normalization-main) titled only the first: the other
    stayed '(untitled)' with its prompt 'An independent session.' stored."""
    other = "7e57-0000-4000-8000-0000000000cc"
    lines = (Lines().user("Review the parser.").user("An independent session.", sessionId=other)
             .assistant("Reviewing."))
    ingest(store, settings, lines.write(tmp_path))
    assert title(projector) == "Review the parser."
    (found,), = rows(projector.conn, "SELECT title FROM conversations WHERE key = ?", f"claude-code:{other}")
    assert found == "An independent session."
