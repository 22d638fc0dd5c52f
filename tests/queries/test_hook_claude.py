"""The Claude Code hook: plan per event, the documented output shape, and failing safe."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from query_helpers import check_documented_shape, hook_json

from tapestryd.queries.hook import MAX_CONTEXT_CHARS, HookInput, cap, hook_output, plan

HOOK_TIMEOUT_S = 30  # UserPromptSubmit's timeout in the issue; the hook must answer well within it


@pytest.mark.parametrize("event, source, expected", [
    ("SessionStart", "startup", "full"), ("SessionStart", "clear", "full"), ("SessionStart", "compact", "full"),
    ("SessionStart", "resume", "short"), ("UserPromptSubmit", "", "short"), ("Stop", "", "none"),
    ("PreToolUse", "", "none"),
])
def test_full_context_once_per_session_and_the_short_block_on_each_prompt(event: str, source: str,
                                                                           expected: str) -> None:
    """Start, clear and compact give a fresh model context: full; resume and prompts: short."""
    assert plan(HookInput.parse(hook_json(event, source=source, prompt="hi"))) == expected


def test_the_output_has_the_documented_shape_and_fits_the_limit() -> None:
    """The printed object is exactly what Claude Code reads, cut at a line to 10,000 characters."""
    long = "\n".join(f"line {n}: " + "x" * 90 for n in range(300))
    output = hook_output("SessionStart", long)
    check_documented_shape(output, "SessionStart")
    text = output["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= MAX_CONTEXT_CHARS and text.endswith("hook limit]") and "line 0:" in text
    assert cap("short") == "short"
    check_documented_shape(json.loads(json.dumps(hook_output("UserPromptSubmit", "Where we are now"))),
                           "UserPromptSubmit")


def test_input_that_is_not_a_hook_is_refused() -> None:
    """Anything but a JSON object naming its event raises ValueError (the runner then prints nothing)."""
    for raw in ("", "[]", '{"cwd": "/x"}', "not json"):
        with pytest.raises(ValueError):
            HookInput.parse(raw)


def run_hook(home: Path, stdin: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str],
                                                                                   float]:
    full = {"TAPESTRY_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home), **(env or {})}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "tapestryd.cli", "context", "--hook"], input=stdin,
                          capture_output=True, text=True, env=full, timeout=HOOK_TIMEOUT_S)
    return done, time.monotonic() - started


@pytest.mark.parametrize("stdin", [hook_json("UserPromptSubmit", prompt="hello"),
                                   hook_json("SessionStart", source="startup"), "garbage", ""])
def test_with_the_daemon_down_the_hook_prints_nothing_and_exits_0_fast(home: Path, stdin: str) -> None:
    """No daemon, no cache: empty stdout, exit code 0 (never 2), well within the hook timeout (half of
    it: a start-up of some 0.3 s on an idle machine, so a busy one passes; waiting on a socket does not)."""
    done, seconds = run_hook(home, stdin)
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    assert seconds < HOOK_TIMEOUT_S / 2


def test_disabled_tapestry_injects_nothing(home: Path) -> None:
    """TAPESTRY_DISABLE=1 turns the hook off."""
    done, _ = run_hook(home, hook_json("SessionStart", source="startup"), {"TAPESTRY_DISABLE": "1"})
    assert done.returncode == 0 and done.stdout == ""
