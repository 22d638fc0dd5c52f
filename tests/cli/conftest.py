"""Fixtures of the CLI tests: an LLM endpoint that fails slowly before it recovers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_llm import FakeLLM, Reply


@pytest.fixture
def failing() -> Iterator[FakeLLM]:
    """A fake LLM answering its first 8 calls with HTTP 500 after 0.3 s each, then proper summaries."""
    server = FakeLLM(script=[Reply(500, '{"error": "model not loaded"}', delay=0.3)] * 8).start()
    yield server
    server.stop()
