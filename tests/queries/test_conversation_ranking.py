"""Session-level ranking helpers: which words may stem to a query stem."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapestryd.projections.analysis import TOKEN, Analyzer, fold
from tapestryd.projections.analysis import stem_starts

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
# Words each Porter step rewrites (Porter 1980's own examples), and final y after a vowel.
TRICKY = ("caresses", "ponies", "ties", "agreed", "plastered", "motoring", "conflated", "troubled", "sized",
          "hopping", "filing", "happy", "sky", "eyed", "toy", "days", "relational", "conditional", "valenci",
          "digitizer", "conformabli", "radicalli", "differentli", "vileli", "analogousli", "vietnamization",
          "predication", "operator", "feudalism", "decisiveness", "hopefulness", "callousness", "formaliti",
          "sensitiviti", "sensibiliti", "triplicate", "formative", "formalize", "electriciti", "electrical",
          "hopeful", "goodness", "revival", "allowance", "inference", "airliner", "gyroscopic", "adjustable",
          "defensible", "irritant", "replacement", "adjustment", "dependent", "adoption", "homologou",
          "communism", "activate", "angulariti", "homologous", "effective", "bowdlerize", "probate", "rate",
          "cease", "controll", "roll", "résumé", "naïvely")


def test_every_corpus_word_starts_as_its_stem_does() -> None:
    """The pre-filter never loses a word: each word of the shared corpus matches the pattern of its own stem."""
    if not CORPUS.is_dir():
        pytest.skip(f"shared corpus not found at {CORPUS}")
    words = {fold(w) for w in TRICKY}  # text is folded before matching, as in _stems_held
    for path in CORPUS.rglob("*"):
        if path.is_file():
            words.update(TOKEN.findall(fold(path.read_text(errors="ignore").lower())))
    ordered = sorted(words)
    stems = Analyzer().stems(ordered)
    missed = [(w, s) for w, s in zip(ordered, stems) if not stem_starts({s}).fullmatch(w)]
    assert len(ordered) > 3000 and missed == []


def test_only_words_that_may_stem_to_a_query_stem_are_picked() -> None:
    """Whole tokens (underscores split them, as FTS5's do), a y read for i, nothing for an empty query."""
    pattern = stem_starts({"certif", "ei"})
    assert pattern.findall("my_certificates, the eyed cat certify stage") == ["certificates", "eyed", "certify"]
    assert stem_starts(set()).findall("anything at all") == []
