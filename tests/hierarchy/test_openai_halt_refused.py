"""Tester report 4 (items 1, 5): the OpenAI-compatible provider abandons its retries once its
``halt`` event is set, and gives up on a refused connection after one quick retry."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest
from fake_llm import FakeLLM, Reply
from hierarchy_helpers import REQUEST

from tapestryd.config import SummarizeSettings
from tapestryd.errors import ProviderError
from tapestryd.summarize import Budget, OpenAISummarizer, make_summarizer
from tapestryd.summarize.openai import REFUSED_WAIT


def _closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_refused_connection_is_retried_once_quickly(client: httpx.Client) -> None:
    """Nothing listening: one retry after REFUSED_WAIT s, then a clear error; max_retries does not apply."""
    sleeps: list[float] = []
    provider = OpenAISummarizer(client, base_url=f"http://127.0.0.1:{_closed_port()}/v1", model="m",
                                max_retries=4, sleep=sleeps.append)
    with pytest.raises(ProviderError, match="cannot connect"):
        provider.summarize(REQUEST, Budget())
    assert sleeps == [REFUSED_WAIT] and REFUSED_WAIT <= 1.0


def test_a_5xx_still_gets_the_full_backoff(llm: FakeLLM, client: httpx.Client) -> None:
    """A server that answers 500 keeps the retry policy: max_retries waits of backoff * 2**attempt s."""
    llm.fail_with = Reply(500, "boom")
    sleeps: list[float] = []
    provider = OpenAISummarizer(client, base_url=llm.url, model="m", max_retries=3, sleep=sleeps.append)
    with pytest.raises(ProviderError, match="HTTP 500"):
        provider.summarize(REQUEST, Budget())
    assert sleeps == [1.0, 2.0, 4.0] and len(llm.calls) == 4


def test_halt_ends_a_retry_wait_and_no_new_request_starts(llm: FakeLLM) -> None:
    """halt set during a 60 s backoff wait: the call fails at once as abandoned; the server saw one request."""
    llm.fail_with = Reply(500, "boom")
    halt = threading.Event()
    provider = make_summarizer(SummarizeSettings(provider="openai", base_url=llm.url, model="m", max_retries=4),
                               halt=halt)
    assert isinstance(provider, OpenAISummarizer)
    provider.backoff = 60.0  # a wait that ran its course would take 60 s, far beyond a busy machine's slowness
    threading.Timer(0.3, halt.set).start()
    started = time.monotonic()
    try:
        with pytest.raises(ProviderError, match="abandoned"):
            provider.summarize(REQUEST, Budget())
    finally:
        provider.close()
    assert time.monotonic() - started < 30 and len(llm.calls) == 1


def test_a_set_halt_starts_no_request(llm: FakeLLM, client: httpx.Client) -> None:
    """A provider whose halt is already set (paused) sends nothing."""
    halt = threading.Event()
    halt.set()
    provider = OpenAISummarizer(client, base_url=llm.url, model="m", halt=halt)
    with pytest.raises(ProviderError, match="abandoned"):
        provider.summarize(REQUEST, Budget())
    assert llm.calls == []
