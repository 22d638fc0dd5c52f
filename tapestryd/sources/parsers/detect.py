"""Which parser a file needs, told from its content (the first KB), never its name.

:func:`detect_format` answers ``zip`` for a ZIP archive, ``metadata`` for the side files
of an export that hold no conversations (Claude.ai ``users.json``, ``projects.json``,
``memories.json``; ChatGPT ``user.json``, ``message_feedback.json``,
``shared_conversations.json``), or a parser name: ``codex``, ``gemini``, ``opencode``,
``claude-code``, ``chatgpt``, ``claude`` (asked in that order: a Gemini CLI header names
a ``sessionId`` too, which the Claude Code sniff would take). :func:`get_parser` gives the parser of a name.
"""

from __future__ import annotations

import re

from tapestryd.errors import ParseError, UnknownFormatError
from tapestryd.sources.parsers.base import Parser
from tapestryd.sources.parsers.chatgpt import ChatGPTParser
from tapestryd.sources.parsers.claude_ai import ClaudeAIParser
from tapestryd.sources.parsers.claude_code import ClaudeCodeParser
from tapestryd.sources.parsers.codex import CodexParser
from tapestryd.sources.parsers.gemini import GeminiParser
from tapestryd.sources.parsers.opencode import OpenCodeParser

__all__ = ["HEAD_SIZE", "PARSER_NAMES", "ZIP_MAGIC", "detect_format", "get_parser", "preview"]

HEAD_SIZE = 4096
_PARSERS: dict[str, Parser] = {p.name: p for p in (CodexParser(), GeminiParser(), OpenCodeParser(), ClaudeCodeParser(),
                                                   ChatGPTParser(), ClaudeAIParser())}
PARSER_NAMES = tuple(_PARSERS)
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_METADATA = re.compile(
    rb'"(email_address|full_name|verified_phone_number|conversations_memory|project_memories|prompt_template'
    rb'|is_starter_project|chatgpt_plus_user|birth_year|is_anonymous|rating)"\s*:'
)
_CONVERSATION_KEYS = re.compile(rb'"(chat_messages|mapping|sessionId|parentUuid|leafUuid)"\s*:')


def get_parser(name: str) -> Parser:
    """The parser called ``name``; raises ParseError naming the valid choices."""
    try:
        return _PARSERS[name]
    except KeyError:
        raise ParseError(f"unknown parser {name!r}; expected auto, {', '.join(PARSER_NAMES)}") from None


def detect_format(head: bytes, *, location: str) -> str:
    """``zip``, ``metadata`` or the parser name for content starting with ``head``.

    Raises UnknownFormatError (message names ``location``) for an empty file or content
    that matches no format.
    """
    if head.startswith(ZIP_MAGIC):
        return "zip"
    if not head.strip():
        raise UnknownFormatError("empty file: nothing to import", location)
    if _METADATA.search(head) and not _CONVERSATION_KEYS.search(head):
        return "metadata"
    for name, parser in _PARSERS.items():
        if parser.sniff(head):
            return name
    raise UnknownFormatError(
        f"not a Claude Code session, ChatGPT export or Claude.ai export, nor a Codex CLI, Gemini CLI or "
        f"OpenCode session (it starts with {preview(head)}); "
        f"name the format with --parser if it is one of them", location)


def preview(head: bytes) -> str:
    """The first 40 bytes of ``head`` as a quoted string (bad UTF-8 as U+FFFD), ``…`` when there is more."""
    text = head[:40].decode("utf-8", "replace")
    return repr(text + ("…" if len(head) > 40 else ""))
