"""Compression, retention and the Tapestry Score on hand-made cases whose values are known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tapestryd.quality.metrics import (
    Compression,
    Retention,
    best_scores,
    compression_of,
    retention_of,
    tapestry_score,
)
from tapestryd.quality.similarity import TfidfSimilarity

# Fitted on exactly "apple banana" and "apple cherry": idf(apple) = ln(3/3) + 1 = 1 and
# idf(banana) = idf(cherry) = ln(3/2) + 1, so their cosine is 1 / (1 + idf(banana)^2).
IDF_RARE = math.log(3 / 2) + 1
APPLE_COSINE = 1 / (1 + IDF_RARE**2)


def test_compression_is_source_over_summary_in_characters_and_tokens() -> None:
    """1,000 source characters over a 50-character summary is 20:1; tokens are ceil(chars/4)."""
    c = compression_of("x" * 1000, "y" * 50)
    assert (c.source_chars, c.summary_chars, c.source_tokens, c.summary_tokens) == (1000, 50, 250, 13)
    assert c.chars_ratio == 20.0
    assert c.tokens_ratio == pytest.approx(250 / 13)


def test_compression_over_many_nodes_is_pooled_not_averaged() -> None:
    """(1000 + 300) / (50 + 100) = 8.67, not the mean of 20 and 3: long nodes weigh more."""
    total = compression_of("x" * 1000, "y" * 50) + compression_of("x" * 300, "y" * 100)
    assert total.chars_ratio == pytest.approx(1300 / 150)


def test_an_empty_summary_has_no_compression_ratio() -> None:
    """Dividing by an empty summary would be infinite compression; it is reported as unknown."""
    assert Compression(100, 0, 25, 0).chars_ratio is None
    assert Compression(100, 0, 25, 0).tokens_ratio is None


def test_a_fact_restated_in_one_sentence_is_retained_and_an_absent_one_is_not() -> None:
    """Two facts, one stated verbatim in the summary and one never mentioned: retention 1/2."""
    facts = ["Alice moved to Paris in 2019.", "Bob bought a red bicycle."]
    summary = "Alice moved to Paris in 2019. The weather was mild."
    found = retention_of(facts, summary, TfidfSimilarity())
    assert (found.facts, found.retained, found.rate) == (2, 1, 0.5)


def test_a_fact_is_compared_with_the_best_sentence_not_the_whole_summary() -> None:
    """A long summary does not dilute a fact it states word for word in one sentence."""
    filler = " ".join(f"Topic {w} was discussed at length." for w in ("rust", "go", "java", "kotlin", "swift"))
    scores = best_scores(["Alice moved to Paris in 2019."], filler + " Alice moved to Paris in 2019.",
                         TfidfSimilarity())
    assert scores[0] == pytest.approx(1.0)


def test_tfidf_cosine_matches_hand_computed_idf_weights() -> None:
    """cos("apple banana", "apple cherry") = 1 / (1 + (ln 1.5 + 1)^2) = 0.3361 when fitted on both."""
    similarity = TfidfSimilarity()
    similarity.fit(["apple banana", "apple cherry"])
    assert similarity.matrix(["apple banana"], ["apple cherry"])[0, 0] == pytest.approx(APPLE_COSINE)
    assert APPLE_COSINE == pytest.approx(0.3361, abs=1e-4)


def test_retention_applies_the_threshold_inclusively() -> None:
    """A best cosine of 0.336 is retained at the default threshold 0.30 and not at 0.40."""
    for threshold, retained in ((0.30, 1), (0.40, 0), (APPLE_COSINE, 1)):
        similarity = TfidfSimilarity(threshold)
        similarity.fit(["apple banana", "apple cherry"])
        assert retention_of(["apple banana"], "apple cherry.", similarity).retained == retained


def test_stop_words_alone_never_make_a_match() -> None:
    """Sentences sharing only stop words ("I was there and it was") have cosine 0."""
    scores = best_scores(["I was there and it was fine."], "It was there and I was happy.", TfidfSimilarity())
    assert scores[0] < 0.30


def test_no_facts_or_an_empty_summary_give_no_retention_rate_or_zero() -> None:
    """No facts: rate unknown. An empty summary retains nothing."""
    assert retention_of([], "anything.", TfidfSimilarity()).rate is None
    assert retention_of(["Alice moved to Paris."], "", TfidfSimilarity()) == Retention(1, 0)
    assert np.array_equal(best_scores(["a fact"], "   ", TfidfSimilarity()), np.zeros(1))


def test_tapestry_score_is_compression_times_retention() -> None:
    """20:1 at 50 % retention scores 10.0; python-tapestry's 82:1 at 12.6 % scores 10.3."""
    assert tapestry_score(20.0, 0.5) == 10.0
    assert tapestry_score(82.0, 0.126) == pytest.approx(10.33, abs=0.01)
    assert tapestry_score(None, 0.5) is None
    assert tapestry_score(20.0, None) is None


def test_retention_adds_across_nodes() -> None:
    """1 of 2 plus 3 of 4 is 4 of 6."""
    assert (Retention(2, 1) + Retention(4, 3)).rate == pytest.approx(4 / 6)
