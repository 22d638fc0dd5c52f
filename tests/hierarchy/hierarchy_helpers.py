"""Helpers of the hierarchy tests: a real local HTTP server standing in for an LLM, configs, histories.

A uniquely named module (not ``conftest``), so test files import it without clashing with
other test folders' conftest modules.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time as clock
from collections import deque
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from tapestryd.config import Settings, load_settings
from tapestryd.events import EventStore, MessageRecorded, NewEvent, event_id, format_utc

PEOPLE = ("Alice", "Bruno", "Chen", "Dana")
TOPICS = ("the Postgres migration", "invoice 4711", "the Berlin trip", "release v2.3", "the garden shed",
          "the tax return", "the React dashboard", "Kafka retention")


@dataclass
class Reply:
    """One scripted HTTP answer: status, headers and body."""

    status: int
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class FakeLLM:
    """An OpenAI-compatible /v1/chat/completions server on 127.0.0.1 that counts calls.

    Without a script it answers ``Title: Topic <h>`` and a summary naming ``<h>``, the
    first 12 hex digits of sha256 of the prompt, so the same prompt gives the same answer
    and every answer tells which prompt it came from. ``script`` replies are used first;
    ``fail_with`` makes every other call fail with that reply; calls from number
    ``slow_from`` on (1-based) are answered after ``slow_delay`` seconds.
    """

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.script: deque[Reply] = deque()
        self.fail_with: Reply | None = None
        self.slow_from: int | None = None
        self.slow_delay = 5.0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, name="fake-llm", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @staticmethod
    def prompt_hash(prompt: str) -> str:
        return hashlib.sha256(prompt.encode()).hexdigest()[:12]

    def answer(self, body: dict[str, Any]) -> Reply:
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
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                reply = fake.answer(body)
                clock.sleep(reply.delay)
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
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def write_config(home: Path, *, timezone_name: str = "UTC", llm: FakeLLM | None = None, retries: int = 2,
                 extra: str = "") -> Settings:
    """Write the home's tapestry.toml (extractive, or the fake LLM) and load its settings."""
    summarize = (f'[summarize]\nprovider = "openai"\nbase_url = "{llm.url}"\nmodel = "fake-model"\n'
                 f"max_retries = {retries}\ntimeout = 5\n" if llm else "")
    (home / "tapestry.toml").write_text(
        f'[general]\ntimezone = "{timezone_name}"\n[sources]\nwatched_roots = ["{home / "claude"}"]\n'
        f"{summarize}{extra}")
    return load_settings(home)


def message(conversation: str, key: str, when: datetime, text: str, *, role: str = "user",
            agent: str = "chatgpt") -> NewEvent:
    """A MessageRecorded envelope with a stable event id."""
    body = MessageRecorded(conversation, key, role, text, format_utc(when))
    return NewEvent(event_id("test", conversation, key, text), body, when, agent=agent, source=f"test#{key}")


def history(first: date, days: int, *, per_day: int = 2, tz: str = "UTC", agent: str = "chatgpt",
            messages: int = 3) -> list[NewEvent]:
    """``per_day`` conversations a day over ``days`` days from ``first``, each a few messages at 10:00+ local.

    Conversation ``n`` of a day continues every third day, so conversations span days.
    """
    zone, events = ZoneInfo(tz), []
    for d in range(days):
        day = first + timedelta(days=d)
        for n in range(per_day):
            conv = f"{agent}:conv-{(d // 3) * per_day + n}"
            start = datetime.combine(day, time(10 + 3 * n), tzinfo=zone).astimezone(timezone.utc)
            for m in range(messages):
                topic, person = TOPICS[(d + n + m) % len(TOPICS)], PEOPLE[(d + m) % len(PEOPLE)]
                text = (f"On {day:%A} I met {person} about {topic}. We decided to ship {d * 10 + m} items by "
                        f"{day + timedelta(days=7):%d %B}. {person} asked whether the budget of {100 + d} euros holds.")
                events.append(message(conv, f"{day}-{n}-{m}", start + timedelta(minutes=m),
                                      text, role="user" if m % 2 == 0 else "assistant", agent=agent))
    return events


def append(store: EventStore, events: list[NewEvent]) -> None:
    """Append in batches, as an import would."""
    for start in range(0, len(events), 500):
        store.append(events[start:start + 500])


def node_rows(conn: Any) -> dict[str, tuple[Any, ...]]:
    """Every node's key → (state, fingerprint, summarized_fingerprint, title, summary)."""
    return {r[0]: tuple(r[1:]) for r in conn.execute(
        "SELECT key, state, fingerprint, summarized_fingerprint, title, summary FROM nodes")}
