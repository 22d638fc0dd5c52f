"""Node keys, node periods and fingerprints of the summary hierarchy.

Node keys (nodes are per agent; days are local days in the configured timezone):

=====  ==============================================  ===================================
level  what                                            key
=====  ==============================================  ===================================
L0     a conversation's messages within one local day  ``L0:{agent}:{YYYY-MM-DD}:{conversation}``
L1     one local day                                   ``L1:{agent}:{YYYY-MM-DD}``
L2     a week, split at month boundaries               ``L2:{agent}:{week key}`` (``2026-03-30w``)
L3     a month                                         ``L3:{agent}:{YYYY-MM}``
L4     a year                                          ``L4:{agent}:{YYYY}``
=====  ==============================================  ===================================

Conversation keys contain colons, so an L0 key splits with ``maxsplit=3``. Agent labels
never contain a colon.

Fingerprints are the first 32 hex digits of sha256. An L0's input is the multiset of the
``MessageRecorded`` events that fell into it, folded into a running ``digest`` (the sum
modulo 2**128 of one 128-bit hash per event, so a message adds in O(1) whatever the
segment's size, and the order of arrival does not matter). A parent's input is its
children's keys, titles and summaries in key order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import date
from functools import cached_property, lru_cache
from typing import Iterable

from tapestryd.clock import Period, parse_period_key, period_of

__all__ = [
    "NodeId",
    "add_to_digest",
    "chain_of",
    "hash_parts",
    "l0_fingerprint",
    "node_key",
    "parent_fingerprint",
    "parse_node_key",
]

_MOD = 1 << 128
EMPTY_DIGEST = "0" * 32


@dataclass(frozen=True)
class NodeId:
    """One node's identity: level (0–4), agent, period (local days) and conversation (L0 only)."""

    level: int
    agent: str
    period: Period
    conversation: str = ""

    @cached_property
    def key(self) -> str:
        """The node's key (see the module docstring); computed once per NodeId."""
        return node_key(self.level, self.agent, self.period, self.conversation)


def node_key(level: int, agent: str, period: Period, conversation: str = "") -> str:
    """The key of the node of ``level`` for ``agent`` over ``period``."""
    if level == 0:
        return f"L0:{agent}:{period.start.isoformat()}:{conversation}"
    return f"L{level}:{agent}:{period.key}"


def parse_node_key(key: str, first_day_of_week: int = 0) -> NodeId:
    """The NodeId a key names. Raises ValueError for a string that is not a node key."""
    if key.startswith("L0:"):
        parts = key.split(":", 3)
        if len(parts) != 4 or not parts[3]:
            raise ValueError(f"not an L0 node key: {key!r}")
        return NodeId(0, parts[1], period_of(1, date.fromisoformat(parts[2])), parts[3])
    parts = key.split(":", 2)
    if len(parts) != 3 or parts[0] not in ("L1", "L2", "L3", "L4"):
        raise ValueError(f"not a node key: {key!r}")
    period = parse_period_key(parts[2], first_day_of_week)
    if period.level != int(parts[0][1]):
        raise ValueError(f"period {parts[2]!r} does not match level {parts[0]}")
    return NodeId(period.level, parts[1], period)


@lru_cache(maxsize=4096)
def chain_of(agent: str, day: date, conversation: str, first_day_of_week: int) -> tuple[NodeId, ...]:
    """The five nodes a message of ``conversation`` on local ``day`` belongs to, L0 first (cached: pure)."""
    chain = [NodeId(0, agent, period_of(1, day), conversation)]
    chain.extend(NodeId(level, agent, period_of(level, day, first_day_of_week)) for level in range(1, 5))
    return tuple(chain)


def hash_parts(*parts: str) -> str:
    """The first 32 hex digits of sha256 over the parts, separated by a unit separator."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def add_to_digest(digest: str, *parts: str) -> str:
    """The running L0 digest with one more event's parts folded in (sum modulo 2**128)."""
    return f"{(int(digest or EMPTY_DIGEST, 16) + int(hash_parts(*parts), 16)) % _MOD:032x}"


def l0_fingerprint(digest: str) -> str:
    """An L0's input fingerprint from its digest of message events."""
    return hash_parts("L0", digest or EMPTY_DIGEST)


def parent_fingerprint(level: int, children: Iterable[tuple[str, str, str]]) -> str:
    """A parent's input fingerprint from its children's ``(key, title, summary)`` in key order."""
    flat = [part for child in children for part in child]
    return hash_parts(f"L{level}", *flat)
