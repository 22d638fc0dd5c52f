"""Text that leaves the log for a web page: redacted, then rendered as escaped markdown.

Markdown is rendered by markdown-it-py (CommonMark, plus GFM tables and strikethrough)
with raw HTML disabled, so ``<script>`` or ``<img onerror>`` inside a conversation is shown
as text and never executed; link targets go through markdown-it's ``validateLink``, which
refuses ``javascript:``, ``vbscript:``, ``file:`` and ``data:`` URLs. Every text passes
through the privacy layer's :func:`~tapestryd.privacy.outbound` first, so secrets and
``<private>`` spans never reach a page.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup

from tapestryd.privacy import outbound

__all__ = ["markdown", "plain", "shorten"]

_MD = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False}).enable(["table", "strikethrough"])


def _external_links(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
    return str(self.renderToken(tokens, idx, options, env))


_MD.add_render_rule("link_open", _external_links)


def markdown(text: str | None) -> Markup:
    """``text`` redacted and rendered to safe HTML (raw HTML in it escaped, never executed)."""
    return Markup(_MD.render(outbound(text or "")))


def plain(text: str | None) -> str:
    """``text`` redacted, as plain text (Jinja escapes it when it is inserted)."""
    return outbound(text or "")


def shorten(text: str | None, limit: int = 160) -> str:
    """``text`` redacted, on one line, cut at a word boundary to at most ``limit`` characters."""
    flat = " ".join(plain(text).split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + "…"
