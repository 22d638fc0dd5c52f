"""An offline token estimate for budgets: about four characters per token.

Queries must not import :mod:`tapestryd.summarize` (DESIGN.md's import rule), so the
context budget uses this small estimator of its own. Four characters per token is the
usual rule of thumb for English text with BPE tokenizers (OpenAI's and Anthropic's
guidance); it errs high on code and low on CJK text, which is fine for a budget that only
has to keep an injected context well under a model's window.
"""

from __future__ import annotations

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens", "flatten", "shorten"]

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated tokens in ``text``: ``ceil(len(text) / 4)`` (0 for an empty string).

    Ceiling division makes the estimate subadditive: the tokens of a joined text never
    exceed the sum of its parts' tokens, so a budget summed over parts is an upper bound.
    """
    return -(-len(text) // CHARS_PER_TOKEN)


def shorten(text: str, max_chars: int) -> str:
    """``text`` cut to at most ``max_chars`` characters at a word boundary, with ``…``.

    Returns ``text`` unchanged when it fits; ``max_chars`` below 2 gives ``"…"``.
    """
    if len(text) <= max_chars:
        return text
    if max_chars < 2:
        return "…"
    cut = text[: max_chars - 1]
    space = cut.rfind(" ")
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"


def flatten(text: str, max_chars: int) -> str:
    """``text`` on one line (runs of whitespace made one space), shortened to ``max_chars``."""
    return shorten(" ".join(text.split()), max_chars)
