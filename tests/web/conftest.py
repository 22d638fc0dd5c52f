"""Fixtures of the calendar's tests: a home holding the known history, the app and its client."""

from __future__ import annotations

from typing import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tapestryd.clock import FixedClock
from tapestryd.config import Settings
from tapestryd.web import create_app

from calendar_history import TODAY, build_history


@pytest.fixture
def history(settings: Settings) -> Settings:
    """The test home's settings, with the known history stored and projected."""
    build_history(settings)
    return settings


@pytest.fixture
def app(history: Settings) -> Iterator[Flask]:
    """The calendar app over the test history, today being 2026-03-21."""
    application = create_app(history, clock=FixedClock(TODAY))
    application.config["TESTING"] = True
    yield application


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """A test client that talks as the page itself would (Host localhost)."""
    return app.test_client()
