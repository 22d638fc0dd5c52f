"""Helpers of the hierarchy tests: configs (extractive or the fake LLM of ``fake_llm``), histories, a request.

A uniquely named module (not ``conftest``), so test files import it without clashing with
other test folders' conftest modules.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from fake_llm import FakeLLM

from tapestryd.config import Settings, load_settings
from tapestryd.events import EventStore, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.summarize import Passage, SummaryRequest

PEOPLE = ("Alice", "Bruno", "Chen", "Dana")
TOPICS = ("the Postgres migration", "invoice 4711", "the Berlin trip", "release v2.3", "the garden shed",
          "the tax return", "the React dashboard", "Kafka retention")
REQUEST = SummaryRequest("L0:chatgpt:2026-03-04:c", 0, "Wednesday 04 March 2026",
                         (Passage("09:00 me", "I booked the ferry to Gotland for 12 June."),), agent="chatgpt",
                         source_chars=43)


def write_config(home: Path, *, timezone_name: str = "UTC", llm: FakeLLM | None = None, retries: int = 2,
                 extra: str = "", concurrency: int = 1) -> Settings:
    """Write the home's tapestry.toml (extractive, or the fake LLM with ``concurrency`` calls in flight)."""
    summarize = (f'[summarize]\nprovider = "openai"\nbase_url = "{llm.url}"\nmodel = "fake-model"\n'
                 f"max_retries = {retries}\ntimeout = 5\nconcurrency = {concurrency}\n" if llm else "")
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
