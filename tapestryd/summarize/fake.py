"""A scripted provider for tests: answers from a queue, records every request.

Shipped in the package (the habit of simonw/llm's fake model and structlog's testing
module) so tests of the summarizer process manager need no network. Without queued
answers it makes a deterministic summary from the request: its title names the node and
its text carries a hash of the inputs, so different inputs give different text.
"""

from __future__ import annotations

import hashlib
from collections import deque

from tapestryd.errors import ProviderError
from tapestryd.summarize.base import Budget, Summary, SummaryRequest, Usage

__all__ = ["ScriptedSummarizer"]


class ScriptedSummarizer:
    """A fake provider: ``enqueue`` answers or errors, read ``history`` afterwards."""

    name = "fake"
    model = "scripted"
    prompt_version = "f1"

    def __init__(self, *, local: bool = True) -> None:
        self.local = local
        self.history: list[SummaryRequest] = []
        self._queue: deque[Summary | ProviderError] = deque()

    def enqueue(self, answer: Summary | ProviderError) -> None:
        """Queue the next answer (a Summary) or failure (a ProviderError, raised when reached)."""
        self._queue.append(answer)

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        """The next queued answer, or a deterministic one made from the request."""
        budget.check()
        self.history.append(request)
        answer = self._queue.popleft() if self._queue else _made_up(request)
        if isinstance(answer, ProviderError):
            raise answer
        budget.spend(answer.usage)
        return answer

    def close(self) -> None:
        """Nothing to release."""


def _made_up(request: SummaryRequest) -> Summary:
    digest = hashlib.sha256("\x1f".join(p.text for p in request.inputs).encode()).hexdigest()[:12]
    return Summary(f"Summary of {request.node}", f"I worked on {len(request.inputs)} things ({digest}).",
                   Usage(1, sum(len(p.text) for p in request.inputs) // 4, 10))
