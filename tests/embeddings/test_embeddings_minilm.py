"""The numpy MiniLM encoder on a tiny BERT written here: unit vectors, padding that changes nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tokenizers")
pytest.importorskip("safetensors")

from tapestryd.embeddings.minilm import MiniLMEncoder  # noqa: E402
from tiny_bert import HIDDEN  # noqa: E402
from tiny_bert import tiny_bert as _tiny_bert  # noqa: E402


def test_embeddings_are_unit_rows_one_per_text(tmp_path: Path) -> None:
    """Shape (texts, hidden) and norm 1, what the cosine judge expects."""
    vectors = MiniLMEncoder(_tiny_bert(tmp_path)).encode(["the cat sat", "a dog ran far away", "the mat"])
    assert vectors.shape == (3, HIDDEN)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx(np.ones(3), abs=1e-5)


def test_a_text_embeds_the_same_alone_and_beside_a_longer_one(tmp_path: Path) -> None:
    """Padding tokens are masked out of attention and pooling: batch company changes nothing."""
    encoder = MiniLMEncoder(_tiny_bert(tmp_path))
    alone = encoder.encode(["the cat sat"])[0]
    batched = encoder.encode(["a dog ran far away on the mat the cat sat on", "the cat sat"])[1]
    assert batched == pytest.approx(alone, abs=1e-5)
    assert not np.allclose(alone, encoder.encode(["a dog ran"])[0])
