"""Forget as a user types it: no forgotten text left without a daemon, case-insensitive --match, clear keys."""

from __future__ import annotations

import json
import subprocess
import warnings
from datetime import datetime, timezone
from pathlib import Path

import pytest
from cli_runner import tapestryctl

from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.events.types import (
    ConversationTitled,
    DayClosed,
    Forgotten,
    MessageRecorded,
    NewEvent,
    NodeSummarized,
    event_id,
    format_utc,
)
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.queries.reader import Reader

T0 = datetime(2025, 1, 10, 12, tzinfo=timezone.utc)


def ctl(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """Run tapestryctl in this process (tests/cli_runner.py) against ``home`` (no daemon runs there)."""
    env = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home), "TAPESTRY_FAST": "0"}
    return tapestryctl(*args, env=env)


def _msg(n: int, text: str) -> NewEvent:
    event = MessageRecorded("claude-ai:conv-math", f"m{n}", "user", text, format_utc(T0))
    return NewEvent(event_id("msg", str(n)), event, T0, "claude-ai", f"f#{n}")


def _summarize_every_level(rt: Runtime) -> None:
    """Summaries at L0 … L4 that all quote the messages (as an LLM summary would)."""
    for level in range(5):
        rows = rt.projector.conn.execute("SELECT key, fingerprint FROM nodes WHERE level = ?", (level,)).fetchall()
        rt.store.append([NewEvent(event_id("sum", k, fp), NodeSummarized(k, level, fp, "fake", "", "v1",
                                                                         "Fibonacci talk", "about Fibonacci numbers"),
                                  T0.replace(day=11)) for k, fp in rows])
        rt.projector.catch_up()


def _seed(home: Path) -> None:
    with Runtime.open(load_settings(home)) as rt:
        rt.store.append([_msg(1, "explain the fibonacci sequence"), _msg(2, "Fibonacci in Rust, please"),
                         _msg(3, "and the garden plan"),
                         NewEvent(event_id("closed", "2025-01-10"), DayClosed("2025-01-10", "UTC"),
                                  T0.replace(day=11))])
        rt.projector.catch_up()
        _summarize_every_level(rt)


def test_local_forget_leaves_no_text_in_summaries_search_or_context(tmp_path: Path) -> None:
    _seed(tmp_path)
    assert ctl("search", "fibonacci", "--level", "summaries", "-f", "json", home=tmp_path).stdout.count("Fibonacci") > 0
    out = ctl("forget", "--match", "fibonacci", home=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "forgot 2 messages" in out.stdout and "blank until summarized again" in out.stdout
    hits = json.loads(ctl("search", "fibonacci", "-f", "json", home=tmp_path).stdout or "[]")
    assert hits == []
    context = ctl("context", "--date", "2025-01-10", home=tmp_path)
    assert context.returncode == 0, context.stderr
    assert "ibonacci" not in context.stdout and "garden plan" in context.stdout
    with Runtime.open(load_settings(tmp_path)) as rt:
        rows = rt.projector.conn.execute("SELECT level, state, title, summary FROM nodes").fetchall()
    assert rows and all(state == "dirty" and "ibonacci" not in title + summary for _, state, title, summary in rows)


def test_a_word_only_in_summaries_and_titles_is_forgotten_there_too(tmp_path: Path) -> None:
    """No message says 'Fibonacci talk', yet the summaries' titles do: forget --match 'talk' blanks
    them (dirty, summarized again), and the conversation title it matches goes as well."""
    _seed(tmp_path)
    with Runtime.open(load_settings(tmp_path)) as rt:
        rt.store.append([NewEvent(event_id("title"), ConversationTitled("claude-ai:conv-math", "Math talk"), T0,
                                  "claude-ai", "f#t")])
        rt.projector.catch_up()
    out = ctl("forget", "--match", "talk", home=tmp_path)
    assert out.returncode == 0 and "forgot 0 messages" in out.stdout, out.stdout + out.stderr
    assert json.loads(ctl("search", "talk", "-f", "json", home=tmp_path).stdout or "[]") == []
    with Runtime.open(load_settings(tmp_path)) as rt:
        rows = rt.projector.conn.execute("SELECT state, title FROM nodes").fetchall()
        title = rt.projector.conn.execute("SELECT title FROM conversations").fetchone()[0]
    assert rows and all(state == "dirty" and "talk" not in node_title for state, node_title in rows)
    assert title == ""


def test_match_is_case_insensitive_and_dry_run_shows_the_same(tmp_path: Path) -> None:
    """--match finds "Fibonacci" and "fibonacci" alike (like search --regex); --dry-run counts the same."""
    _seed(tmp_path)
    dry = ctl("forget", "--match", "FIBONACCI", "--dry-run", home=tmp_path)
    assert dry.returncode == 0 and "would forget 2 messages" in dry.stdout, dry.stderr
    assert "case-insensitive" in ctl("forget", "--help", home=tmp_path).stdout
    assert "forgot 2 messages" in ctl("forget", "--match", "FIBONACCI", home=tmp_path).stdout
    with Runtime.open(load_settings(tmp_path)) as rt:
        stored = [e.event.match for e in rt.store.read(types=["Forgotten"])]  # type: ignore[attr-defined]
    assert stored == ["(?i)FIBONACCI"]


def test_a_stored_case_sensitive_rule_replays_unchanged(tmp_path: Path) -> None:
    """A Forgotten event already in a log (no inline flag) keeps its meaning on rebuild."""
    _seed(tmp_path)
    with Runtime.open(load_settings(tmp_path)) as rt:
        rt.store.append([NewEvent(event_id("forgot", "old"), Forgotten(match="fibonacci"), T0.replace(day=12))])
        rt.projector.rebuild()
        left = [t for (t,) in rt.projector.conn.execute("SELECT text FROM messages ORDER BY id")]
    assert left == ["Fibonacci in Rust, please", "and the garden plan"]



def _conversations(rt: Runtime) -> None:
    rt.store.append([NewEvent(event_id("m", key), MessageRecorded(key, "m1", "user", "hello", format_utc(T0)), T0,
                              "chatgpt", key) for key in ("chatgpt:3f2a-e11", "chatgpt:77b0-e11", "chatgpt:zz9")])
    rt.projector.catch_up()


def test_forget_conversation_refuses_a_short_end(runtime: Runtime) -> None:
    """A one-letter end, unique or not, forgets nothing; the error says which rule applies."""
    _conversations(runtime)
    with pytest.raises(TapestryError, match="too short: give the full key or its last 6"):
        run_json("forget", runtime, {"conversation": "9"})
    assert not list(runtime.store.read(types=["Forgotten"]))


def test_an_ambiguous_end_names_candidates_for_forget_and_show(runtime: Runtime) -> None:
    """"1" ends two keys: forget and show both say it is ambiguous and list them."""
    _conversations(runtime)
    expected = r"'1' is ambiguous.*chatgpt:3f2a-e11, chatgpt:77b0-e11"
    with pytest.raises(TapestryError, match=expected):
        run_json("forget", runtime, {"conversation": "1"})
    with pytest.raises(TapestryError, match=expected):
        run_json("show", Reader(runtime.settings, runtime.paths, runtime.projector.conn), {"conversation": "1"})


def test_a_long_unique_end_or_the_full_key_forgets(runtime: Runtime) -> None:
    """Six characters that end one key only, or a full key however short, name the conversation."""
    _conversations(runtime)
    assert run_json("forget", runtime, {"conversation": "2a-e11"})["rule"]["conversation"] == "chatgpt:3f2a-e11"
    assert run_json("forget", runtime, {"conversation": "chatgpt:zz9"})["messages"] == 1


def test_a_pattern_that_backtracks_without_end_is_refused_and_nothing_is_forgotten(tmp_path: Path) -> None:
    """`forget --match '(a|aa)+$'` over 'aaa…ab' ran until killed, and through the daemon held its writer (status
    got no answer, SIGKILL needed); the pattern is now tried on the stored messages within a time budget first,
    and one that runs out is refused with an error naming it: no rule is appended, nothing is forgotten."""
    with Runtime.open(load_settings(tmp_path)) as rt:
        rt.store.append([_msg(1, "a" * 64 + "b"), _msg(2, "and the garden plan")])
        rt.projector.catch_up()
    out = ctl("forget", "--match", "(a|aa)+$", home=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "the regular expression '(a|aa)+$' took more than" in out.stderr and "simplify it" in out.stderr
    with Runtime.open(load_settings(tmp_path)) as rt:
        assert list(rt.store.read(types=["Forgotten"])) == []
        assert rt.projector.conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 2


def test_a_posix_class_in_a_pattern_forgets_what_it_names_and_prints_no_warning(tmp_path: Path) -> None:
    """`forget --match '[[:digit:]]{4}'` printed re's FutureWarning ("Possible nested set") twice, with source lines
    of tapestryd; the regex package that forgets reads the set as the POSIX class, and the preview counts so."""
    with Runtime.open(load_settings(tmp_path)) as rt:
        rt.store.append([_msg(1, "the 1987 vintage of quinces"), _msg(2, "and the garden plan")])
        rt.projector.catch_up()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ctl("forget", "--match", "[[:digit:]]{4} vintage of quinces", "--dry-run", home=tmp_path)
    assert out.returncode == 0 and "Warning" not in out.stderr, out.stderr
    assert "would forget 1 message" in out.stdout


def test_a_later_part_of_a_forgotten_message_is_not_stored_as_a_new_one(tmp_path: Path) -> None:
    """A streamed reply forgotten by its word, then its next part arrives (same message key, text without the
    word): it was stored as a new message and found by search (t15); the message's key is remembered as
    forgotten, so the part goes too, now and on a rebuild."""
    def part(n: int, text: str) -> NewEvent:
        event = MessageRecorded("claude-ai:conv-math", "reply", "assistant", text, format_utc(T0))
        return NewEvent(event_id("part", str(n)), event, T0, "claude-ai", f"f#p{n}")

    with Runtime.open(load_settings(tmp_path)) as rt:
        rt.store.append([_msg(1, "and the garden plan"), part(1, "the quokka migration plan"), part(2, "step two")])
        rt.projector.catch_up()
    assert ctl("forget", "--match", "quokka", home=tmp_path).returncode == 0
    with Runtime.open(load_settings(tmp_path)) as rt:
        rt.store.append([part(3, "then the pelican index")])
        rt.projector.catch_up()
    assert json.loads(ctl("search", "pelican", "-f", "json", home=tmp_path).stdout or "[]") == []
    assert ctl("rebuild", home=tmp_path).returncode == 0
    assert json.loads(ctl("search", "pelican", "-f", "json", home=tmp_path).stdout or "[]") == []
    assert json.loads(ctl("search", "garden", "-f", "json", home=tmp_path).stdout or "[]") != []
