"""Texts as a docs × terms matrix of raw counts, with numpy and scipy alone.

This is what scikit-learn's ``CountVectorizer(analyzer=<callable>, min_df=..., dtype=float32)``
computes (``sklearn/feature_extraction/text.py``: ``_count_vocab``, ``_sort_features``,
``_limit_features``), and all the warm index asked of it: the analyzer gives each text's
terms, the vocabulary numbers them in sorted order, terms found in fewer than ``min_df``
documents are dropped. Importing scikit-learn would cost the daemon some 70 MB of memory
for these few lines.
"""

from __future__ import annotations

from array import array
from typing import Any, Callable, Iterable

__all__ = ["count", "fit_counts"]

Analyze = Callable[[str], list[str]]


def fit_counts(texts: Iterable[str], analyze: Analyze, *, min_df: int = 1) -> tuple[dict[str, int], Any]:
    """The vocabulary (term → column, columns in sorted term order) and the docs × terms counts
    (scipy CSR, float32) of ``texts``, keeping the terms of at least ``min_df`` documents.

    Raises ValueError when no term is left (no text, or only stop words).
    """
    vocabulary: dict[str, int] = {}
    counts = _count(texts, analyze, vocabulary, grow=True)
    if not vocabulary:
        raise ValueError("empty vocabulary: the texts hold no terms")
    return _sorted(vocabulary, counts, min_df)


def count(texts: Iterable[str], analyze: Analyze, vocabulary: dict[str, int]) -> Any:
    """The docs × terms counts (scipy CSR, float32) of ``texts`` over a fitted ``vocabulary``;
    terms outside it are not counted."""
    return _count(texts, analyze, vocabulary, grow=False)


def _count(texts: Iterable[str], analyze: Analyze, vocabulary: dict[str, int], *, grow: bool) -> Any:
    """Counts of each text's terms; with ``grow`` an unseen term gets the next column."""
    import numpy as np
    import scipy.sparse as sp

    columns, values, indptr = array("i"), array("f"), array("q", [0])
    for text in texts:
        row: dict[int, int] = {}
        for term in analyze(text):
            column = vocabulary.get(term)
            if column is None:
                if not grow:
                    continue
                column = vocabulary[term] = len(vocabulary)
            row[column] = row.get(column, 0) + 1
        columns.extend(row.keys())
        values.extend(row.values())
        indptr.append(len(columns))
    pointers = np.frombuffer(indptr, dtype=np.int64)
    if pointers[-1] < np.iinfo(np.int32).max:
        pointers = pointers.astype(np.int32)
    counts = sp.csr_matrix((np.frombuffer(values, dtype=np.float32), np.frombuffer(columns, dtype=np.int32), pointers),
                           shape=(len(indptr) - 1, len(vocabulary)))
    counts.sort_indices()
    return counts


def _sorted(vocabulary: dict[str, int], counts: Any, min_df: int) -> tuple[dict[str, int], Any]:
    """Columns renumbered in sorted term order, then those of fewer than ``min_df`` documents dropped."""
    import numpy as np

    terms = sorted(vocabulary)
    new_column = np.empty(len(terms), dtype=counts.indices.dtype)
    for new, term in enumerate(terms):
        new_column[vocabulary[term]] = new
    counts.indices = new_column.take(counts.indices)
    counts.has_sorted_indices = False
    counts.sort_indices()
    if min_df > 1:
        keep = np.flatnonzero(np.bincount(counts.indices, minlength=len(terms)) >= min_df)
        if not len(keep):
            raise ValueError(f"no term is found in {min_df} documents or more")
        counts = counts[:, keep]
        terms = [terms[i] for i in keep]
    return {term: column for column, term in enumerate(terms)}, counts
