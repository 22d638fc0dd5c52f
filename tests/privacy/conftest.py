"""Fixtures for privacy and safety tests: a writer Runtime on the test's home."""

from __future__ import annotations

from typing import Iterator

import pytest

from tapestryd.config import Settings
from tapestryd.operations.runtime import Runtime


@pytest.fixture
def runtime(settings: Settings) -> Iterator[Runtime]:
    """The home's writer Runtime (lock held) for the length of the test."""
    with Runtime.open(settings) as rt:
        yield rt
