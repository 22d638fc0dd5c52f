"""Private spans, exclusion markers, exclusion globs and at-rest redaction."""

from __future__ import annotations

import os
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_fakes import secret_cases
from tapestryd.config import PrivacySettings
from tapestryd.events.types import ConversationTitled, DayClosed, MessageRecorded, NewEvent
from tapestryd.privacy import (
    EXCLUSION_MARKERS,
    Exclusions,
    encode_project_dir,
    has_exclusion_marker,
    redact_at_rest,
    strip_private,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("before <private>hidden</private> after", "before  after"),
    ("a <PRIVATE>x</Private> b", "a  b"),
    ("a <private>x <private>y</private> still hidden</private> b", "a  b"),
    ("a <private>\nmulti\nline\n</private>\nb", "a \nb"),
    ("open <private>never closed, all hidden", "open "),
    ("stray </private> close", "stray  close"),
    ("no tags at all", "no tags at all"),
    ("<private>all</private>", ""),
    ('a <private reason="x">hidden</private> b', "a  b"),
    ("a <Private\n  reason='tax id' level=2 >hidden</private > b", "a  b"),
    ('a <private note="1<2">hidden</private> b', "a  b"),
    ("a <private/>everything after", "a "),
    ("a <private reason=x>x <private>y</private> z</private> b", "a  b"),
    ("keep <privateKey>this</privateKey> and <privacy>that</privacy>", "keep <privateKey>this</privateKey> and "
                                                                         "<privacy>that</privacy>"),
])
def test_private_spans_are_stripped(text: str, expected: str) -> None:
    """Private text and its tags go; an unclosed span hides everything after it."""
    assert strip_private(text) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab <>/privateRIV\n", max_size=60), st.text(alphabet="xyz", min_size=1, max_size=10))
def test_no_private_word_survives(prefix: str, secret: str) -> None:
    """Whatever tag soup surrounds it, text inside a closed private span never comes out."""
    text = f"{prefix}<private>{secret}QQ</private>"
    assert f"{secret}QQ" not in strip_private(text)


@pytest.mark.parametrize("text", [
    f"please {EXCLUSION_MARKERS[0]} thanks",
    "<instructions-to-episodic-memory> DO NOT  INDEX THIS CHAT </instructions-to-episodic-memory>",
    "ok <tapestry:ignore/>",
    "ok <tapestry:ignore />",
])
def test_exclusion_markers_are_recognised(text: str) -> None:
    """Both tools' markers count, with free whitespace and case."""
    assert has_exclusion_marker(text)


@pytest.mark.parametrize("text", ["do not index this chat", "<tapestry:ignored>", "tapestry:ignore", ""])
def test_text_without_marker_is_not_excluded(text: str) -> None:
    """Words that merely resemble a marker do not exclude a conversation."""
    assert not has_exclusion_marker(text)


def test_project_globs_exclude_the_folder_and_below() -> None:
    """``~/clients/*`` excludes every client project and its sub-folders, nothing beside it."""
    ex = Exclusions.from_settings(PrivacySettings(exclude_projects=("~/clients/*", "/srv/secret")))
    home = os.path.expanduser("~")
    assert ex.excludes_project(f"{home}/clients/acme")
    assert ex.excludes_project(f"{home}/clients/acme/web/src")
    assert ex.excludes_project("/srv/secret/app")
    assert not ex.excludes_project(f"{home}/code/tapestry")
    assert not ex.excludes_project("/srv/secretive")
    assert not ex.excludes_project("")


def test_claude_project_folder_names_are_matched_encoded() -> None:
    """The tailer can skip ``~/.claude/projects/-srv-secret-app`` without reading it."""
    ex = Exclusions.from_settings(PrivacySettings(exclude_projects=("/srv/secret",)))
    assert encode_project_dir("/srv/secret/app.v2") == "-srv-secret-app-v2"
    assert ex.excludes_project_dir("-srv-secret")
    assert ex.excludes_project_dir("-srv-secret-app")
    assert not ex.excludes_project_dir("-srv-public")


def test_agent_globs() -> None:
    """Agents are excluded by label globs; an empty config excludes nothing."""
    ex = Exclusions.from_settings(PrivacySettings(exclude_agents=("chatgpt*",)))
    assert ex.excludes(agent="chatgpt-work")
    assert not ex.excludes(agent="claude-code", project="/anything")
    assert not Exclusions().excludes(agent="chatgpt", project="/x")


def _new(event: object) -> NewEvent:
    return NewEvent("id", event, datetime(2025, 1, 1, tzinfo=timezone.utc), "claude-code", "f:1")  # type: ignore[arg-type]


def test_at_rest_redaction_keeps_private_spans_and_other_events() -> None:
    """redact_at_rest removes secrets from text and titles, keeps private spans and other events."""
    _, text, secret = secret_cases()[3]
    msg = _new(MessageRecorded("c", "m", "user", f"<private>mine</private> {text}", "2025-01-01T00:00:00Z"))
    out = redact_at_rest(msg).event
    assert isinstance(out, MessageRecorded)
    assert secret not in out.text and "<private>mine</private>" in out.text
    title = redact_at_rest(_new(ConversationTitled("c", f"debug {secret}"))).event
    assert isinstance(title, ConversationTitled) and secret not in title.title
    closed = _new(DayClosed("2025-01-01", "UTC"))
    assert redact_at_rest(closed) is closed
