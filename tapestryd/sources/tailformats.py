"""Which parser reads each tailed file, told from its content, and the state of line formats that need one.

The tailer hands :meth:`TailFormats.items` the complete lines it read from a file. The
first time a file is met, its first non-blank bytes decide the parser: a Codex CLI rollout
or a Gemini CLI chat (:mod:`tapestryd.sources.parsers.lines`), else a Claude Code session
(whose lines carry their session themselves; a ``subagents/agent-*.jsonl`` file's messages
are marked as a subagent's, :mod:`tapestryd.sources.parsers.subagents`). A stateful
parser's state is kept per file between passes, keyed by inode and offset; when the
tailer resumes where no state is held (after a restart, or a file read again from 0),
the lines before the offset are fed to a fresh state first and their items dropped, so
ids are those of a whole read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, IO, Iterator, Mapping

from tapestryd.sources.parsers.base import Item, Origin
from tapestryd.sources.parsers.claude_code import ClaudeCodeParser
from tapestryd.sources.parsers.codex import CodexParser
from tapestryd.sources.parsers.gemini import GeminiParser
from tapestryd.sources.parsers.lines import Line, LineParser, block_lines, last_line_end
from tapestryd.sources.parsers.subagents import mark_subagents

__all__ = ["SNIFF_LIMIT", "TailFormats"]

SNIFF_LIMIT = 1 << 20
"""Bytes of leading blank lines passed over to find a file's first record (then it is taken as Claude Code)."""
_HEAD = 4096
_STATEFUL: tuple[LineParser, ...] = (CodexParser(), GeminiParser())


class TailFormats:
    """Parsers and per-file states of the tailed files.

    ``agents`` maps a parser name to the agent label its events get (a parser missing
    from it labels events with its own name).
    """

    def __init__(self, agents: Mapping[str, str]) -> None:
        self.agents = dict(agents)
        self.claude = ClaudeCodeParser()
        self._names: dict[str, str] = {}
        self._states: dict[str, tuple[int, int, Any]] = {}

    def parser_of(self, fh: IO[bytes], path: str) -> str:
        """The parser name of the file open as ``fh`` (remembered once its first record is there)."""
        if path in self._names:
            return self._names[path]
        head = _head(fh)
        if not head:
            return self.claude.name
        name = next((p.name for p in _STATEFUL if p.sniff(head)), self.claude.name)
        self._names[path] = name
        return name

    def items(self, fh: IO[bytes], path: str, inode: int, start: int, lines: list[Line]) -> Iterator[Item]:
        """Items of ``lines`` (complete lines read from byte ``start`` of the file at ``inode``)."""
        name = self.parser_of(fh, path)
        origin = Origin(path=path, sha256="", agent=self.agents.get(name, name))
        parser = next((p for p in _STATEFUL if p.name == name), None)
        if parser is None:
            yield from mark_subagents(self.claude.parse_lines(lines, origin, Path(path).stem), path)
            return
        state = self._state(parser, fh, path, inode, start, origin)
        yield from parser.feed(lines, origin, state)
        end = lines[-1][0] + len(lines[-1][1]) if lines else start
        self._states[path] = (inode, end, state)

    def _state(self, parser: LineParser, fh: IO[bytes], path: str, inode: int, start: int, origin: Origin) -> Any:
        held = self._states.get(path)
        if held is not None and held[:2] == (inode, start):
            return held[2]
        state = parser.begin(origin)
        for _ in parser.feed(_prefix(fh, start), origin, state):
            pass
        return state


def _head(fh: IO[bytes]) -> bytes:
    """The first ``_HEAD`` bytes after leading blank space (``b""`` when there are none within SNIFF_LIMIT)."""
    fd, offset = fh.fileno(), 0
    while offset < SNIFF_LIMIT:
        block = os.pread(fd, _HEAD, offset)
        if not block:
            return b""
        kept = block.lstrip(b" \t\r\n")
        if kept:
            return kept + os.pread(fd, _HEAD - len(kept), offset + len(block)) if len(kept) < _HEAD else kept
        offset += len(block)
    return b""


def _prefix(fh: IO[bytes], end: int, chunk: int = 4 << 20) -> Iterator[Line]:
    """The non-blank lines of bytes ``[0, end)``, which end with a newline (the tailer's stored offset)."""
    fd, offset, carry = fh.fileno(), 0, b""
    while offset < end:
        block = os.pread(fd, min(chunk, end - offset), offset)
        if not block:
            return
        data, base = carry + block, offset - len(carry)
        offset += len(block)
        cut = last_line_end(data) + 1
        yield from block_lines(data[:cut], base)
        carry = data[cut:]
