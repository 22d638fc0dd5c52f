"""What leaves for a remote provider: the OpenAI-compatible request body, against a real local server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Iterator

import httpx
import pytest

from privacy_fakes import secret_cases
from tapestryd.summarize.base import Budget, Passage, SummaryRequest
from tapestryd.summarize.openai import OpenAISummarizer


class _Provider(BaseHTTPRequestHandler):
    """Records each request body; answers with a summary that echoes a secret (a misbehaving model)."""

    bodies: list[str] = []
    echo = ""

    def do_POST(self) -> None:  # noqa: N802  (http.server's naming)
        self.bodies.append(self.rfile.read(int(self.headers["Content-Length"])).decode())
        content = f"Title: Deploy notes\n\nThey deployed with {self.echo}."
        body = json.dumps({"choices": [{"message": {"content": content}}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 5}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def provider() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Provider)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    thread.join()


def test_request_body_and_answer_carry_no_secret_or_private_text(provider: str) -> None:
    """Even when a caller forgets to filter, the provider request is filtered, and so is the answer."""
    _, text, secret = secret_cases()[0]
    _Provider.bodies, _Provider.echo = [], secret
    request = SummaryRequest(node="L0:x", level=0, period="Sunday 1 June 2025", title_hint=f"keys {secret}",
                             inputs=(Passage("10:00 user", f"{text} <private>my therapist said</private>", "user"),),
                             context=(Passage("May", f"earlier: {secret}"),))
    with httpx.Client() as client:
        summary = OpenAISummarizer(client, base_url=provider, model="m", api_key="k").summarize(request, Budget())
    body = "".join(_Provider.bodies)
    assert _Provider.bodies and secret not in body and "therapist" not in body
    assert "[secret:openai-api-key]" in body
    assert secret not in summary.text and "[secret:openai-api-key]" in summary.text
