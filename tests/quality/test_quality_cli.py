"""``tapestryctl eval`` and ``tapestryctl drift`` as a user runs them: the command line, a bare environment and
a real home (run in this process by tests/cli_runner.py)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from quality_helpers import ALICE, BOB, ctl

from tapestryd.config import load_settings
from tapestryd.events import (
    MessageRecorded,
    NewEvent,
    NodeSummarized,
    event_id,
    format_utc,
)
from tapestryd.operations.runtime import Runtime

T0 = datetime(2026, 3, 4, 9, 30, tzinfo=timezone.utc)
SEGMENT, DAY = "L0:claude-ai:2026-03-04:claude-ai:c1", "L1:claude-ai:2026-03-04"


def summary(node: str, text: str, n: int) -> NewEvent:
    event = NodeSummarized(node=node, level=int(node[1]), fingerprint=f"fp{n}", provider="extractive", model="",
                           prompt_version="1", title="t", text=text)
    return NewEvent(event_id("summary", node, str(n)), event, T0, "claude-ai", "summarizer")


def message(key: str, role: str, text: str) -> NewEvent:
    return NewEvent(event_id("msg", key), MessageRecorded("claude-ai:c1", key, role, text, format_utc(T0)), T0,
                    "claude-ai", f"export#{key}")


@pytest.fixture
def seeded(home: Path) -> Path:
    """One day, one conversation of two messages; its L0 and L1 summarized, the L1 twice."""
    with Runtime.open(load_settings(home)) as rt:
        rt.store.append([message("m1", "user", ALICE), message("m2", "assistant", BOB), summary(SEGMENT, ALICE, 1),
                         summary(DAY, ALICE, 2), summary(DAY, BOB, 3)])
        rt.projector.catch_up()
    return home


def test_eval_reports_compression_retention_and_score_per_level(seeded: Path) -> None:
    """L0 keeps Alice's fact of two: 59 / 29 = 2.03:1 at 50 % retention, score 1.02."""
    done = ctl("eval", "--level", "0", "-f", "json", home=seeded)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["method"]["similarity"] == "tfidf" and data["method"]["threshold"] == 0.3
    assert data["facts"] == {"source": "extracted", "file": None, "total": 2, "matched": 2, "unmatched": 0,
                             "skipped": 0, "problems": []}
    [level0] = data["levels"]
    assert (level0["source_chars"], level0["summary_chars"], level0["facts"], level0["retained"]) == (59, 29, 2, 1)
    assert level0["tapestry_score"] == pytest.approx(59 / 29 * 0.5, abs=1e-3)


def test_eval_of_a_home_with_nothing_summarized_reports_empty_levels(home: Path) -> None:
    """One greeting, no summary and no fact extracted from it: a table of zeros, not a traceback."""
    with Runtime.open(load_settings(home)) as rt:
        rt.store.append([message("m1", "user", "hello")])
        rt.projector.catch_up()
    done = ctl("eval", "-f", "json", home=home)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert all(level["facts"] == 0 for level in json.loads(done.stdout)["levels"])


def test_eval_reads_a_facts_file_and_prints_a_table(seeded: Path, tmp_path: Path) -> None:
    """The latest L1 summary states Bob's fact, so a file naming it finds it retained at L1."""
    facts = tmp_path / "facts.jsonl"
    facts.write_text(json.dumps({"fact": BOB, "conversation_uuid": "c1"}) + "\n")
    done = ctl("eval", "--facts", str(facts), "--level", "1", home=seeded)
    assert done.returncode == 0, done.stderr
    assert "tfidf cosine >= 0.30" in done.stdout
    table = done.stdout.split("Recall Yield")[0]
    assert [line.split()[0] for line in table.splitlines() if line.startswith("L")] == ["L1"]
    assert "100.0%" in done.stdout


def test_eval_skips_a_bad_facts_line_and_says_so(seeded: Path, tmp_path: Path) -> None:
    """A broken line is named and counted; the good fact after it is still evaluated."""
    facts = tmp_path / "facts.jsonl"
    facts.write_text('{"fact": "cut off' + "\n" + json.dumps({"fact": BOB, "conversation_uuid": "c1"}) + "\n")
    done = ctl("eval", "--facts", str(facts), "--level", "1", home=seeded)
    assert done.returncode == 0, done.stderr
    assert "skipped 1 bad lines of the facts file:" in done.stdout and f"{facts}:1: not JSON" in done.stdout
    assert "facts: 1 from" in done.stdout and "100.0%" in done.stdout


def test_eval_with_a_missing_facts_file_is_one_clear_error(seeded: Path, tmp_path: Path) -> None:
    """No traceback: the path is named and the exit code is 1."""
    done = ctl("eval", "--facts", str(tmp_path / "nope.jsonl"), home=seeded)
    assert done.returncode == 1
    assert "no such facts file" in done.stderr and "Traceback" not in done.stderr



def test_eval_with_a_folder_as_facts_file_says_it_is_not_a_file(seeded: Path, tmp_path: Path) -> None:
    """A folder (or /dev/null) exists: 'no such facts file' would send the user looking for a typo."""
    done = ctl("eval", "--facts", str(tmp_path), home=seeded)
    assert done.returncode == 1
    assert f"the facts file {tmp_path} is not a file" in done.stderr and "Traceback" not in done.stderr


def test_drift_flags_a_node_whose_summary_now_says_something_else(seeded: Path) -> None:
    """The day's summary went from Alice's move to Bob's bicycle: no shared word, drift 1.0, severe."""
    done = ctl("drift", "-f", "json", home=seeded)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["versions"], data["nodes_compared"], data["by_severity"]["severe"]) == (3, 1, 1)
    [flagged] = data["flagged"]
    assert (flagged["node"], flagged["severity"], flagged["max_drift"]) == (DAY, "severe", 1.0)
    assert "severe" in ctl("drift", home=seeded).stdout


def test_eval_works_with_an_incomplete_remote_provider_when_no_sample_is_asked(seeded: Path) -> None:
    """An openai provider without base URL cannot summarize; eval still measures, without Recall Yield."""
    (seeded / "tapestry.toml").write_text((seeded / "tapestry.toml").read_text() + '[summarize]\nprovider = "openai"\n')
    done = ctl("eval", "-f", "json", home=seeded)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["recall_yield"] is None and data["provider"]["name"] == "openai"
    asked = ctl("eval", "--yield-sample", "2", home=seeded)
    assert asked.returncode == 1 and "error:" in asked.stderr and "Traceback" not in asked.stderr
