"""Recall Yield: the same nodes summarized with and without telescoping context."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from quality_helpers import ALICE, BOB, ctl

from tapestryd.quality.evaluate import evaluate_levels, home_facts
from tapestryd.quality.recall import even_sample, recall_yield
from tapestryd.quality.similarity import TfidfSimilarity
from tapestryd.quality.tree import load_tree


@pytest.mark.parametrize(("size", "expected"), [(3, ["a", "c", "e"]), (1, ["c"]), (9, list("abcde")), (0, [])])
def test_the_sample_is_spread_evenly_and_the_same_every_run(size: int, expected: list[str]) -> None:
    """First and last included, evenly between; no randomness."""
    assert even_sample(list("abcde"), size) == expected


def test_recall_yield_compares_both_summaries_and_their_retention(built_home: Path) -> None:
    """Only Tue and Wed have context (the week's earlier days). A stand-in provider that says
    Alice's fact with context and Bob's without: similarity 0, retention 0/2 with and 1/2 without."""
    conn = sqlite3.connect(built_home / "projections.db")
    tree = load_tree(conn)
    homed, _ = home_facts(tree, None)
    similarity = TfidfSimilarity()
    evaluate_levels(tree, homed, similarity, levels=(1,))
    calls: list[tuple[str, bool]] = []

    def summarize(key: str, with_context: bool) -> str:
        calls.append((key, with_context))
        return ALICE if with_context else BOB

    [level1] = recall_yield(tree, conn, homed, similarity, summarize, levels=(1,), sample=5)
    data = level1.to_dict()
    assert sorted({key for key, _ in calls}) == ["L1:claude-ai:2026-03-03", "L1:claude-ai:2026-03-04"]
    assert (data["candidates"], data["sampled"], data["similarity_mean"]) == (2, 2, 0.0)
    assert (data["facts"], data["retention_with_context"], data["retention_without_context"]) == (2, 0.0, 0.5)


def test_the_extractive_provider_ignores_context_so_its_recall_yield_is_one(built_home: Path) -> None:
    """Through the CLI with the default provider: the two summaries are identical."""
    done = ctl("eval", "--level", "1", "--yield-sample", "2", "-f", "json", home=built_home)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    [level1] = data["recall_yield"]["levels"]
    assert (level1["sampled"], level1["similarity_mean"]) == (2, 1.0)
    assert data["provider"]["name"] == "extractive"
