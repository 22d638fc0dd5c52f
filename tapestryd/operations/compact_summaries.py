"""Which summaries compaction replaces by tombstones: those a ``Forgotten`` event blanked.

A ``Forgotten`` event blanks, in the hierarchy projection
(:mod:`tapestryd.projections.hierarchy_forget`), the L0 nodes that held a message it
forgets, the nodes whose title or summary its pattern matches (a pattern rule without a
time bound; with a conversation, only that conversation's L0 nodes), and every ancestor of
those. This module replays the log's ``NodeSummarized`` and ``Forgotten`` events in order
to find, for each node so blanked, every summary version written before the blanking (any
of them may quote what was forgotten), and also every earlier version a later pattern rule
matches. Each one becomes a tombstone: title ``""``, text
:func:`~tapestryd.projections.hierarchy_forget.tombstone_text` naming the Forgotten event
that blanks it (numbered by distinct text per node, so two equal summaries stay equal and a
replay takes the same branches); the other fields stay. Replaying the compacted log, that
Forgotten event blanks the same nodes.
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterable
from zoneinfo import ZoneInfo

from tapestryd.clock import local_date
from tapestryd.events.types import (
    Forgotten,
    MessageRecorded,
    NodeSummarized,
    StoredEvent,
    parse_utc,
)
from tapestryd.privacy import outbound
from tapestryd.projections.forgetting import ForgetRule, compiled
from tapestryd.projections.hierarchy_forget import TOMBSTONE, tombstone_text
from tapestryd.projections.hierarchy_keys import chain_of, parse_node_key

__all__ = ["is_summary_tombstone", "lost_leaves", "summary_tombstones"]


def is_summary_tombstone(text: str) -> bool:
    """Whether a NodeSummarized text is a compaction tombstone."""
    return text.startswith(TOMBSTONE)


def lost_leaves(messages: Iterable[StoredEvent], forgets: list[StoredEvent], timezone: str,
                first_day_of_week: int) -> dict[int, set[str]]:
    """``forgotten seq → keys of the L0 nodes and ancestors`` that lost a message to it.

    ``messages`` are the forgotten ``MessageRecorded`` events; each one went with the first
    later Forgotten event whose rule covers it (text judged as the projection stores it; a
    message already a tombstone goes with the first later rule its time and conversation fit).
    """
    tz, lost = ZoneInfo(timezone), defaultdict[int, set[str]](set)
    for event in messages:
        msg = event.payload(MessageRecorded)
        forget = next((f for f in forgets if f.seq > event.seq and _covers(ForgetRule.of(f.payload(Forgotten)), msg)),
                      None)
        if forget is None:
            continue
        try:
            day = local_date(parse_utc(msg.timestamp), tz)
        except ValueError:
            continue
        lost[forget.seq].update(node.key for node in chain_of(event.agent, day, msg.conversation, first_day_of_week))
    return lost


def _covers(rule: ForgetRule, msg: MessageRecorded) -> bool:
    if not msg.meta.get("forgotten"):
        return rule.covers(msg.conversation, msg.timestamp, outbound(msg.text))
    return bool(rule.conversation or rule.before or rule.match) and (
        (not rule.conversation or rule.conversation == msg.conversation)
        and (not rule.before or msg.timestamp < rule.before))


def summary_tombstones(events: Iterable[StoredEvent], lost: dict[int, set[str]],
                       first_day_of_week: int) -> list[tuple[StoredEvent, NodeSummarized]]:
    """``(event, tombstone)`` for each NodeSummarized to replace, in seq order (see the module docstring).

    ``events`` are the log's NodeSummarized and Forgotten events in seq order; ``lost`` is
    :func:`lost_leaves`. Versions that already are tombstones are left out.
    """
    current: dict[str, tuple[str, str]] = {}
    pending: dict[str, list[StoredEvent]] = defaultdict(list)
    tagged: dict[int, tuple[StoredEvent, int]] = {}
    for event in events:
        payload = event.event
        if isinstance(payload, NodeSummarized):
            current[payload.node] = (payload.title, payload.text)
            if not is_summary_tombstone(payload.text):
                pending[payload.node].append(event)
        elif isinstance(payload, Forgotten):
            blanked = set(lost.get(event.seq, ())) | _matched(payload, current, first_day_of_week)
            for node in blanked:
                tagged.update((old.seq, (old, event.seq)) for old in pending.pop(node, []))
                current[node] = ("", "")
            _tag_matching_versions(payload, event.seq, pending, tagged)
    return _tombstones(tagged.values())


def _in_scope(rule: Forgotten, node: str) -> bool:
    """Whether a pattern rule looks at this node's title and summary (see the module docstring)."""
    return bool(rule.match) and not rule.before and (
        not rule.conversation or (node.startswith("L0:") and node.split(":", 3)[3] == rule.conversation))


def _matched(rule: Forgotten, current: dict[str, tuple[str, str]], first_day_of_week: int) -> set[str]:
    """Nodes whose current title or summary the rule's pattern matches, with their ancestors."""
    pattern, found = compiled(rule.match), set[str]()
    for node, (title, text) in current.items():
        if _in_scope(rule, node) and (pattern.search(title) or pattern.search(text)):
            found |= _with_ancestors(node, first_day_of_week)
    return found


def _with_ancestors(key: str, first_day_of_week: int) -> set[str]:
    try:
        node = parse_node_key(key, first_day_of_week)
    except ValueError:
        return {key}
    chain = chain_of(node.agent, node.period.start, node.conversation or "-", first_day_of_week)
    return {key} | {above.key for above in chain[node.level + 1:]}


def _tag_matching_versions(rule: Forgotten, seq: int, pending: dict[str, list[StoredEvent]],
                           tagged: dict[int, tuple[StoredEvent, int]]) -> None:
    """Earlier versions the rule's pattern matches go too (a newer version of the node, which
    it does not match, replaced them, so no replay shows them again)."""
    pattern = compiled(rule.match) if rule.match else None
    for node, versions in pending.items():
        if pattern is None or not _in_scope(rule, node):
            continue
        hits = [v for v in versions if _mentions(pattern, v.payload(NodeSummarized))]
        tagged.update((v.seq, (v, seq)) for v in hits)
        versions[:] = [v for v in versions if v not in hits]


def _mentions(pattern: re.Pattern[str], done: NodeSummarized) -> bool:
    return pattern.search(done.title) is not None or pattern.search(done.text) is not None


def _tombstones(tagged: Iterable[tuple[StoredEvent, int]]) -> list[tuple[StoredEvent, NodeSummarized]]:
    variants: dict[str, dict[tuple[str, str], int]] = defaultdict(dict)
    out = []
    for event, forget_seq in sorted(tagged, key=lambda pair: pair[0].seq):
        done = event.payload(NodeSummarized)
        seen = variants[done.node]
        variant = seen.setdefault((done.title, done.text), len(seen))
        out.append((event, dataclasses.replace(done, title="", text=tombstone_text(forget_seq, variant))))
    return out
