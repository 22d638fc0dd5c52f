"""English function words left out of free-text search terms (defined with the analyzer in
:mod:`tapestryd.projections.analysis`, so search and the warm index leave out the same words)."""

from __future__ import annotations

from tapestryd.projections.analysis import STOPWORDS

__all__ = ["STOPWORDS"]
