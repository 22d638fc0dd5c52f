"""The CLI refuses what cannot be meant and warns about what is off: iterate gives up on a failing
provider, stale projections are warned about, unknown agents are named, level names and thresholds
are checked, a home that is a file and a calendar port in use are named (found by the third
fresh-user test)."""

from __future__ import annotations

import importlib
import json
import socket
from datetime import datetime, timezone
from pathlib import Path

import pytest
from fake_llm import FakeLLM
from typer.testing import CliRunner, Result

from tapestryd.cli.app import app
from tapestryd.cli.main import COMMAND_MODULES
from tapestryd.config import load_settings
from tapestryd.errors import TapestryError
from tapestryd.events import MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.operations.runtime import Runtime

T0 = datetime(2025, 6, 14, 10, 0, tzinfo=timezone.utc)

for _module in COMMAND_MODULES:  # each registers its commands on ``app``
    importlib.import_module(_module)


def message(conversation: str, key: str, text: str, *, agent: str = "chatgpt", minute: int = 0) -> NewEvent:
    """A MessageRecorded envelope on 2025-06-14 at 10:``minute`` UTC."""
    when = T0.replace(minute=minute)
    body = MessageRecorded(conversation, key, "user", text, format_utc(when))
    return NewEvent(event_id("t3", conversation, key), body, when, agent=agent, source=f"t3#{key}")


def fill(home: Path, *, project: bool = True) -> None:
    """Two chatgpt conversations in the log; projected unless ``project`` is False."""
    with Runtime.open(load_settings(home)) as runtime:
        runtime.store.append([message("chatgpt:a", "m1", "How do I braid a rope?"),
                              message("chatgpt:b", "m2", "Plan the garden beds", minute=5)])
        if project:
            runtime.projector.catch_up()


def run(*args: str) -> Result:
    """tapestryctl ``args`` in process (no daemon runs, so everything is answered locally)."""
    return CliRunner().invoke(app, list(args))


def error_of(result: Result) -> str:
    """The message of the TapestryError a command raised (``tapestryctl`` prints it as ``error: …``)."""
    assert isinstance(result.exception, TapestryError), result.output
    return result.exception.message


def iterate_failing(home: Path, failing: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> Result:
    """``tapestryctl iterate`` on :func:`fill`'s conversations against ``failing`` (no retries,
    one call in flight, 0.1 s slices); asserts it exits 1 and returns its result.

    One call in flight: with the default 4, a slice's first calls all fail at once and the
    give-up after 3 in a row counts 4, so no failure would be left for a later slice.
    """
    with (home / "tapestry.toml").open("a") as config:
        config.write(f'[summarize]\nprovider = "openai"\nbase_url = "{failing.url}"\nmodel = "m"\n'
                     "max_retries = 0\ntimeout = 5\nconcurrency = 1\n")
    fill(home)
    monkeypatch.setattr("tapestryd.cli.hierarchy._SLICE_SECONDS", 0.1)
    result = run("iterate")
    assert result.exit_code == 1, result.output
    return result


def test_iterate_gives_up_across_slices_on_a_failing_provider(home: Path, failing: FakeLLM,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Each slice ends on its time limit after one slow failure; the failures still add up to a stop."""
    result = iterate_failing(home, failing, monkeypatch)
    assert len(failing.calls) == 3
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("error: gave up after 3 failed attempts in a row; provider openai: ")
    assert f"{failing.url}/chat/completions: HTTP 500" in last


def test_read_commands_warn_when_the_projections_are_behind_the_log(home: Path) -> None:
    """After an import cut short (events logged, not projected), local answers say they are stale."""
    fill(home)
    for command in (["search", "braid"], ["stats"], ["conversations"]):
        assert "behind the log" not in run(*command).stderr
    with Runtime.open(load_settings(home)) as runtime:
        runtime.store.append([message("chatgpt:c", "m3", "Tune the guitar", minute=9),
                              message("chatgpt:c", "m4", "Drop D tuning", minute=10)])
    for command in (["search", "guitar"], ["stats"], ["conversations"], ["status"]):
        result = run(*command)
        assert result.exit_code == 0, result.output
        assert "the projections are 2 events behind the log" in result.stderr
        assert "`tapestryctl rebuild`" in result.stderr
    assert "2 events behind" not in run("rebuild").stderr
    assert "behind the log" not in run("search", "guitar").stderr


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "sources"


def test_ingest_refuses_an_agent_that_is_neither_configured_nor_stored(home: Path) -> None:
    export = FIXTURES / "chatgpt" / "conversations.json"
    assert error_of(run("ingest", str(export), "--agent", "nope")).startswith(
        "no agent named 'nope'; known: chatgpt, claude-ai, claude-code, codex, gemini-cli, opencode; "
        "to use a new label, add [agents.nope]")
    assert not (home / "data" / "events.db").exists() or "nope" not in run("stats", "-f", "json").stdout
    (home / "tapestry.toml").write_text((home / "tapestry.toml").read_text() + '[agents.work]\nparser = "chatgpt"\n')
    assert run("ingest", str(export), "--agent", "work").exit_code == 0
    assert json.loads(run("conversations", "--agent", "work", "-f", "json").stdout)


@pytest.mark.parametrize("command", [["search", "braid", "--agent", "chatgtp"], ["context", "--agent", "chatgtp"],
                                     ["tree", "--agent", "chatgtp"], ["conversations", "--agent", "chatgtp"],
                                     ["recall", "2025-06", "--agent", "chatgtp"]])
def test_read_commands_name_an_unknown_agent(home: Path, command: list[str]) -> None:
    fill(home)
    assert error_of(run(*command)) == ("no agent named 'chatgtp'; "
                                       "known: chatgpt, claude-ai, claude-code, codex, gemini-cli, opencode")


def test_a_configured_agent_without_data_answers_empty(home: Path) -> None:
    fill(home)
    result = run("search", "braid", "--agent", "claude-code", "-f", "json")
    assert result.exit_code == 0 and json.loads(result.stdout) == []


def test_level_names_read_the_same_everywhere(home: Path) -> None:
    """``1``, ``L1`` and ``l1`` name level 1 for eval, drift, similar and search alike."""
    fill(home)
    for level in ("L1", "1", "l1"):
        evaluated = run("eval", "--level", level, "--yield-sample", "0", "-f", "json")
        assert evaluated.exit_code == 0, evaluated.output
        assert [r["level"] for r in json.loads(evaluated.stdout)["levels"]] == [1]
        assert run("drift", "--level", level).exit_code == 0
        similar = run("similar", "braid", "--level", level, "-f", "json")
        assert similar.exit_code == 0, similar.output
        assert run("search", "braid", "--level", level, "-f", "json").exit_code == 0
    assert error_of(run("similar", "braid", "--level", "7")) == \
        "unknown level '7'; use one of all, messages, summaries, 0-4 or L0-L4"
    assert error_of(run("eval", "--level", "L9", "--yield-sample", "0")) == "unknown level 'L9'; use 0-4 or L0-L4"


@pytest.mark.parametrize("threshold", ["5", "0", "-0.2"])
def test_eval_refuses_a_threshold_outside_zero_to_one(home: Path, threshold: str) -> None:
    fill(home)
    assert error_of(run("eval", "--threshold", threshold, "--yield-sample", "0")).startswith(
        "threshold is a cosine: more than 0 and at most 1")


@pytest.mark.parametrize("threshold", ["5", "0", "-0.2"])
def test_drift_refuses_a_threshold_outside_zero_to_one(home: Path, threshold: str) -> None:
    """As eval does: a drift of 5 flags nothing and one of 0 or less every node, silently."""
    fill(home)
    assert error_of(run("drift", "--threshold", threshold)).startswith(
        "drift threshold is 1 - cosine: more than 0 and at most 1")
    assert run("drift", "--threshold", "0.5", "-f", "json").exit_code == 0


def test_a_home_that_is_a_file_is_named(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    assert error_of(run("--home", str(afile), "stats")) == \
        f"the home {afile} is a file, not a folder (check --home or TAPESTRY_HOME)"


def test_calendar_on_a_port_in_use_says_so(home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert error_of(run("calendar", "--port", str(port))) == \
            f"port {port} is in use on 127.0.0.1; stop what listens there or pick another with --port"


def test_similar_of_only_quotes_or_punctuation_is_the_error_search_gives(home: Path) -> None:
    """``similar '??'`` is a usage error naming what it got, as ``search '??'`` is, not an empty answer."""
    fill(home)
    for text in ("??", '""', "' --"):
        assert error_of(run("similar", text)) == f"similar needs some text to compare with (got only {text.strip()!r})"
    assert run("similar", '"braid"?', "-f", "json").exit_code == 0
