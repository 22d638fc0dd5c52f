"""The Parser seam: a file's bytes in, a stream of events and per-item problems out.

Parsers are pure: no database, no clock, no writes. They stream, so a 300 MB export is
read in bounded memory. What a parser yields:

* :class:`~tapestryd.events.types.NewEvent`: a message, a title, ...;
* :class:`Skip`: an item deliberately not stored, with its reason (``hidden-system``,
  ``empty``, ``meta``, ``marker``, ...), counted in the import receipt;
* :class:`Problem`: an item that could not be read, with its location (file and line, or
  conversation id) and what was wrong; the rest of the file still imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Iterator, Protocol, Union

from tapestryd.events.types import NewEvent

__all__ = ["Item", "Origin", "Parser", "Problem", "Skip", "json_kind"]


def json_kind(value: object) -> str:
    """What a decoded JSON ``value`` is, in JSON's words with an article, for error lines a person reads:
    'a string', 'a number', 'true or false', 'null', 'a list', 'an object' (not Python's 'str', 'int',
    'NoneType'); any other Python value is 'a <type name>'."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float, Decimal)):  # ijson reads 1.5 as a Decimal
        return "a number"
    if value is None:
        return "null"
    for kind, name in ((str, "a string"), (list, "a list"), (dict, "an object")):
        if isinstance(value, kind):
            return name
    return f"a {type(value).__name__}"


@dataclass(frozen=True)
class Skip:
    """An item not stored on purpose; ``reason`` is a short kebab-case label."""

    reason: str
    location: str = ""


@dataclass(frozen=True)
class Problem:
    """An item that could not be parsed: ``location`` (``file:line`` or ``file#conv``) and why."""

    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


Item = Union[NewEvent, Skip, Problem]


@dataclass(frozen=True)
class Origin:
    """Where the bytes come from: the display path, the export's sha256 and the agent label."""

    path: str
    sha256: str
    agent: str


class Parser(Protocol):
    """Turns one export format into events.

    ``name`` is the ``--parser`` value (``claude-code``, ``chatgpt``, ``claude``).
    ``sniff`` decides from the first bytes of content (never the file name) whether the
    format is this parser's.
    """

    name: str

    def sniff(self, head: bytes) -> bool:
        """Whether ``head`` (the first few KB) looks like this parser's format."""

    def parse(self, stream: IO[bytes], origin: Origin) -> Iterator[Item]:
        """Yield the events, skips and problems of the whole stream, in file order."""
