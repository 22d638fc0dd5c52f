"""Text that leaves the log for a web page: redacted, then rendered as escaped markdown.

Markdown is rendered by markdown-it-py (CommonMark, plus GFM tables and strikethrough)
with raw HTML disabled, so ``<script>`` or ``<img onerror>`` inside a conversation is shown
as text and never executed; link targets go through markdown-it's ``validateLink``, which
refuses ``javascript:``, ``vbscript:``, ``file:`` and ``data:`` URLs. Every text passes
through the privacy layer's :func:`~tapestryd.privacy.outbound` first, so secrets and
``<private>`` spans never reach a page.
"""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from tapestryd.privacy import outbound
from tapestryd.queries.snippets import query_stems

__all__ = ["highlight", "markdown", "plain", "shorten"]

_MARKED = re.compile(r"\[([^\[\]\n]{1,100})\]")

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


def highlight(snippet: str | None, query: str) -> Markup:
    """A search snippet redacted and escaped, its marked matches (``[word]``, see
    :mod:`tapestryd.queries.snippets`) shown as ``<mark>word</mark>``.

    Only a bracketed word that stems to one of ``query``'s words (or, for a regex search,
    equals the query) is a mark; other brackets in the text (``[1]``, a link's ``[label]``)
    stay as they are.
    """
    text, stems = plain(snippet), query_stems(query)
    out, at = [], 0
    for found in _MARKED.finditer(text):
        inner = found.group(1)
        if (query_stems(inner) & stems) or inner.lower() == query.strip().lower():
            out += [escape(text[at:found.start()]), Markup("<mark>"), escape(inner), Markup("</mark>")]
            at = found.end()
    out.append(escape(text[at:]))
    return Markup("").join(out)


def shorten(text: str | None, limit: int = 160) -> str:
    """``text`` redacted, on one line, cut at a word boundary to at most ``limit`` characters."""
    flat = " ".join(plain(text).split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0] + "…"
