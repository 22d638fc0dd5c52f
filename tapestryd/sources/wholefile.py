"""Capturing chat files that are rewritten whole: older Gemini CLI ``chats/session-*.json``.

Before its ``.jsonl`` form, Gemini CLI rewrote one JSON object per session on every turn,
so there are no lines to tail. :meth:`WholeFileReader.read` parses such a file whole
whenever its size or inode differ from what the log last saw, and appends the events with
the file's :class:`~tapestryd.events.store.SourceOffset` (``offset`` = its size) in one
transaction (not when the file could not be read whole, as when caught half rewritten);
stable event ids make the turns already stored a no-op.
"""

from __future__ import annotations

import os
from pathlib import Path

from tapestryd.events.store import EventStore, SourceOffset
from tapestryd.events.types import NewEvent
from tapestryd.sources.parsers.base import Origin, Problem, Skip
from tapestryd.sources.parsers.gemini import GeminiParser
from tapestryd.sources.screen import Screen
from tapestryd.sources.tailer import TailReport

__all__ = ["WholeFileReader", "is_whole_chat", "scan_whole_chats"]


def is_whole_chat(path: str) -> bool:
    """Whether ``path`` is ``…/chats/session-*.json`` (an older Gemini CLI chat)."""
    pure = Path(path)
    return pure.parent.name == "chats" and pure.name.startswith("session-") and pure.suffix == ".json"


def scan_whole_chats(roots: list[str]) -> dict[str, tuple[int, int]]:
    """Every older Gemini CLI chat under ``roots`` (``<root>/<project>/chats/session-*.json``): path → (size, inode)."""
    found: dict[str, tuple[int, int]] = {}
    for root in roots:
        for path in Path(root).glob("*/chats/session-*.json"):
            try:
                info = path.stat()
            except OSError:
                continue
            found[str(path)] = (info.st_size, info.st_ino)
    return found


class WholeFileReader:
    """Reads whole-object chat files into the event log (the daemon's writer thread only).

    ``agent`` labels the events; ``screen`` applies the privacy settings. Raises
    StoreError when the log cannot be written (the offset then stays, so the file is read again).
    """

    def __init__(self, store: EventStore, *, agent: str, screen: Screen | None = None) -> None:
        self.store, self.agent, self.screen = store, agent, screen
        self.parser = GeminiParser()

    def read(self, path: str) -> TailReport:
        """Parse ``path`` whole if it changed since the log last saw it; append what is new."""
        report = TailReport(path)
        try:
            with open(path, "rb") as fh:
                info = os.fstat(fh.fileno())
                stored = self.store.offset(path)
                if stored is not None and (stored.size, stored.inode) == (info.st_size, info.st_ino):
                    return report
                items = list(self.parser.parse(fh, Origin(path, "", self.agent)))
        except OSError:
            return report
        events = [i for i in items if isinstance(i, NewEvent)]
        report.problems.extend(str(i) for i in items if isinstance(i, Problem))
        report.skipped.update(i.reason for i in items if isinstance(i, Skip))
        report.lines = len(events)
        if self.screen is not None:
            screened = self.screen.screen(events)
            report.skipped.update(screened.skipped)
            events = screened.events
        # a file caught half rewritten is read again at its next change; its offset stays
        offsets = [] if report.problems else [SourceOffset(path, info.st_size, info.st_ino, info.st_size)]
        result = self.store.append(events, offsets)
        report.new = sum(1 for s in result.seqs if s is not None)
        report.known = len(result.seqs) - report.new
        report.offset = info.st_size
        return report
