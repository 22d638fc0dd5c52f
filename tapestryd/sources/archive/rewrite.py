"""Archived versions without the lines forget removes: counting them, naming their messages, rewriting.

Each function reads a version in pieces cut after a newline (a block may end mid-line) and
judges a piece with :class:`~tapestryd.sources.archive.lines.LineRules`, so what
:func:`count_removed` counts (``forget --dry-run``) is what :func:`rewrite_without` removes.
``forgotten`` is a set of message keys of the version's source
(:mod:`tapestryd.sources.archive.parts`): their lines go whatever the rules say.
"""

from __future__ import annotations

from typing import Collection, Iterator

from tapestryd.sources.archive.lines import LineRules, split_lines
from tapestryd.sources.archive.store import ArchivedFile, ArchiveStore

__all__ = ["count_removed", "messages_covered", "rewrite_without"]


def rewrite_without(archive: ArchiveStore, file: ArchivedFile, rules: LineRules,
                    forgotten: Collection[str] = frozenset()) -> int:
    """Rewrite ``file`` without the lines ``rules`` cover and the lines of the ``forgotten`` messages (marking it
    ``edited``); returns how many lines went (0: the version is left as it was). Raises StoreError."""
    removed = count_removed(archive, file, rules, forgotten)
    if removed:
        archive.rewrite(file, (rules.keep(piece, file.source, forgotten) for piece in _pieces(archive, file)))
    return removed


def count_removed(archive: ArchiveStore, file: ArchivedFile, rules: LineRules,
                  forgotten: Collection[str] = frozenset()) -> int:
    """How many lines of ``file`` :func:`rewrite_without` would remove. Raises StoreError."""
    return sum(len(split_lines(piece)) - len(split_lines(rules.keep(piece, file.source, forgotten)))
               for piece in _pieces(archive, file))


def messages_covered(archive: ArchiveStore, file: ArchivedFile, rules: LineRules) -> set[str]:
    """The keys of the messages of ``file``'s source with a line in ``file`` the rules cover
    (:meth:`LineRules.messages`). Raises StoreError."""
    found: set[str] = set()
    for piece in _pieces(archive, file):
        found |= rules.messages(piece, file.source)
    return found


def _pieces(archive: ArchiveStore, file: ArchivedFile) -> Iterator[bytes]:
    """The kept bytes of ``file`` in pieces cut after a newline (a block may end mid-line)."""
    pending = b""
    for block in archive.read(file.id):
        data = pending + block
        cut = data.rfind(b"\n") + 1
        pending = data[cut:]
        if cut:
            yield data[:cut]
    if pending:
        yield pending
