"""The extractive provider keeps episodic statements, the facts a memory is asked about later."""

from __future__ import annotations

import pytest

from tapestryd.summarize import Budget, ExtractiveSummarizer, Passage, SummaryRequest

EPISODIC = "I painted a small wooden boat at the lake house."
GENERAL = "I love small wooden boats at the lake house."


@pytest.mark.parametrize("order", [(EPISODIC, GENERAL), (GENERAL, EPISODIC)])
def test_what_i_did_is_kept_over_a_general_remark_of_the_same_words(order: tuple[str, str]) -> None:
    """Same content words, both first person: the day's one-sentence summary keeps the event."""
    request = SummaryRequest(node="L1:x:2026-03-04", level=1, period="Wednesday 04 March 2026",
                             inputs=tuple(Passage("10:00 me", text, "user") for text in order), source_chars=1200)
    summary = ExtractiveSummarizer().summarize(request, Budget())
    assert summary.text == EPISODIC
