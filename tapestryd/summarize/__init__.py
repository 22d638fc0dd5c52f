"""Summarizers: text in, text out. One small protocol, an offline default and any OpenAI-compatible LLM.

:func:`make_summarizer` builds the configured provider from ``[summarize]`` settings:
``extractive`` (default, offline), ``openai`` (with ``base_url`` and ``model``, or a
``preset``), or a preset name used as the provider (``provider = "ollama"``).
"""

from __future__ import annotations

import threading
from typing import Callable

import httpx

from tapestryd.config import SummarizeSettings
from tapestryd.errors import ConfigError
from tapestryd.summarize.base import (
    LEVEL_NAMES,
    Budget,
    BudgetExhausted,
    Passage,
    Summarizer,
    Summary,
    SummaryRequest,
    Usage,
)
from tapestryd.summarize.extractive import ExtractiveSummarizer
from tapestryd.summarize.openai import PRESETS, OpenAISummarizer

__all__ = [
    "LEVEL_NAMES",
    "PRESETS",
    "Budget",
    "BudgetExhausted",
    "ExtractiveSummarizer",
    "OpenAISummarizer",
    "Passage",
    "Summarizer",
    "Summary",
    "SummaryRequest",
    "Usage",
    "make_summarizer",
]


def make_summarizer(settings: SummarizeSettings, *, client: httpx.Client | None = None,
                    sleep: Callable[[float], None] | None = None,
                    halt: threading.Event | None = None) -> Summarizer:
    """The provider ``settings`` describe; ``client`` overrides the httpx client of ``openai``.

    ``openai`` waits between retries on ``halt`` (set: its retries end; see OpenAISummarizer).

    Raises ConfigError for an unknown provider or preset, a missing base URL or model, or a
    hosted preset without ``TAPESTRY_API_KEY``.
    """
    if settings.provider == "extractive":
        return ExtractiveSummarizer()
    if settings.provider != "openai" and settings.provider not in PRESETS:
        raise ConfigError(f"summarize.provider = {settings.provider!r}; expected extractive, openai or one of "
                          f"{', '.join(PRESETS)}")
    base_url, model = _endpoint(settings)
    return OpenAISummarizer(client or httpx.Client(), base_url=base_url, model=model, api_key=settings.api_key,
                            timeout=settings.timeout, max_retries=settings.max_retries,
                            chunk_size_tokens=settings.chunk_size_tokens, sleep=sleep, owns_client=client is None,
                            halt=halt, concurrency=settings.concurrency)


def _endpoint(settings: SummarizeSettings) -> tuple[str, str]:
    preset = settings.preset or (settings.provider if settings.provider in PRESETS else "")
    if preset and preset not in PRESETS:
        raise ConfigError(f"summarize.preset = {preset!r}; expected one of {', '.join(PRESETS)}")
    url, model, needs_key = PRESETS.get(preset, ("", "", False))
    base_url, model = settings.base_url or url, settings.model or model
    if not base_url:
        raise ConfigError("summarize.base_url (or a preset) is required for the openai provider")
    if not model:
        raise ConfigError(f"summarize.model is required for {preset or base_url}")
    if needs_key and not settings.api_key and not settings.base_url:
        raise ConfigError(f"the {preset} preset needs an API key: set TAPESTRY_API_KEY or put it in <data>/.env")
    return base_url, model
