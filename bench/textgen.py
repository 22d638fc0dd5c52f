"""Deterministic chat-like text for the benchmarks: Zipf-distributed words over a fixed vocabulary.

The vocabulary mixes English function words, a few hundred technical and everyday topic
words, and a long tail of made-up words built from syllables, so FTS5 sees a realistic
spread of frequent, middling and rare terms. Same seed, same text.
"""

from __future__ import annotations

import itertools
import random

__all__ = ["TOPIC_WORDS", "TextGen"]

FUNCTION_WORDS = (
    "the of and to a in is it you that for on with as this was are be at or have not but from by "
    "can if what all we when your there which will an do so about how up out them then more some "
    "would could should into just like than also only its over new use make need want get see any"
).split()

TOPIC_WORDS = (
    "python rust sqlite index query schema migration deploy docker kubernetes cluster latency cache "
    "thread async await socket server client request response header token budget summary calendar "
    "garden tomato compost sourdough starter flour oven rope braid knot sailing harbor tide weather "
    "invoice budget mortgage savings pension tax receipt refund travel train ticket hotel passport "
    "recipe pasta curry lentil marinade bicycle chain tyre brake gear running marathon knee stretch "
    "guitar chord melody rhythm piano sonata violin novel chapter poem essay grammar spanish french "
    "kernel driver firmware router firewall certificate password encryption backup restore snapshot "
    "regex parser lexer grammar compiler linker debugger profiler benchmark flamegraph allocation "
    "gradient tensor embedding transformer attention tokenizer dataset training inference quantize "
    "react component state hook props render webpack vite typescript eslint prettier jest playwright "
    "invoice customer churn revenue forecast spreadsheet pivot chart dashboard metric alert incident "
    "apartment lease landlord plumbing boiler radiator insulation paint drywall ladder drill screw"
).split()

_SYLLABLES = ("ka", "lo", "mi", "ter", "van", "sul", "dre", "po", "nix", "bra", "que", "tol", "fen", "gar",
              "hu", "jo", "ret", "sim", "ul", "wex", "yor", "zan", "cri", "dov", "el", "fra", "gli", "ost")


class TextGen:
    """Sentences and paragraphs of Zipf-weighted words (exponent ~1.1) from a fixed vocabulary."""

    def __init__(self, seed: int = 7, tail: int = 30_000) -> None:
        self.rng = random.Random(seed)
        made = {"".join(p) for p in itertools.islice(itertools.product(_SYLLABLES, repeat=3), tail)}
        self.vocab = FUNCTION_WORDS + TOPIC_WORDS + sorted(made)
        weights = [1.0 / (rank + 1) ** 1.1 for rank in range(len(self.vocab))]
        self.cum = list(itertools.accumulate(weights))

    def words(self, n: int) -> list[str]:
        """``n`` words drawn by weight."""
        return self.rng.choices(self.vocab, cum_weights=self.cum, k=n)

    def sentence(self) -> str:
        """One sentence of 6 to 18 words, capitalised, with a full stop."""
        words = self.words(self.rng.randint(6, 18))
        return " ".join(words).capitalize() + "."

    def text(self, low: int, high: int) -> str:
        """A message of roughly ``low`` to ``high`` words in paragraphs of a few sentences."""
        target = self.rng.randint(low, high)
        paragraphs, count = [], 0
        while count < target:
            sentences = [self.sentence() for _ in range(self.rng.randint(1, 4))]
            count += sum(s.count(" ") + 1 for s in sentences)
            paragraphs.append(" ".join(sentences))
        return "\n\n".join(paragraphs)
