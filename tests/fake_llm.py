"""A real local HTTP server standing in for an OpenAI-compatible LLM, shared by every test folder.

Importable as ``fake_llm`` from any test folder: ``tests/conftest.py`` lives beside it, so
pytest's default (prepend) import mode puts ``tests/`` on ``sys.path``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted HTTP answer: status, body, extra headers, and ``delay`` seconds before it is sent."""

    status: int
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class _Server(ThreadingHTTPServer):
    """Request threads are daemons and closing does not wait for them (a slow answer never blocks a test)."""

    daemon_threads = True
    block_on_close = False


class FakeLLM:
    """An OpenAI-compatible /v1/chat/completions server on 127.0.0.1 that records every call.

    Without a script it answers ``Title: Topic <h>`` and a summary naming ``<h>``, the
    first 12 hex digits of sha256 of the prompt, so the same prompt gives the same answer
    and every answer tells which prompt it came from. ``script`` replies are used first;
    ``fail_with`` makes every other call fail with that reply; calls from number
    ``slow_from`` on (1-based) are answered after ``slow_delay`` seconds. ``calls`` holds
    one ``{"prompt", "hash", "model"}`` dict per request, appended when it arrives;
    ``most_in_flight`` the most requests it was answering at one time (a request counts from its
    arrival until its answer is ready, not while the answer is written: one at a time, the client's
    next request may arrive before this handler's thread has finished writing).
    """

    def __init__(self, *, script: Iterable[Reply] = (), fail_with: Reply | None = None,
                 slow_from: int | None = None, slow_delay: float = 5.0) -> None:
        self.calls: list[dict[str, Any]] = []
        self.script: deque[Reply] = deque(script)
        self.fail_with = fail_with
        self.slow_from = slow_from
        self.slow_delay = slow_delay
        self.lock = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0
        self.server = _Server(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-llm", daemon=True)

    @property
    def url(self) -> str:
        """The base URL to configure, ending in ``/v1``."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @staticmethod
    def prompt_hash(prompt: str) -> str:
        """The first 12 hex digits of sha256 of ``prompt``."""
        return hashlib.sha256(prompt.encode()).hexdigest()[:12]

    def answer(self, body: dict[str, Any]) -> Reply:
        """Record the call carried by the request ``body`` and choose its reply."""
        prompt = body["messages"][-1]["content"]
        h = self.prompt_hash(prompt)
        with self.lock:
            self.calls.append({"prompt": prompt, "hash": h, "model": body.get("model")})
            scripted = self.script.popleft() if self.script else self.fail_with
            slow = self.slow_from is not None and len(self.calls) >= self.slow_from
        if scripted is not None:
            return scripted
        content = f"Title: Topic {h}\n\nI worked on {h} and decided the next step."
        return Reply(200, json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}],
                                      "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 15}}),
                     delay=self.slow_delay if slow else 0.0)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                with fake.lock:
                    fake.in_flight += 1
                    fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
                try:
                    try:
                        reply = fake.answer(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
                        time.sleep(reply.delay)
                    finally:  # answered before it is sent: a client reading it may ask again at once
                        with fake.lock:
                            fake.in_flight -= 1
                    self.send(reply)
                except (BrokenPipeError, ConnectionResetError):  # the client hung up: nobody to answer
                    pass

            def send(self, reply: Reply) -> None:
                data = reply.body.encode()
                self.send_response(reply.status)
                for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def start(self) -> FakeLLM:
        """Serve in a daemon thread; returns self."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket, without waiting for requests still being answered."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
