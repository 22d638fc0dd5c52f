"""Token estimates without a tokenizer download: about four characters per token.

The ratio is the usual rule of thumb for English with BPE tokenizers (OpenAI's own
guidance); it is only used for budgets, chunk sizes and usage when a provider reports none.
"""

from __future__ import annotations

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens"]

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (characters / 4, rounded up; 0 for empty text)."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
