"""AWS secret access keys written without a label: 40 base64 characters, nothing else to go by.

An AWS secret access key is 40 characters of ``A-Z a-z 0-9 / +`` (AWS IAM user guide,
"Managing access keys"; the documentation's example is ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``).
The labelled form (``aws_secret_access_key = …``) is a rule of :mod:`tapestryd.privacy.secrets`;
this module finds the bare one, which a context-free rule would confuse with identifiers,
paths and hashes. A 40-character run counts only when it passes every guard:

* it stands alone (no base64 character or ``=`` right before or after it: longer base64
  blobs, images, JWT parts are not keys);
* its character mix is that of a random key: an upper-case letter, a lower-case letter
  and a digit (a git SHA-1 is lower-case hex, so it never qualifies), at most four ``/``
  or ``+`` (a path has more), no run of nine lower-case letters (words, identifiers),
  fewer than :data:`CAMEL_WORDS` capitalised words of five letters or more
  (``HttpRequestHandlerFactoryProviderImpl2V3``; a random key holds about 0.4 on average),
  and at least :data:`MIN_ENTROPY` bits per character (random keys measure 4.5 to 5.2);
* something says it is a key: within :data:`NEAR` characters an AWS access key id
  (``AKIA…``, ``ASIA…``) or the word ``secret``, ``aws`` or ``key``; or it is alone on its
  line (quotes and a trailing comma aside), as when pasted from a credentials download.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tapestryd.privacy.rules import shannon_entropy

__all__ = ["MIN_ENTROPY", "NEAR", "find_bare_aws_secrets"]

_LINE_EDGE = " \t\r\"'`,;"

MIN_ENTROPY = 4.2
NEAR = 100  # characters before and after the run searched for a key id or a key word

# Runs of the alphabet are found on the UTF-8 bytes with every alphabet byte turned into "x"
# and every other byte into a blank (bytes.translate), then searched for 40 x's: about a
# nanosecond a character, where a regex scan costs about a hundred.
_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+"
_MASK = bytes(ord("x") if b in _ALPHABET else ord(" ") for b in range(256))
_FORTY = b"x" * 40
_KEY_ID = re.compile(r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}")
_WORD = re.compile(r"secret|aws|key", re.IGNORECASE)
_LONG_WORD = re.compile(r"[a-z]{9}")
_CAPITALISED = re.compile(r"[A-Z][a-z]{4,}")
CAMEL_WORDS = 3
"""Capitalised words of five letters or more that make a run a CamelCase identifier, not a key."""
_EDGE = 16  # characters of quotes, blanks and commas a key alone on its line may have around it


def find_bare_aws_secrets(text: str) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` spans of ``text`` that are bare AWS secret access keys, in text order."""
    if len(text) < 40:
        return
    data = text.encode("utf-8", "surrogatepass")
    masked = data.translate(_MASK)
    at = masked.find(_FORTY)
    while at >= 0:
        end = masked.find(b" ", at)
        end = len(masked) if end < 0 else end
        if end - at == 40 and data[at - 1:at] != b"=" and data[end:end + 1] != b"=":
            start = at if len(data) == len(text) else len(data[:at].decode("utf-8", "surrogatepass"))
            if _random_looking(text[start:start + 40]) and (_alone_on_line(text, start, start + 40)
                                                            or _said_to_be_a_key(text, start, start + 40)):
                yield start, start + 40
        at = masked.find(_FORTY, end)


def _random_looking(value: str) -> bool:
    return (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
            and value.count("/") + value.count("+") <= 4 and _LONG_WORD.search(value) is None
            and len(_CAPITALISED.findall(value)) < CAMEL_WORDS and shannon_entropy(value) >= MIN_ENTROPY)


def _alone_on_line(text: str, start: int, end: int) -> bool:
    """Whether only quotes, blanks and commas (at most :data:`_EDGE` of them) share the run's line."""
    before = text[max(0, start - _EDGE):start]
    cut = before.rfind("\n")
    if cut < 0 and start > _EDGE or before[cut + 1:].strip(_LINE_EDGE):
        return False
    after = text[end:end + _EDGE]
    cut = after.find("\n")
    if cut < 0 and end + _EDGE < len(text):
        return False
    return not after[:cut if cut >= 0 else len(after)].strip(_LINE_EDGE)


def _said_to_be_a_key(text: str, start: int, end: int) -> bool:
    before, after = text[max(0, start - NEAR):start], text[end:end + NEAR]
    return any(_WORD.search(part) or _KEY_ID.search(part) for part in (before, after))
