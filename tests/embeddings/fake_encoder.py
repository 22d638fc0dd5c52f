"""A scripted stand-in for the embedding model: words with one meaning share a dimension.

``car``, ``automobile`` and ``vehicle`` are one meaning, ``garden``, ``beds`` and ``tomatoes``
another; any other word lands on a dimension of its own (crc32). Rows have norm 1 (0 for a
text without words). ``calls`` records each ``encode`` call's texts, so a test can see what
was encoded and how many times.
"""

from __future__ import annotations

import re
import zlib
from typing import Sequence

import numpy as np

DIM = 64
MEANINGS = {"car": 0, "automobile": 0, "vehicle": 0, "garden": 1, "beds": 1, "tomatoes": 1}


class FakeEncoder:
    """Bag-of-meanings vectors (see the module docstring)."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """float32 ``(len(texts), DIM)``, unit rows."""
        self.calls.append(list(texts))
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, MEANINGS.get(word, 2 + zlib.crc32(word.encode()) % (DIM - 2))] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)
