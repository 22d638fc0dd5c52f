"""Level names as users type them, read one way by every command: ``2``, ``L2`` and ``l2``
all name level 2 (week), for ``search``/``similar --level`` and ``eval``/``drift --level`` alike."""

from __future__ import annotations

import re
from typing import Any

from tapestryd.errors import TapestryError

__all__ = ["LEVEL_WORDS", "level_filter", "level_number"]

LEVEL_WORDS = ("all", "messages", "summaries")
"""The ``--level`` words of search and similar besides a single level."""

_LEVEL = re.compile(r"[Ll]?([0-4])")


def level_number(value: Any) -> int:
    """The level 0-4 that ``value`` names (``2``, ``"2"``, ``"L2"``, ``"l2"``).

    Raises TapestryError naming the value otherwise.
    """
    found = _LEVEL.fullmatch(str(value).strip())
    if isinstance(value, bool) or found is None:
        raise TapestryError(f"unknown level {value!r}; use 0-4 or L0-L4")
    return int(found.group(1))


def level_filter(value: Any) -> str:
    """A search/similar ``--level``: one of :data:`LEVEL_WORDS` as given, or ``"L0"`` … ``"L4"``
    for a single level however written; ``""``/None is ``"all"``.

    Raises TapestryError naming the value and the accepted names otherwise.
    """
    text = str(value or "all").strip()
    if text.lower() in LEVEL_WORDS:
        return text.lower()
    found = _LEVEL.fullmatch(text)
    if found is None:
        raise TapestryError(f"unknown level {value!r}; use one of {', '.join(LEVEL_WORDS)}, 0-4 or L0-L4")
    return f"L{found.group(1)}"
