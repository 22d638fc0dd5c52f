"""Checks shared by operations: the instant relative times count from, numbers in range, agent names."""

from __future__ import annotations

import sqlite3
from datetime import date, datetime, time, timezone, tzinfo

from tapestryd.clock import Clock
from tapestryd.config import Settings
from tapestryd.errors import TapestryError
from tapestryd.events.types import parse_utc
from tapestryd.projections.messages_read import has_agent, has_origin, machine_counts, stored_agents

__all__ = ["check_agent", "check_machine", "in_range", "now_of"]


def now_of(now: str, clock: Clock, tz: tzinfo | None = None) -> datetime:
    """The instant relative times count from: ``now`` (ISO 8601) when given, else ``clock.now()``.

    A bare date (``2026-11-20``) stands for the last instant of that day in ``tz`` (UTC when not
    given), so "today" covers the whole of it and "yesterday" is the day before.
    Raises TapestryError for a ``now`` that is neither an ISO 8601 time nor a date.
    """
    if not now:
        return clock.now()
    try:
        if len(now.strip()) == 10:
            day = date.fromisoformat(now.strip())
            return datetime.combine(day, time.max, tzinfo=tz or timezone.utc).astimezone(timezone.utc)
        return parse_utc(now)
    except ValueError as exc:
        raise TapestryError(f"now must be an ISO 8601 time or date, got {now!r}") from exc


def in_range(value: int, name: str, *, least: int = 1, most: int = 10_000, clamp: bool = False) -> int:
    """``value`` when ``least <= value <= most``; above ``most`` it is ``most`` when ``clamp``.

    Raises TapestryError naming the option (``max_tokens`` as ``max-tokens``) otherwise.
    """
    label = name.replace("_", "-")
    if value < least:
        raise TapestryError(f"{label} must be at least {least}, got {value}" if clamp
                            else f"{label} must be between {least} and {most}, got {value}")
    if value > most:
        if clamp:
            return most
        raise TapestryError(f"{label} must be between {least} and {most}, got {value}")
    return value


def check_agent(settings: Settings, conn: sqlite3.Connection, agent: str, *, new_label: bool = False) -> str:
    """``agent`` ('' for every agent) when it is configured (``[agents.*]`` and the defaults) or
    has conversations stored; else raises TapestryError naming the known agents.

    ``new_label`` (ingest) adds how to introduce a new label. One lookup that stops at the
    first conversation, run only for a name that is not configured.
    """
    if not agent or settings.agent(agent) is not None or has_agent(conn, agent):
        return agent
    known = sorted({a.name for a in settings.agents} | set(stored_agents(conn)))
    hint = f"; to use a new label, add [agents.{agent}] to {settings.config_file}" if new_label else ""
    raise TapestryError(f"no agent named {agent!r}; known: {', '.join(known)}{hint}")


def check_machine(settings: Settings, conn: sqlite3.Connection, machine: str) -> str:
    """``machine`` stripped ('' for every machine) when it is this machine's name (``[sync] machine``)
    or some stored message was captured there; else raises TapestryError naming the known machines."""
    machine = machine.strip()
    if not machine or machine == settings.sync.machine or has_origin(conn, machine):
        return machine
    known = sorted(set(machine_counts(conn)) | {settings.sync.machine})
    raise TapestryError(f"no machine named {machine!r}; known: {', '.join(known)}")
