"""Forget: a Forgotten event drops text from the projections, now and for later messages."""

from __future__ import annotations

import pytest
from privacy_fakes import secret_cases
from privacy_helpers import at, message, record, texts, title

from tapestryd.errors import TapestryError
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.testing import run_json
from tapestryd.queries.conversations import show_conversation
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import search_messages


def forget(rt: Runtime, **args: object) -> dict[str, object]:
    return run_json("forget", rt, args)


def _history(rt: Runtime) -> None:
    record(rt,
           message("claude-code:a", "1", "we talked about the divorce lawyer", at("2025-01-10")),
           message("claude-code:a", "2", "and the custody schedule", at("2025-01-10", 13)),
           message("claude-code:b", "1", "refactor the parser", at("2025-02-01")),
           message("chatgpt:c", "1", "recipe for bread", at("2025-03-01"), agent="chatgpt"),
           title("claude-code:a", "Lawyer questions"))


def test_forget_conversation_drops_messages_title_and_later_parts(runtime: Runtime) -> None:
    """The conversation leaves the projection, and a resumed session stays out."""
    _history(runtime)
    result = forget(runtime, conversation="claude-code:a")  # the full key, however short
    assert (result["messages"], result["conversations"]) == (2, 1)
    record(runtime, message("claude-code:a", "3", "one more thing about the lawyer", at("2025-04-01")),
           title("claude-code:a", "Renamed"))
    assert all(conv != "claude-code:a" for conv, _ in texts(runtime))
    keys = [r[0] for r in runtime.projector.conn.execute("SELECT key FROM conversations")]
    assert sorted(keys) == ["chatgpt:c", "claude-code:b"]


def test_dry_run_counts_without_forgetting(runtime: Runtime) -> None:
    """--dry-run says what would go and appends nothing."""
    _history(runtime)
    last = runtime.store.last_seq()
    result = forget(runtime, before="2025-02-15", dry_run=True)
    assert (result["messages"], result["conversations"], result["dry_run"]) == (3, 2, True)
    assert runtime.store.last_seq() == last and len(texts(runtime)) == 4


def test_forget_before_a_local_date(runtime: Runtime) -> None:
    """Everything before local midnight of the date goes; later messages stay."""
    _history(runtime)
    forget(runtime, before="2025-02-01")
    assert sorted(texts(runtime)) == [("chatgpt:c", "1"), ("claude-code:b", "1")]


def test_forget_match_and_repeat_is_one_event(runtime: Runtime) -> None:
    """A regex forgets matching messages only; the same rule again is a no-op."""
    _history(runtime)
    first = forget(runtime, match=r"(?i)lawyer|custody")
    again = forget(runtime, match=r"(?i)lawyer|custody")
    assert first["messages"] == 2 and again["already_forgotten"] is True
    assert sorted(texts(runtime)) == [("chatgpt:c", "1"), ("claude-code:b", "1")]


@pytest.mark.parametrize("args", [{}, {"match": "("}, {"conversation": "zzz"}, {"before": "..2024"},
                                  {"conversation": "a", "match": "x"}])
def test_bad_requests_are_user_errors(runtime: Runtime, args: dict[str, object]) -> None:
    """No rule, two rules, an invalid regex, an unknown conversation or date: a clear error."""
    _history(runtime)
    with pytest.raises(TapestryError):
        forget(runtime, **args)


def test_rebuild_after_forget_equals_incremental(runtime: Runtime) -> None:
    """Replaying the log applies the same rules at the same positions."""
    _history(runtime)
    forget(runtime, match="bread")
    record(runtime, message("chatgpt:c", "2", "more bread", at("2025-03-02"), agent="chatgpt"),
           message("chatgpt:c", "3", "and butter", at("2025-03-02", 13), agent="chatgpt"))
    before = texts(runtime)
    runtime.projector.rebuild()
    assert texts(runtime) == before == {("claude-code:a", "1"): "we talked about the divorce lawyer",
                                        ("claude-code:a", "2"): "and the custody schedule",
                                        ("claude-code:b", "1"): "refactor the parser",
                                        ("chatgpt:c", "3"): "and butter"}


def test_projection_stores_outbound_text_and_log_keeps_verbatim(runtime: Runtime) -> None:
    """Search, show and snippets never see a secret or a private span; the log does."""
    _, text, secret = secret_cases()[3]
    verbatim = f"deploy with {text} <private>my salary is 90k</private> done"
    record(runtime, message("claude-code:s", "1", verbatim, at("2025-05-01")))
    reader = Reader(runtime.settings, runtime.paths, runtime.projector.conn)
    shown = show_conversation(reader, "claude-code:s")
    assert shown is not None and shown["messages"][0]["text"] == "deploy with git remote set-url origin " \
        "https://x:[secret:github-token]@github.com/o/r  done"
    assert search_messages(reader, "salary") == [] and search_messages(reader, secret) == []
    assert search_messages(reader, "deploy")[0].snippet.count("[secret:github-token]") == 1
    stored = next(runtime.store.read()).event
    assert stored.text == verbatim  # type: ignore[attr-defined]
