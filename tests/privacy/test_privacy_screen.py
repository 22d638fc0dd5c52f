"""The sources' privacy screen: markers, exclusions and at-rest redaction in ingest and the tailer."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from privacy_fakes import secret_cases

from tapestryd.config import Settings, load_settings
from tapestryd.events.types import MessageRecorded
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.privacy import EXCLUSION_MARKERS
from tapestryd.sources.ingest import ingest_paths
from tapestryd.sources.screen import Screen
from tapestryd.sources.tailer import Tailer


def line(session: str, n: int, text: str, *, role: str = "user", cwd: str = "/work/app") -> str:
    """One Claude Code JSONL line (the shape of ~/.claude/projects/*/<session>.jsonl)."""
    content = text if role == "user" else [{"type": "text", "text": text}]
    return json.dumps({"type": role, "timestamp": f"2025-06-01T10:{n:02d}:00.000Z", "sessionId": session,
                       "cwd": cwd, "message": {"role": role, "content": content}, "uuid": f"{session}-{n}"}) + "\n"


def _logged_texts(settings: Settings) -> str:
    """Every payload of the log joined: what is stored on disk, not what the projections show."""
    with sqlite3.connect(paths_for(settings).events_db) as conn:
        return "\n".join(p for (p,) in conn.execute("SELECT payload FROM events"))


def _ingest(settings: Settings, *paths: Path) -> dict[str, object]:
    with Runtime.open(settings) as rt:
        receipt = ingest_paths(rt.store, list(paths), settings=settings)
        rt.projector.catch_up()
        return receipt.to_dict()


def _stored(settings: Settings) -> set[str]:
    with Runtime.open(settings) as rt:
        return {c for (c,) in rt.projector.conn.execute("SELECT DISTINCT conversation FROM messages")}


@pytest.mark.parametrize("marker", EXCLUSION_MARKERS)
def test_marked_conversation_is_only_counted_as_skipped(settings: Settings, tmp_path: Path, marker: str) -> None:
    """No text of a conversation holding a marker reaches the log, even lines before the marker."""
    marked, plain = tmp_path / "marked.jsonl", tmp_path / "plain.jsonl"
    marked.write_text(line("s1", 1, "first words about my health") + line("s1", 2, "noted", role="assistant")
                      + line("s1", 3, f"oh and {marker}"))
    plain.write_text(line("s2", 1, "refactor the parser"))
    receipt = _ingest(settings, marked, plain)
    assert receipt["totals"]["skipped"]["exclusion-marker"] == 3  # type: ignore[index]
    assert "health" not in _logged_texts(settings) and "refactor" in _logged_texts(settings)
    assert _stored(settings) == {"claude-code:s2"}


def test_tailer_keeps_a_marked_session_out_for_good(settings: Settings, tmp_path: Path) -> None:
    """A live session: the marker arrives late; earlier lines leave the projections, later ones never come."""
    session = tmp_path / "s3.jsonl"
    session.write_text(line("s3", 1, "early words"))
    with Runtime.open(settings) as rt:
        tailer = Tailer(rt.store, agent="claude-code", screen=Screen(rt.store, settings.privacy))
        tailer.tail(str(session))
        with session.open("a") as fh:
            fh.write(line("s3", 2, f"please {EXCLUSION_MARKERS[1]}"))
        report = tailer.tail(str(session))
        with session.open("a") as fh:
            fh.write(line("s3", 3, "later words"))
        restarted = Tailer(rt.store, agent="claude-code", screen=Screen(rt.store, settings.privacy))
        later = restarted.tail(str(session))  # a daemon restarted since: the log remembers
        rt.projector.catch_up()
        assert report.skipped["exclusion-marker"] == 1 and later.skipped["forgotten-conversation"] == 1
        assert rt.projector.conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0
    logged = _logged_texts(settings)
    assert "later words" not in logged and "tapestry:ignore" not in logged


def _settings_with(home: Path, privacy: str) -> Settings:
    config = home / "tapestry.toml"
    config.write_text(config.read_text() + f"\n[privacy]\n{privacy}\n")
    return load_settings(home)


def test_excluded_projects_and_agents_are_not_imported(home: Path, tmp_path: Path) -> None:
    """Globs of project paths and agent labels keep their messages out of the log."""
    settings = _settings_with(home, 'exclude_projects = ["/clients/*"]\nexclude_agents = ["secret-*"]')
    work, client = tmp_path / "work.jsonl", tmp_path / "client.jsonl"
    work.write_text(line("w", 1, "open source work"))
    client.write_text(line("c", 1, "acme merger details", cwd="/clients/acme/repo"))
    receipt = _ingest(settings, work, client)
    assert receipt["totals"]["skipped"]["excluded-project"] == 1  # type: ignore[index]
    with Runtime.open(settings) as rt:
        other = ingest_paths(rt.store, [work], settings=settings, agent="secret-diary").to_dict()
    assert other["totals"]["skipped"]["excluded-agent"] == 1  # type: ignore[index]
    assert "acme" not in _logged_texts(settings)


def test_redact_at_rest_stores_placeholders(home: Path, tmp_path: Path) -> None:
    """With redact_at_rest the log itself never holds the secret; private spans stay (user's machine)."""
    settings = _settings_with(home, "redact_at_rest = true")
    _, text, secret = secret_cases()[4]
    source = tmp_path / "keys.jsonl"
    source.write_text(line("k", 1, f"{text} <private>mine</private>"))
    _ingest(settings, source)
    logged = _logged_texts(settings)
    assert secret not in logged and "[secret:github-token]" in logged and "<private>mine</private>" in logged


def test_without_privacy_settings_everything_is_kept(settings: Settings, tmp_path: Path) -> None:
    """Defaults exclude nothing and store text verbatim (secrets are filtered on the way out)."""
    _, text, secret = secret_cases()[4]
    source = tmp_path / "keys.jsonl"
    source.write_text(line("k", 1, text))
    _ingest(settings, source)
    assert secret in _logged_texts(settings)
    with Runtime.open(settings) as rt:
        event = next(e.event for e in rt.store.read() if isinstance(e.event, MessageRecorded))
        assert secret in event.text
