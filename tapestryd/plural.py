"""Counts with their noun, singular for one: "1 message", "2 messages" (stdlib only: the fast path imports it)."""

from __future__ import annotations

__all__ = ["counted"]


def counted(count: int, noun: str, plural: str = "") -> str:
    """``count`` and ``noun``, made plural (``plural``, else ``noun`` + "s") unless ``count`` is 1: "1 file",
    "0 files", "3 new messages" (``noun`` may be several words; the last one is made plural)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
