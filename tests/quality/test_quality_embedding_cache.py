"""The embedding judge's vectors kept on disk: a second run encodes only texts it has not seen."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from tapestryd.quality.embedding_cache import CachedEncoder


class Counting:
    """A stand-in encoder: a text's vector is its length and its vowel count; counts what it encodes."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        return np.array([[len(t), sum(c in "aeiou" for c in t)] for t in texts], dtype=np.float32)


def test_a_second_encoder_on_the_same_file_reads_what_the_first_encoded(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "vectors.sqlite"
    first, second = Counting(), Counting()
    texts = ["I sold my Volvo.", "We booked the ferry.", "I sold my Volvo."]
    a = CachedEncoder(first, path, "m").encode(texts)
    b = CachedEncoder(second, path, "m").encode([*texts, "A new sentence."])
    assert first.seen == ["I sold my Volvo.", "We booked the ferry."] and second.seen == ["A new sentence."]
    assert np.array_equal(a, b[:3]) and a.dtype == np.float32 and b.shape == (4, 2)
    assert CachedEncoder(Counting(), path, "other-model").encode(["We booked the ferry."]).shape == (1, 2)
