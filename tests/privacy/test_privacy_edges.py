"""Every edge where text leaves: search, context, similar, the hook; and TAPESTRY_DISABLE."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from privacy_fakes import secret_cases
from privacy_helpers import at, message, record, title

from tapestryd.config import Settings
from tapestryd.daemon.service import Service
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.wire.client import request

CASES = secret_cases()


def _history(settings: Settings) -> list[str]:
    """Messages holding every fake secret and a private span; returns the secrets and the private word."""
    with Runtime.open(settings) as rt:
        record(rt, *(message("claude-code:leak", str(i), f"lantern note {i}: {text} <private>quetzalcoatl</private>",
                             at("2025-01-10", 8 + i % 12)) for i, (_, text, _) in enumerate(CASES)))
    return [secret for _, _, secret in CASES] + ["quetzalcoatl"]


def test_nothing_private_leaves_through_the_socket(settings: Settings) -> None:
    """search, context (text and markdown), similar and show over a real socket hold no secret."""
    hidden = _history(settings)
    service = Service(settings)
    service.start()
    sock = paths_for(settings).socket
    try:
        private_hits = request(sock, "search", {"query": "quetzalcoatl"})["hits"]
        answers = [request(sock, "search", {"query": "lantern", "limit": 100}),
                   request(sock, "context", {"date": "2025-01-10", "now": "2025-01-10T23:00:00Z"}),
                   request(sock, "context", {"format": "markdown", "now": "2025-01-10T23:00:00Z"}),
                   request(sock, "similar", {"query": "lantern note"}),
                   request(sock, "show", {"conversation": "claude-code:leak"})]
    finally:
        service.stop()
    assert private_hits == []  # the private word is not even in the index
    dumped = json.dumps(answers, ensure_ascii=False)
    assert "lantern" in dumped and "[secret:" in dumped
    leaked = [h for h in hidden if h in dumped]
    assert not leaked, f"leaked: {[h[:12] for h in leaked]}"


def test_disable_makes_the_daemon_exit_at_once(home: Path) -> None:
    """TAPESTRY_DISABLE=1: tapestryd exits 0 without creating a socket or a database."""
    env = {**os.environ, "TAPESTRY_HOME": str(home), "TAPESTRY_DISABLE": "1"}
    done = subprocess.run([sys.executable, "-m", "tapestryd.daemon.main"], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0
    assert not (home / "events.db").exists()


def test_disable_makes_the_hook_print_nothing(settings: Settings, home: Path) -> None:
    """TAPESTRY_DISABLE=1: the Claude Code hook answers nothing, even with a daemon running."""
    from tapestryd.cli.hook import run_hook

    _history(settings)
    service = Service(settings)
    service.start()
    hook_input = json.dumps({"hook_event_name": "SessionStart", "session_id": "s", "cwd": str(home),
                             "source": "startup"})
    try:
        quiet, loud = io.StringIO(), io.StringIO()
        env = {**os.environ, "TAPESTRY_HOME": str(home)}
        assert run_hook(str(home), stdin=io.StringIO(hook_input), stdout=quiet,
                        environ={**env, "TAPESTRY_DISABLE": "1"}) == 0
        run_hook(str(home), stdin=io.StringIO(hook_input), stdout=loud, environ=env)
    finally:
        service.stop()
    assert quiet.getvalue() == "" and loud.getvalue()  # the same call without the switch does answer
    assert all(secret not in loud.getvalue() for _, _, secret in CASES)


def test_a_private_tag_with_attributes_hides_its_text_everywhere(settings: Settings) -> None:
    """`<private reason="…">` is a private span: not in search, show, context, summaries or projections.db."""
    import sqlite3

    from typer.testing import CliRunner

    import tapestryd.cli.hierarchy  # noqa: F401  (registers the commands)
    from tapestryd.cli.app import app

    tags = ['<private reason="tax">', "<PRIVATE level='2'>", "<private\n  why=x>"]
    with Runtime.open(settings) as rt:
        record(rt, *(message("claude-code:attr", str(i),
                             f"harbour plan {i}: {tag}zanzibarquux{i} ledger</private> done",
                             at("2025-01-10", 8 + i)) for i, tag in enumerate(tags)))
    result = CliRunner().invoke(app, ["iterate", "2025-01-12"], catch_exceptions=False)
    assert result.exit_code == 0 and "0 nodes summarized" not in result.output, result.output
    service = Service(settings)
    service.start()
    sock = paths_for(settings).socket
    try:
        private_hits = request(sock, "search", {"query": "zanzibarquux0"})["hits"]
        answers = [request(sock, "search", {"query": "harbour"}),
                   request(sock, "show", {"conversation": "claude-code:attr"}),
                   request(sock, "context", {"date": "2025-01-10", "now": "2025-01-10T23:00:00Z"}),
                   request(sock, "context", {"now": "2025-01-20T12:00:00Z"})]
    finally:
        service.stop()
    dumped = json.dumps(answers, ensure_ascii=False)
    assert private_hits == [] and "harbour" in dumped and "zanzibarquux" not in dumped
    with sqlite3.connect(paths_for(settings).projections_db) as conn:
        stored = "\n".join(conn.iterdump())
    assert "harbour" in stored and "zanzibarquux" not in stored and "ledger" not in stored


def test_export_log_is_verbatim_and_redacted_filters_it(settings: Settings) -> None:
    """export-log says it prints the raw log (help) and does; --redacted holds no secret or private word."""
    from typer.testing import CliRunner

    import tapestryd.cli.core  # noqa: F401  (registers export-log)
    from tapestryd.cli.app import app

    hidden = _history(settings)
    with Runtime.open(settings) as rt:
        record(rt, title("claude-code:leak", "deploy with ghp_" + "a1B2" * 9))
    runner = CliRunner()
    help_text = " ".join(runner.invoke(app, ["export-log", "--help"], terminal_width=200).output.split())
    assert "verbatim" in help_text and "([secret:<kind>])" in help_text  # not eaten as markup
    raw = runner.invoke(app, ["export-log"])
    assert raw.exit_code == 0 and all(h in _strings(raw.output) for h in hidden)
    redacted = runner.invoke(app, ["export-log", "--redacted"])
    assert redacted.exit_code == 0 and len(redacted.output.splitlines()) == len(raw.output.splitlines())
    shown = _strings(redacted.output)
    assert "lantern note" in shown and "[secret:github-token]" in shown
    leaked = [h for h in hidden if h in shown]
    assert not leaked, f"leaked: {[h[:12] for h in leaked]}"


def _strings(jsonl: str) -> str:
    """Every string value of every JSON line, one a line (as decoded: no JSON escapes)."""
    found: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for line in jsonl.splitlines():
        walk(json.loads(line))
    return "\n".join(found)
