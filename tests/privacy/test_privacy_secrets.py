"""The secret detector against real-looking fake secrets and near-misses that must stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_fakes import near_misses, secret_cases
from tapestryd.privacy import find_secrets, outbound, placeholder, redact

CASES = secret_cases()


@pytest.mark.parametrize(("kind", "text", "secret"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_secret_is_replaced_by_its_typed_placeholder(kind: str, text: str, secret: str) -> None:
    """Each fake secret disappears and its kind's placeholder takes its place."""
    out = redact(text)
    assert secret not in out
    assert placeholder(kind) in out
    assert out == text.replace(secret, placeholder(kind), 1) or kind == "private-key"


@pytest.mark.parametrize("text", near_misses())
def test_near_miss_is_left_alone(text: str) -> None:
    """SHAs, UUIDs, digests, image data, prose and code references are not secrets."""
    assert find_secrets(text) == []
    assert redact(text) == text


def test_surrounding_text_stays_readable() -> None:
    """Only the secret goes: user, host and the words around it are kept."""
    out = redact("connect with postgres://app:Zx9-pQ7wL2@db.internal:5432/prod now")
    assert out == "connect with postgres://app:[secret:password-in-url]@db.internal:5432/prod now"


def test_vendor_kind_wins_over_assignment() -> None:
    """``OPENAI_API_KEY=sk-proj-…`` names the vendor, not a generic credential."""
    kind, text, secret = CASES[0]
    out = redact(f"OPENAI_API_KEY={secret}")
    assert out == "OPENAI_API_KEY=[secret:openai-api-key]"


def test_findings_are_ordered_and_disjoint() -> None:
    """Several secrets in one text come back in order, never overlapping."""
    text = "\n".join(c[1] for c in CASES)
    found = find_secrets(text)
    assert [f.start for f in found] == sorted(f.start for f in found)
    assert all(a.end <= b.start for a, b in zip(found, found[1:]))
    assert all(secret not in redact(text) for _, _, secret in CASES)


def test_outbound_strips_private_then_redacts() -> None:
    """What leaves the log loses private spans and secrets, in that order."""
    _, _, key = CASES[3]
    text = f"public part <private>my diagnosis</private> and token {key}"
    assert outbound(text) == "public part  and token [secret:github-token]"


_texts = st.lists(st.one_of(st.text(max_size=40), st.sampled_from([c[1] for c in CASES] + near_misses())),
                  max_size=6).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(_texts)
def test_redaction_is_idempotent(text: str) -> None:
    """Redacting twice changes nothing more than redacting once (placeholders are not secrets)."""
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=30), st.sampled_from(CASES), st.text(max_size=30))
def test_secret_in_any_surrounding_text_is_removed(before: str, case: tuple[str, str, str], after: str) -> None:
    """Whatever surrounds a pasted secret, no copy of it survives outbound()."""
    _, text, secret = case
    assert secret not in outbound(f"{before} {text} {after}")


BARE_AWS = "Zq3vN8kR2tWx7LmP4sYb9Hc1Jd6Fg0Ka5Ue/Ti+Q"  # 40 characters of an AWS secret key's alphabet


@pytest.mark.parametrize("text", [
    f"here is my aws key {BARE_AWS} thanks",
    f"the secret: {BARE_AWS}",
    f"AKIAIOSFODNN7EXAMPLE\n{BARE_AWS}\n",  # under its key id, as in a credentials CSV
    f"AKIAIOSFODNN7EXAMPLE,{BARE_AWS}",
    f"pasted:\n  '{BARE_AWS}',\nthat's it",  # alone on its line
    BARE_AWS,
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",  # AWS's documentation example
])
def test_a_bare_aws_secret_key_is_redacted(text: str) -> None:
    """A 40-character key without a label is found near a key id or key word, or alone on a line."""
    found = find_secrets(text)
    assert found[-1].kind in ("aws-secret-key", "credential")  # "secret: …" is also an assignment
    assert BARE_AWS not in redact(text) and "EXAMPLEKEY" not in redact(text)


@pytest.mark.parametrize("text", [
    "commit 3f786850e387550fdab836ed7e6dc881de23001b is the key fix",  # SHA-1: lower-case hex
    "the key is in /home/me/Projects/MyProject2/src/Main.java",
    "secret sauce: ThisIsAnIdentifierNameWithDigits12345678 ok",  # words, low entropy
    f"key {BARE_AWS}QQ and more",  # 42 characters: not a key's length
    f"aws data:image/png;base64,{BARE_AWS * 3}",  # a longer base64 blob
    f"in prose the run {BARE_AWS} means nothing without a word nearby saying what it is",
    "secret key 0123456789012345678901234567890123456789",  # digits only
    "the key class is AbstractSingletonProxyFactoryBeanImpl123 here",  # CamelCase identifiers
    "HttpRequestHandlerFactoryProviderImpl2V3",
])
def test_forty_character_runs_that_are_not_keys_stay(text: str) -> None:
    """The guards: hex hashes, paths, identifiers, other lengths, blobs, runs without context."""
    assert redact(text) == text
