"""The Summarizer seam: what a provider is given and what it gives back.

Text in, text out: a :class:`SummaryRequest` holds the node's inputs (messages for a
conversation-day segment, child summaries above it) and its telescoping context as plain
passages; a provider returns a :class:`Summary` (title, text, usage). Providers know
nothing of the event log or the databases.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

from tapestryd.config import SummarizeSettings
from tapestryd.errors import ProviderError

__all__ = ["LEVEL_NAMES", "Budget", "BudgetExhausted", "Passage", "Summarizer", "Summary", "SummaryRequest", "Usage"]

LEVEL_NAMES = {0: "conversation", 1: "day", 2: "week", 3: "month", 4: "year"}


@dataclass(frozen=True)
class Passage:
    """One input or context item: a short ``label`` (time and speaker, or period and title) and text.

    ``role`` is ``user`` / ``assistant`` / ... for messages and ``summary`` for nodes.
    """

    label: str
    text: str
    role: str = "summary"


@dataclass(frozen=True)
class SummaryRequest:
    """Everything a provider needs to summarize one node.

    ``level`` is 0 (conversation-day) … 4 (year); ``period`` a readable label
    ("Wednesday 4 March 2026"); ``source_chars`` the characters of raw message text under
    the node (sets the length budget); ``title_hint`` a known title (the conversation's);
    ``day`` the ISO date of the period's first day (at L0 the day its messages were said,
    against which "yesterday" is resolved; ``""`` when unknown). ``sources`` holds, for a
    day (L1), its conversation-days' messages, one tuple of message passages per child in
    the order of ``inputs``, for a provider that extracts from what was said rather than
    from the children's summaries (``()`` at other levels).
    """

    node: str
    level: int
    period: str
    inputs: tuple[Passage, ...]
    context: tuple[Passage, ...] = ()
    agent: str = ""
    title_hint: str = ""
    source_chars: int = 0
    day: str = ""
    sources: tuple[tuple[Passage, ...], ...] = ()


@dataclass(frozen=True)
class Usage:
    """Provider calls and tokens (in: prompt, out: completion) spent on one node."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.calls + other.calls, self.tokens_in + other.tokens_in, self.tokens_out + other.tokens_out)

    def to_dict(self) -> dict[str, int]:
        """``{"calls": …, "tokens_in": …, "tokens_out": …}``."""
        return {"calls": self.calls, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out}


@dataclass(frozen=True)
class Summary:
    """A provider's answer: a short title, the summary text and what it cost."""

    title: str
    text: str
    usage: Usage = field(default_factory=Usage)


class BudgetExhausted(ProviderError):
    """The run's budget of calls or tokens is spent; the node stays dirty for a later run."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=True)


class Summarizer(Protocol):
    """A provider: turns a request into a summary, or raises ProviderError.

    ``name``, ``model`` and ``prompt_version`` are recorded in each NodeSummarized;
    ``local`` says whether calls are free and offline (the manager then batches appends).
    """

    name: str
    model: str
    prompt_version: str
    local: bool

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        """Summarize one node within ``budget``; raises ProviderError (BudgetExhausted when spent)."""

    def close(self) -> None:
        """Release connections."""


class Budget:
    """A per-run allowance of provider calls, tokens and cost (0 means unlimited) and what was spent.

    ``cost`` is counted with ``prices``: (prompt, completion) price per million tokens, in the
    currency of the limit. Safe to share between the threads of one run's calls in flight;
    each checks before its call, so at most the calls already in flight can overrun the
    allowance.
    """

    def __init__(self, calls: int = 0, tokens: int = 0, *, cost: float = 0.0,
                 prices: tuple[float, float] = (0.0, 0.0)) -> None:
        self.max_calls = calls
        self.max_tokens = tokens
        self.max_cost = cost
        self.prices = prices
        self.spent = Usage()
        self._lock = threading.Lock()

    @classmethod
    def per_run(cls, settings: SummarizeSettings) -> Budget:
        """The allowance ``[summarize]`` gives one run: budget_calls, max_tokens_per_run, max_cost."""
        return cls(settings.budget_calls, settings.budget_tokens, cost=settings.max_cost,
                   prices=(settings.input_price, settings.output_price))

    def price(self, tokens_in: int, tokens_out: int) -> float:
        """What ``tokens_in`` prompt and ``tokens_out`` completion tokens cost at this budget's prices."""
        return (tokens_in * self.prices[0] + tokens_out * self.prices[1]) / 1_000_000

    @property
    def cost(self) -> float:
        """What the run has spent so far, at this budget's prices."""
        return self.price(self.spent.tokens_in, self.spent.tokens_out)

    def check(self, tokens_in: int = 0, tokens_out: int = 0) -> None:
        """Raise BudgetExhausted if one more call of about ``tokens_in`` + ``tokens_out`` tokens would overrun."""
        if self.max_calls and self.spent.calls >= self.max_calls:
            raise BudgetExhausted(f"call budget of {self.max_calls} spent")
        used = self.spent.tokens_in + self.spent.tokens_out
        if self.max_tokens and used + tokens_in + tokens_out > self.max_tokens:
            raise BudgetExhausted(f"token budget of {self.max_tokens} spent ({used} used)")
        if self.max_cost and self.cost + self.price(tokens_in, tokens_out) > self.max_cost:
            raise BudgetExhausted(f"cost budget of {self.max_cost:g} spent ({self.cost:.4f} used)")

    def spend(self, usage: Usage) -> None:
        """Record what a call cost."""
        with self._lock:
            self.spent = self.spent + usage
