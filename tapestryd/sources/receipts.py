"""Import receipts: what one file (and a whole ingest) added, already knew, skipped or failed on.

``Receipt.to_dict()`` is the shape the CLI renders and the daemon returns::

    {"files": [{"path", "sha256", "parser", "agent",
                "conversations": {"new", "updated", "known"}, "messages": {"new", "known"},
                "skipped": {reason: n}, "errors": [str]}],
     "totals": {"files", "conversations_new", "conversations_known", "messages_new",
                "messages_known", "skipped": {reason: n}, "errors": n},
     "failed": bool}

In the totals an *updated* conversation counts as known (it was there before). ``failed``
is true only when nothing could be imported: no message new or known and some error.

A file's receipt is logged as ``ImportReceived`` / ``ImportFinished`` events whose ids derive
from the file's sha256, :data:`IMPORTER_VERSION` and how it was read (parser, agent label,
privacy settings: what else decides its events; :func:`receipt_ids`). A file imported before
the same way, by this version of the importers, is answered from its receipt
(:meth:`FileReceipt.from_finished`) without being parsed again; a newer version, whose
parsers may read more of the same bytes, or other settings (an exclusion lifted) read it
once more.
"""

from __future__ import annotations

import dataclasses
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from tapestryd.events.codec import decode, encode
from tapestryd.events.types import ImportFinished, NewEvent, event_id

__all__ = ["IMPORTER_VERSION", "MAX_LISTED_ERRORS", "FileReceipt", "Receipt", "Tally", "clean", "receipt_ids",
           "scrub"]

MAX_LISTED_ERRORS = 50
IMPORTER_VERSION = 2
"""Raised when a parser reads the same bytes into different events (1: receipts before versions)."""
_MORE = "… and "


def receipt_ids(sha256: str, reading: str) -> tuple[str, str]:
    """``(ImportReceived id, ImportFinished id)`` of the file with this sha256 read by this importer
    version the way ``reading`` says (any text naming the parser and the settings that shape the events)."""
    return (event_id("import", sha256, "received", str(IMPORTER_VERSION), reading),
            event_id("import", sha256, "finished", str(IMPORTER_VERSION), reading))
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """``text`` with lone surrogates (undecodable file names, ``\\ud800`` escapes) as U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)


def scrub(new: NewEvent) -> NewEvent:
    """The same event with every string made encodable as UTF-8 (see :func:`clean`)."""
    type_name, schema, payload = encode(new.event)
    return dataclasses.replace(new, event=decode(type_name, schema, clean(payload)), agent=clean(new.agent),
                               source=clean(new.source))


def _zero_conversations() -> dict[str, int]:
    return {"new": 0, "updated": 0, "known": 0}


def _zero_messages() -> dict[str, int]:
    return {"new": 0, "known": 0}


@dataclass
class FileReceipt:
    """Counts for one imported file (or ZIP member); ``error_count`` includes unlisted errors."""

    path: str
    sha256: str = ""
    parser: str = ""
    agent: str = ""
    conversations: dict[str, int] = field(default_factory=_zero_conversations)
    messages: dict[str, int] = field(default_factory=_zero_messages)
    skipped: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    error_count: int = 0

    def skip(self, reason: str, n: int = 1) -> None:
        """Count ``n`` items skipped for ``reason``."""
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def error(self, text: str) -> None:
        """Record an error; only the first :data:`MAX_LISTED_ERRORS` are kept as text."""
        self.error_count += 1
        if len(self.errors) < MAX_LISTED_ERRORS:
            self.errors.append(clean(text))

    def listed_errors(self) -> list[str]:
        """The kept error lines, plus one line saying how many more there were."""
        more = self.error_count - len(self.errors)
        return self.errors + ([f"{_MORE}{more} more errors"] if more > 0 else [])

    @classmethod
    def from_finished(cls, path: str, finished: ImportFinished, parser: str, agent: str) -> FileReceipt:
        """The receipt of importing again a file whose receipt is ``finished``: everything it
        stored is known now; its skips and errors are those of that import (errors located
        in the file then read at another path name ``path`` now)."""
        counts = finished.counts
        conversations = sum(counts.get(f"conversations_{k}", 0) for k in ("new", "updated", "known"))
        receipt = cls(path, finished.sha256, parser, agent, {"new": 0, "updated": 0, "known": conversations},
                      {"new": 0, "known": counts.get("messages_new", 0) + counts.get("messages_known", 0)},
                      dict(finished.skipped))
        receipt.errors = [path + e[len(finished.path):] if finished.path and e.startswith(finished.path) else e
                          for e in finished.errors if not e.startswith(_MORE)][:MAX_LISTED_ERRORS]
        receipt.error_count = max(counts.get("errors", 0), len(receipt.errors))
        return receipt

    def finished_event(self) -> ImportFinished:
        """The ImportFinished payload that records this receipt in the log."""
        counts = {f"conversations_{k}": v for k, v in self.conversations.items()}
        counts.update({f"messages_{k}": v for k, v in self.messages.items()})
        counts["errors"] = self.error_count
        return ImportFinished(self.sha256, self.path, counts, dict(self.skipped), self.listed_errors())

    @property
    def failed(self) -> bool:
        """True when nothing of this file could be imported: no message new or known, some error."""
        return self.messages["new"] + self.messages["known"] == 0 and self.error_count > 0

    def to_dict(self) -> dict[str, Any]:
        """This file's receipt on its own: its entry of :meth:`Receipt.to_dict` plus ``failed``."""
        return {**self.entry(), "failed": self.failed}

    def entry(self) -> dict[str, Any]:
        """The file's entry in the ``files`` list of :meth:`Receipt.to_dict`."""
        return {"path": clean(self.path), "sha256": self.sha256, "parser": self.parser, "agent": self.agent,
                "conversations": dict(self.conversations), "messages": dict(self.messages),
                "skipped": dict(self.skipped), "errors": self.listed_errors()}

    @classmethod
    def merged(cls, path: str, sha256: str, receipt: Receipt) -> FileReceipt:
        """One receipt for a ZIP: the sums of its members' receipts (parsers and agents joined)."""
        out = cls(path, sha256, ",".join(sorted({f.parser for f in receipt.files if f.parser})),
                  ",".join(sorted({f.agent for f in receipt.files if f.agent})))
        for f in receipt.files:
            _add_counts(out.conversations, f.conversations)
            _add_counts(out.messages, f.messages)
            _add_counts(out.skipped, f.skipped)
            out.errors.extend(f.errors[: MAX_LISTED_ERRORS - len(out.errors)])
            out.error_count += f.error_count
        _add_counts(out.skipped, receipt.ignored)
        return out


@dataclass
class Receipt:
    """The receipt of one ingest: every file's receipt and the files passed over by reason."""

    files: list[FileReceipt] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        """True when nothing could be imported: no message new or known, and at least one error."""
        seen = sum(f.messages["new"] + f.messages["known"] for f in self.files)
        return seen == 0 and any(f.error_count for f in self.files)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready receipt (shape in the module docstring)."""
        skipped: dict[str, int] = {}
        for f in self.files:
            _add_counts(skipped, f.skipped)
        _add_counts(skipped, self.ignored)
        totals = {
            "files": len(self.files),
            "conversations_new": sum(f.conversations["new"] for f in self.files),
            "conversations_known": sum(f.conversations["known"] + f.conversations["updated"] for f in self.files),
            "messages_new": sum(f.messages["new"] for f in self.files),
            "messages_known": sum(f.messages["known"] for f in self.files),
            "skipped": skipped,
            "errors": sum(f.error_count for f in self.files),
        }
        return {"files": [f.entry() for f in self.files], "totals": totals, "failed": self.failed}


class Tally:
    """Which message keys of each conversation had a new event, folded into a FileReceipt.

    Conversations are finished (counted) when :meth:`close` runs, or when more than
    ``open_limit`` are open (the least recently seen first), so memory stays bounded on
    exports of many thousand conversations: an export lists each conversation once.
    """

    def __init__(self, receipt: FileReceipt, *, open_limit: int = 256) -> None:
        self.receipt = receipt
        self.open_limit = open_limit
        self.open: OrderedDict[str, dict[str, bool]] = OrderedDict()

    def add(self, conversation: str, message: str, new: bool) -> None:
        """Note one event of ``message``; the message is new if any of its events is."""
        messages = self.open.get(conversation)
        if messages is None:
            if len(self.open) >= self.open_limit:
                self._finish(next(iter(self.open)))
            messages = self.open[conversation] = {}
        else:
            self.open.move_to_end(conversation)
        messages[message] = messages.get(message, False) or new

    def close(self) -> None:
        """Count every open conversation."""
        while self.open:
            self._finish(next(iter(self.open)))

    def _finish(self, conversation: str) -> None:
        messages = self.open.pop(conversation)
        fresh = sum(messages.values())
        self.receipt.messages["new"] += fresh
        self.receipt.messages["known"] += len(messages) - fresh
        state = "new" if fresh == len(messages) else "updated" if fresh else "known"
        self.receipt.conversations[state] += 1


def _add_counts(into: dict[str, int], more: dict[str, int]) -> None:
    for key, n in more.items():
        into[key] = into.get(key, 0) + n
