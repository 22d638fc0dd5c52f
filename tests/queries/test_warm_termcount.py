"""Term counting for the warm index equals scikit-learn's CountVectorizer with the same analyzer,
and the daemon's warm index no longer imports scikit-learn."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tapestryd.projections.analysis import Analyzer
from tapestryd.projections.termcount import count, fit_counts

TEXTS = [
    "The watchdog observer test is flaky on macOS; the observer restarts.",
    "Tie a bowline knot on the sailing rope, then a second bowline.",
    "",
    "the and of",  # only stop words
    "Café crème: a recipe for braided bread with honey, honey and sesame",
    "Flaky tests again: the watchdog's observer, macOS 14.2, bread at noon",
]


@pytest.mark.parametrize("min_df", [1, 2])
def test_fitted_counts_equal_count_vectorizers(min_df: int) -> None:
    """Same vocabulary (term → column) and the same float32 counts, row for row."""
    from sklearn.feature_extraction.text import CountVectorizer

    expected = CountVectorizer(analyzer=Analyzer(), min_df=min_df, dtype=np.float32)
    want = expected.fit_transform(TEXTS)
    vocabulary, got = fit_counts(TEXTS, Analyzer(), min_df=min_df)
    assert vocabulary == dict(expected.vocabulary_)
    assert got.dtype == np.float32 and got.shape == want.shape and got.has_sorted_indices
    assert (got != want).nnz == 0


def test_counts_over_a_fitted_vocabulary_equal_count_vectorizers_transform() -> None:
    """Later texts counted with the fitted columns; unknown terms are left out."""
    from sklearn.feature_extraction.text import CountVectorizer

    vocabulary, _ = fit_counts(TEXTS, Analyzer())
    later = ["A new bowline, a new knot, and quantum chromodynamics", "nothing known here"]
    want = CountVectorizer(analyzer=Analyzer(), vocabulary=vocabulary, dtype=np.float32).transform(later)
    got = count(later, Analyzer(), vocabulary)
    assert got.shape == (2, len(vocabulary)) and (got != want).nnz == 0 and got[1].nnz == 0


def test_no_terms_raise_value_error() -> None:
    """Only stop words, or no term in ``min_df`` documents: ValueError, as CountVectorizer raises."""
    with pytest.raises(ValueError, match="empty vocabulary"):
        fit_counts(["the and of", ""], Analyzer())
    with pytest.raises(ValueError, match="in 2 documents or more"):
        fit_counts(["bread", "knot"], Analyzer(), min_df=2)


def test_the_warm_index_fits_and_updates_without_importing_scikit_learn(tmp_path: Path) -> None:
    """A fit and a delta in a fresh interpreter leave ``sklearn`` out of ``sys.modules``."""
    script = """
import sqlite3, sys
from pathlib import Path
from tapestryd.projections.tfidf import SimilarityIndex
db = Path(sys.argv[1])
conn = sqlite3.connect(db)
conn.executescript('''CREATE TABLE messages (id INTEGER PRIMARY KEY, text TEXT, agent TEXT, role TEXT, ts TEXT,
    conversation TEXT);
CREATE TABLE similarity_feed (doc TEXT PRIMARY KEY, seq INTEGER NOT NULL);
INSERT INTO messages VALUES (1, 'braided bread with honey', 'chatgpt', 'user', '2026-03-02T09:00:00Z', 'c1');
INSERT INTO similarity_feed VALUES ('m:1', 1);''')
conn.commit()
index = SimilarityIndex(db)
index.build()
conn.execute("INSERT INTO messages VALUES (2, 'more honey bread', 'chatgpt', 'user', '2026-03-02T10:00:00Z', 'c1')")
conn.execute("INSERT INTO similarity_feed VALUES ('m:2', 2)")
conn.commit()
assert index.refresh() == 1 and index.status()['delta'] == 1
print(sorted(m.doc for m in index.query('honey bread')), 'sklearn' in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "projections.db")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "['m:1', 'm:2'] False"
