"""The character gate of the secret detector (``secrets._NEEDS``) never hides a secret.

A rule is skipped when none of its characters occurs in the text; that is sound only if
every match of the rule holds one of them. Checked on every rule's raw matches over the
fake secrets, the near misses and the corpus, and by comparing the detector with a
reference that runs every rule whose keyword occurs, on texts recombined from secret
fragments with gate characters added and removed.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_privacy_keyword_gate import corpus_texts, fake_texts, reference_candidates

from privacy_fakes import secret_cases
from tapestryd.privacy import secrets


def _reference(text: str) -> list[secrets.Finding]:
    """What find_secrets reports with the reference candidates (merging as find_secrets does)."""
    original = secrets._candidates
    secrets._candidates = reference_candidates
    try:
        return secrets.find_secrets(text)
    finally:
        secrets._candidates = original


def test_every_rule_has_its_characters() -> None:
    assert len(secrets._NEEDS) == len(secrets._RULES)
    assert set(secrets._NEED_CHARS) == set("".join(secrets._NEEDS))


def test_every_match_holds_one_of_its_rules_characters() -> None:
    """Raw pattern matches (no keyword, gate or accept test) all hold what the gate looks for ("A": a key prefix)."""
    texts = fake_texts() + corpus_texts()
    matched = 0
    for rule, needs in secrets._RULE_NEEDS:
        for text in texts:
            for match in rule.pattern.finditer(text):
                matched += 1
                held = secrets._held(match.group(0))
                assert not needs or any(c in held for c in needs), (rule.kind, match.group(0))
    assert matched > 60  # the fake texts alone hold 71 raw matches; the shared corpus, where present, adds more


def test_prose_without_gate_characters_looks_for_few_rules() -> None:
    """A text holding none of the characters runs only the rules without any (bearer tokens)."""
    rules, _ = secrets._plan("")
    assert [rule.kind for _, rule in rules] == ["bearer-token"]
    assert len(secrets._plan(secrets._NEED_CHARS)[0]) == len(secrets._RULES)


PIECES = [text for _, text, _ in secret_cases()]
FRAGMENTS = sorted({p[i:i + n] for p in PIECES for n in (3, 9, 40) for i in range(0, max(1, len(p) - n), 7)})


@given(st.lists(st.sampled_from(FRAGMENTS + PIECES + [" ", "\n", ":", "=", "-", "_", ".", "A", "bearer "]),
                max_size=12),
       st.sampled_from(["", ":", "=", "-", "_", ".", "A", "AKIA", "AIza"]))
@settings(max_examples=300, deadline=None)
def test_findings_equal_the_reference_on_recombined_secrets(parts: list[str], dropped: str) -> None:
    text = "".join(parts).replace(dropped, " ") if dropped else "".join(parts)
    assert secrets.find_secrets(text) == _reference(text)


def test_findings_equal_the_reference_without_each_character() -> None:
    """Each fake secret with one gate character blanked out is found (or not) as the reference finds it."""
    found = 0
    for text in PIECES:
        for char in secrets._NEED_CHARS:
            variant = text.replace(char, " ")
            expected = _reference(variant)
            assert secrets.find_secrets(variant) == expected
            found += bool(expected)
    assert found
