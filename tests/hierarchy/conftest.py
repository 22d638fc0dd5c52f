"""Fixtures for the hierarchy tests: the fake LLM server and Runtimes closed after each test."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from hierarchy_helpers import FakeLLM

from tapestryd.config import Settings
from tapestryd.daemon.runtime import Runtime


@pytest.fixture
def llm() -> Iterator[FakeLLM]:
    """A running fake LLM endpoint; stopped (thread joined) after the test."""
    server = FakeLLM().start()
    yield server
    server.stop()


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
