"""The detector's keyword pre-filter finds exactly the keywords a scan for each one finds.

``_present`` skips keywords whose shared substring (``sk-``, ``gh``, ``k_``, ``pw``,
``key``) or rare character is absent; it must equal the plain scan on every text. Rules
whose characters (``_NEEDS``) are absent are not looked for at all; the secrets found must
be those of running every rule whose keyword occurs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_fakes import near_misses, secret_cases
from tapestryd.privacy import secrets

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
FRAGMENTS = sorted({k[i:j] for k in secrets._KEYWORDS for i in range(len(k)) for j in range(i + 1, len(k) + 1)})


def scan_each(lowered: str) -> set[str]:
    """The reference: every keyword looked for on its own."""
    return {k for k in secrets._KEYWORDS if k in lowered}


def corpus_texts() -> list[str]:
    found = CORPUS.rglob("*") if CORPUS.exists() else ()
    files = sorted(p for p in found if p.is_file() and p.suffix in (".json", ".jsonl"))
    texts = []
    for path in files:
        data = path.read_text("utf-8", "replace")
        texts += [data[i:i + 2000] for i in range(0, len(data), 1500)]
    return texts


def fake_texts() -> list[str]:
    return [text for _, text, _ in secret_cases()] + near_misses()


def test_every_keyword_is_in_one_bucket() -> None:
    bucketed = [k for _, buckets in secrets._KEYWORD_GROUPS for _, group in buckets for k in group]
    assert sorted(bucketed) == sorted(secrets._KEYWORDS)
    for char, buckets in secrets._KEYWORD_GROUPS:
        for shared, group in buckets:
            assert all(char in k and shared in k for k in group)


@given(st.lists(st.sampled_from(FRAGMENTS + [" ", "x", "-", "_", "A", "Z", "é"]), max_size=40))
@settings(max_examples=400, deadline=None)
def test_gate_equals_scanning_each_keyword(parts: list[str]) -> None:
    lowered = "".join(parts).lower()
    assert secrets._present(lowered) == scan_each(lowered)


def test_gate_equals_scanning_each_keyword_on_fakes_and_corpus() -> None:
    texts = fake_texts() + corpus_texts()
    for text in texts:
        assert secrets._present(text.lower()) == scan_each(text.lower())


def reference_candidates(text: str) -> Iterator[secrets.Finding]:
    """Every rule whose keyword a plain scan finds (no character gate), in rank order."""
    present = scan_each(text.lower())
    for rank, rule in enumerate(secrets._RULES):
        if present.isdisjoint(rule.keywords) or (rule.gate is not None and not rule.gate(text)):
            continue
        for match in secrets._matches(rule, text):
            if rule.kind_of(match):
                yield secrets.Finding(rule.kind_of(match), match.start(rule.group), match.end(rule.group), rank)


def test_findings_equal_the_reference_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """find_secrets with the gates and with the plain scan of every rule report the same spans and kinds."""
    texts = fake_texts() + corpus_texts()
    gated = [secrets.find_secrets(t) for t in texts]
    monkeypatch.setattr(secrets, "_candidates", reference_candidates)
    assert [secrets.find_secrets(t) for t in texts] == gated
    assert any(gated)
