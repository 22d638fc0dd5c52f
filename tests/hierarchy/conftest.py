"""Fixtures for the hierarchy tests: the fake LLM server, an HTTP client and Runtimes closed after each test."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from fake_llm import FakeLLM

from tapestryd.config import Settings
from tapestryd.operations.runtime import Runtime


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    """A running fake LLM endpoint; stopped (thread joined) after the test."""
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    """An httpx client for a provider under test; closed after the test."""
    with httpx.Client() as c:
        yield c


@pytest.fixture
def open_runtime(home: Path) -> Iterator[Any]:
    """A factory of Runtimes on the test's home; every one is closed after the test."""
    opened: list[Runtime] = []

    def factory(settings: Settings) -> Runtime:
        runtime = Runtime.open(settings)
        opened.append(runtime)
        return runtime

    yield factory
    for runtime in opened:
        runtime.close()
