"""A provider for any OpenAI-compatible ``/chat/completions`` endpoint, through httpx.

Works with Ollama, the llama.cpp server, vLLM, Groq, OpenAI and OpenRouter (see
:data:`PRESETS`), or any base URL and model. The ``httpx.Client`` is passed in, so tests
and callers choose the transport. Each call:

* passes every prompt through :func:`tapestryd.privacy.outbound` (private spans and
  secrets never leave, even if a caller forgot);
* checks the run's :class:`~tapestryd.summarize.base.Budget` first;
* retries 429, 5xx and timeouts up to ``max_retries`` times, waiting what ``Retry-After``
  asks (seconds or an HTTP date) or else ``backoff * 2**attempt`` seconds; a wait longer
  than ``max_wait`` gives up at once (the node stays dirty);
* retries a refused connection (nothing listening) once, after :data:`REFUSED_WAIT`
  seconds: a provider that is not running fails within seconds, not after the backoff;
* waits on the ``halt`` event (set by the daemon's ``pause`` and stop): once it is set no
  new request starts, and the retries of the call in hand are abandoned (ProviderError);
* fails at once on other 4xx answers (bad key, unknown model): retrying cannot help;
* records usage from the answer's ``usage`` object, or estimates it from characters.

A segment longer than ``chunk_size_tokens`` is summarized chunk by chunk, carrying the
running summary from one call into the next (:mod:`tapestryd.summarize.chunking`).
Request shape: OpenAI's Chat Completions API reference (``model``, ``messages``,
``temperature``, ``max_tokens``; answer in ``choices[0].message.content``).
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, Callable

import httpx
import structlog

from tapestryd.errors import ProviderError
from tapestryd.privacy import outbound
from tapestryd.summarize.base import Budget, Summary, SummaryRequest, Usage
from tapestryd.summarize.chunking import chunk_passages
from tapestryd.summarize.prompts import PROMPT_VERSION, answer_tokens, parse_answer, render_messages, word_budget
from tapestryd.summarize.tokens import estimate_tokens

__all__ = ["PRESETS", "REFUSED_WAIT", "OpenAISummarizer"]

log = structlog.get_logger(__name__)

# preset: (base URL, default model, needs an API key)
PRESETS: dict[str, tuple[str, str, bool]] = {
    "ollama": ("http://localhost:11434/v1", "llama3.1", False),
    "llamacpp": ("http://localhost:8080/v1", "local", False),
    "vllm": ("http://localhost:8000/v1", "", False),
    "groq": ("https://api.groq.com/openai/v1", "llama-3.1-8b-instant", True),
    "openai": ("https://api.openai.com/v1", "gpt-4o-mini", True),
    "openrouter": ("https://openrouter.ai/api/v1", "openai/gpt-4o-mini", True),
}
_PROMPT_OVERHEAD = 600
REFUSED_WAIT = 0.5  # seconds before the one retry of a refused connection


class OpenAISummarizer:
    """Summaries from a chat-completions endpoint (see the module docstring); times in seconds.

    ``concurrency`` is how many calls the summarizer manager may keep in flight at once
    (``summarize`` is safe to call from several threads: httpx's client pools connections).
    """

    name = "openai"
    prompt_version = PROMPT_VERSION
    local = False

    def __init__(self, client: httpx.Client, *, base_url: str, model: str, api_key: str = "", timeout: float = 120.0,
                 max_retries: int = 4, chunk_size_tokens: int = 20_000, backoff: float = 1.0, max_wait: float = 300.0,
                 sleep: Callable[[float], None] | None = None, owns_client: bool = False,
                 halt: threading.Event | None = None, concurrency: int = 1) -> None:
        self.client = client
        self.concurrency = concurrency
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.chunk_size_tokens = chunk_size_tokens
        self.backoff = backoff
        self.max_wait = max_wait
        self.halt = halt or threading.Event()
        self.sleep = sleep
        self.owns_client = owns_client

    def close(self) -> None:
        """Close the httpx client if this provider created it."""
        if self.owns_client:
            self.client.close()

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        """One node's summary: one call, or one per chunk with the running summary carried."""
        room = max(self.chunk_size_tokens // 2, self.chunk_size_tokens - _context_tokens(request) - _PROMPT_OVERHEAD)
        chunks = chunk_passages(request.inputs, room) or [()]
        carried, usage = "", Usage()
        for number, chunk in enumerate(chunks, 1):
            messages = render_messages(request, chunk, carried=carried, part=(number, len(chunks)))
            carried, spent = self._complete(messages, answer_tokens(word_budget(request)), budget)
            usage += spent
        title, text = parse_answer(carried)
        return Summary(outbound(title), outbound(text), usage)

    def _complete(self, messages: list[dict[str, str]], max_tokens: int, budget: Budget) -> tuple[str, Usage]:
        messages = [{**m, "content": outbound(m["content"])} for m in messages]  # nothing private leaves
        prompt_tokens = sum(estimate_tokens(m["content"]) for m in messages)
        budget.check(prompt_tokens, max_tokens)
        payload = {"model": self.model, "messages": messages, "temperature": 0.2, "max_tokens": max_tokens}
        answer = self._post(payload)
        text, usage = _read_answer(answer, self.url, prompt_tokens)
        budget.spend(usage)
        return text, usage

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        attempt = 0
        while True:
            if self.halt.is_set():
                raise self._abandoned(attempt, "")
            try:
                return self._attempt(payload, headers)
            except _Retryable as retry:
                wait = self.backoff * 2 ** attempt if retry.wait is None else retry.wait
                if attempt >= (1 if retry.refused else self.max_retries) or wait > self.max_wait:
                    raise retry.error from None
                if self.halt.is_set():
                    raise self._abandoned(attempt + 1, retry.error.message) from None
                log.info("provider.retried", url=self.url, attempt=attempt + 1, wait=round(wait, 2),
                         reason=retry.error.message)
                if self._wait(wait):
                    raise self._abandoned(attempt + 1, retry.error.message) from None
                attempt += 1

    def _wait(self, seconds: float) -> bool:
        """Wait ``seconds`` before a retry; True when ``halt`` was set (then the retries end)."""
        if self.sleep is None:
            return self.halt.wait(seconds)
        self.sleep(seconds)
        return self.halt.is_set()

    def _abandoned(self, attempts: int, reason: str) -> ProviderError:
        """The error of a call given up because ``halt`` was set (paused or stopping); logged."""
        log.info("provider.retries_abandoned", url=self.url, attempts=attempts, reason=reason)
        return ProviderError(f"{self.url}: abandoned: the summarizer was halted (paused or stopping)", retryable=True)

    def _attempt(self, payload: dict[str, Any], headers: dict[str, str]) -> dict[str, Any]:
        """One request's JSON answer; raises _Retryable for 429, 5xx, timeouts and lost connections."""
        try:
            response = self.client.post(self.url, json=payload, headers=headers, timeout=self.timeout)
        except httpx.TimeoutException:
            raise _Retryable(ProviderError(f"{self.url}: timed out after {self.timeout:g} s", retryable=True)) from None
        except httpx.ConnectError as exc:
            error = ProviderError(f"{self.url}: cannot connect ({exc})", retryable=True)
            raise _Retryable(error, REFUSED_WAIT, refused=True) from None
        except httpx.TransportError as exc:
            raise _Retryable(ProviderError(f"{self.url}: cannot connect ({exc})", retryable=True)) from None
        if response.status_code == 429 or response.status_code >= 500:
            error = ProviderError(f"{self.url}: HTTP {response.status_code} {_snippet(response)}", retryable=True)
            raise _Retryable(error, _retry_after(response))
        if response.status_code >= 400:
            raise ProviderError(f"{self.url}: HTTP {response.status_code} {_snippet(response)}")
        try:
            return dict(response.json())
        except ValueError as exc:
            raise ProviderError(f"{self.url}: the answer is not JSON", retryable=True) from exc


class _Retryable(Exception):
    """A failed attempt worth retrying, with the wait the server asked for (None: back off).

    ``refused``: no connection was made (nothing listening); retried once only.
    """

    def __init__(self, error: ProviderError, wait: float | None = None, *, refused: bool = False) -> None:
        super().__init__(error.message)
        self.error = error
        self.wait = wait
        self.refused = refused


def _context_tokens(request: SummaryRequest) -> int:
    return sum(estimate_tokens(p.text) + estimate_tokens(p.label) for p in request.context)


def _read_answer(answer: dict[str, Any], url: str, prompt_tokens: int) -> tuple[str, Usage]:
    try:
        text = str(answer["choices"][0]["message"]["content"] or "")
    except (KeyError, IndexError, TypeError) as exc:
        raise ProviderError(f"{url}: the answer has no choices[0].message.content", retryable=True) from exc
    reported = answer.get("usage") or {}
    tokens_in = int(reported.get("prompt_tokens") or prompt_tokens)
    tokens_out = int(reported.get("completion_tokens") or estimate_tokens(text))
    return text, Usage(1, tokens_in, tokens_out)


def _retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asks us to wait (RFC 9110 Retry-After: delay-seconds or HTTP-date), or None."""
    value = response.headers.get("retry-after", "").strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError):
        return None
    return None if when is None else max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _snippet(response: httpx.Response) -> str:
    text = " ".join(response.text.split())
    return f"({text[:200]})" if text else ""
