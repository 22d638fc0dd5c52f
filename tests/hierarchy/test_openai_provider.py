"""The OpenAI-compatible provider against a real local HTTP server: answers, retries, failures, chunks."""

from __future__ import annotations

import json

import httpx
import pytest
from fake_llm import FakeLLM, Reply
from hierarchy_helpers import REQUEST

from tapestryd.config import SummarizeSettings
from tapestryd.errors import ConfigError, ProviderError
from tapestryd.summarize import Budget, BudgetExhausted, OpenAISummarizer, Passage, SummaryRequest, make_summarizer


def provider(llm: FakeLLM, client: httpx.Client, sleeps: list[float], **kw: object) -> OpenAISummarizer:
    return OpenAISummarizer(client, base_url=llm.url, model="fake-model", api_key="sk-test", max_retries=2,
                            backoff=0.5, sleep=sleeps.append, **kw)  # type: ignore[arg-type]


def test_an_answer_gives_title_text_and_reported_usage(llm: FakeLLM, client: httpx.Client) -> None:
    """One call; the title line is split off; usage comes from the answer's usage object."""
    summary = provider(llm, client, []).summarize(REQUEST, Budget())
    assert len(llm.calls) == 1 and llm.calls[0]["model"] == "fake-model"
    assert summary.title == f"Topic {llm.calls[0]['hash']}" and llm.calls[0]["hash"] in summary.text
    assert summary.usage.calls == 1 and summary.usage.tokens_out == 15
    assert "Gotland" in llm.calls[0]["prompt"] and "Wednesday 04 March 2026" in llm.calls[0]["prompt"]


def test_429_waits_what_retry_after_says_then_succeeds(llm: FakeLLM, client: httpx.Client) -> None:
    """A 429 with Retry-After: 3 is retried after 3 s (the sleep is recorded, not slept)."""
    llm.script.append(Reply(429, '{"error": "slow down"}', {"Retry-After": "3"}))
    sleeps: list[float] = []
    summary = provider(llm, client, sleeps).summarize(REQUEST, Budget())
    assert sleeps == [3.0] and len(llm.calls) == 2 and summary.text


def test_500_is_retried_with_exponential_backoff(llm: FakeLLM, client: httpx.Client) -> None:
    """Two 500s without Retry-After wait 0.5 s then 1 s; the third try answers."""
    llm.script.extend([Reply(500, "boom"), Reply(502, "")])
    sleeps: list[float] = []
    provider(llm, client, sleeps).summarize(REQUEST, Budget())
    assert sleeps == [0.5, 1.0] and len(llm.calls) == 3


def test_a_permanent_500_fails_after_the_retries(llm: FakeLLM, client: httpx.Client) -> None:
    """max_retries=2: three attempts, then a retryable ProviderError naming the status."""
    llm.fail_with = Reply(500, "internal meltdown")
    with pytest.raises(ProviderError) as caught:
        provider(llm, client, []).summarize(REQUEST, Budget())
    assert len(llm.calls) == 3 and "HTTP 500" in caught.value.message and caught.value.retryable


def test_a_bad_key_is_not_retried(llm: FakeLLM, client: httpx.Client) -> None:
    """401 cannot get better by retrying: one attempt, a clear error."""
    llm.script.append(Reply(401, '{"error": "invalid api key"}'))
    with pytest.raises(ProviderError, match="HTTP 401"):
        provider(llm, client, []).summarize(REQUEST, Budget())
    assert len(llm.calls) == 1


def test_a_timeout_is_retried_and_a_dead_endpoint_fails_clearly(llm: FakeLLM, client: httpx.Client) -> None:
    """A reply slower than the timeout is retried; an unreachable endpoint fails with a clear message."""
    llm.script.append(Reply(200, "{}", delay=1.0))
    sleeps: list[float] = []
    summary = provider(llm, client, sleeps, timeout=0.3).summarize(REQUEST, Budget())
    assert sleeps == [0.5] and len(llm.calls) == 2 and summary.text
    unreachable = OpenAISummarizer(client, base_url="http://127.0.0.1:9/v1", model="m", max_retries=1,
                                   sleep=lambda s: None)
    with pytest.raises(ProviderError, match="cannot connect"):
        unreachable.summarize(REQUEST, Budget())


def test_a_huge_wait_gives_up_instead_of_sleeping(llm: FakeLLM, client: httpx.Client) -> None:
    """Retry-After beyond max_wait: the node fails now and stays dirty for a later run."""
    llm.script.append(Reply(429, "", {"Retry-After": "86400"}))
    sleeps: list[float] = []
    with pytest.raises(ProviderError, match="HTTP 429"):
        provider(llm, client, sleeps, max_wait=60.0).summarize(REQUEST, Budget())
    assert sleeps == []


def test_the_budget_stops_calls_before_they_are_made(llm: FakeLLM, client: httpx.Client) -> None:
    """A token budget smaller than the prompt raises BudgetExhausted without calling."""
    with pytest.raises(BudgetExhausted):
        provider(llm, client, []).summarize(REQUEST, Budget(tokens=10))
    assert llm.calls == []


def test_a_long_segment_is_summarized_in_chunks_carrying_the_summary(llm: FakeLLM, client: httpx.Client) -> None:
    """Over chunk_size_tokens: one call per chunk, each later prompt carries the previous answer."""
    inputs = tuple(Passage(f"09:{i:02d} me", f"Note {i}: " + "details about the quarterly report. " * 40)
                   for i in range(12))
    request = SummaryRequest("L0:x:2026-03-04:c", 0, "today", inputs, source_chars=sum(len(p.text) for p in inputs))
    summary = provider(llm, client, [], chunk_size_tokens=2000).summarize(request, Budget())
    assert len(llm.calls) >= 3 and summary.usage.calls == len(llm.calls)
    for before, after in zip(llm.calls, llm.calls[1:]):
        assert f"I worked on {before['hash']}" in after["prompt"]


def test_presets_and_settings_build_the_right_provider(llm: FakeLLM) -> None:
    """A preset fills URL and model; hosted presets need a key; unknown providers are config errors."""
    ollama = make_summarizer(SummarizeSettings(provider="openai", preset="ollama"))
    assert isinstance(ollama, OpenAISummarizer) and ollama.url == "http://localhost:11434/v1/chat/completions"
    ollama.close()
    with pytest.raises(ConfigError, match="TAPESTRY_API_KEY"):
        make_summarizer(SummarizeSettings(provider="groq"))
    with pytest.raises(ConfigError, match="expected extractive"):
        make_summarizer(SummarizeSettings(provider="gpt"))
    custom = make_summarizer(SummarizeSettings(provider="openai", base_url=llm.url, model="m", api_key="k"))
    assert custom.summarize(REQUEST, Budget()).text and json.dumps(llm.calls)
    custom.close()


def test_private_spans_never_reach_the_provider(llm: FakeLLM, client: httpx.Client) -> None:
    """A <private> span in a message is stripped from the prompt before it leaves the machine."""
    request = SummaryRequest("n", 0, "today", (Passage("09:00 me", "I saw <private>Dr. Okafor about my knee</private> "
                                                                   "and then fixed the build."),))
    provider(llm, client, []).summarize(request, Budget())
    assert "Okafor" not in llm.calls[0]["prompt"] and "fixed the build" in llm.calls[0]["prompt"]
