"""Reading the event log itself, read-only (for ``tapestryctl export-log``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

from tapestryd.events.codec import encode
from tapestryd.events.store import EventStore
from tapestryd.events.types import MessageRecorded
from tapestryd.privacy import outbound
from tapestryd.projections.message_parts import SEPARATOR, join_parts

__all__ = ["iter_log"]


def iter_log(events_db: Path, *, since: int = 0, redacted: bool = False) -> Iterator[dict[str, Any]]:
    """Each event after seq ``since`` as a JSON-ready dict with its envelope, in seq order.

    Keys: seq, event_id, type, schema, occurred_at, recorded_at, agent, source, origin, payload.
    The log is verbatim: secrets and private spans included. ``redacted`` passes every string
    of the payload, and the source, through :func:`tapestryd.privacy.outbound` (private spans
    stripped, secrets replaced), the filter of every other output. The parts of one message
    (``MessageRecorded`` events sharing conversation and message key) are filtered as the
    messages projection filters them, joined as a whole (:func:`_part_texts`), so a private
    span or a secret cut across two parts is hidden too. Raises StoreError when the log
    cannot be opened.
    """
    import json

    with EventStore(events_db, readonly=True) as store:
        parts = _multipart_seqs(store) if redacted else {}
        texts: dict[int, str] = {}  # seq → filtered text, for the parts of messages being printed
        for ev in store.read(after=since):
            type_name, schema, payload = encode(ev.event)
            record = {"seq": ev.seq, "event_id": ev.event_id, "type": type_name, "schema": schema,
                      "occurred_at": ev.occurred_at, "recorded_at": ev.recorded_at, "agent": ev.agent,
                      "source": ev.source, "origin": ev.origin, "payload": json.loads(payload)}
            if redacted:
                record["source"], record["payload"] = outbound(ev.source), _filtered(record["payload"])
                message = ev.event
                if isinstance(message, MessageRecorded) and (message.conversation, message.message) in parts:
                    if ev.seq not in texts:
                        texts.update(_part_texts(store, parts[message.conversation, message.message]))
                    record["payload"]["text"] = texts.pop(ev.seq)
            yield record


def _multipart_seqs(store: EventStore) -> dict[tuple[str, str], list[int]]:
    """(conversation, message key) → the log seqs of its parts, for the messages of more than one part."""
    seqs: dict[tuple[str, str], list[int]] = {}
    for ev in store.read(types=(MessageRecorded.type,)):
        message = ev.event
        if isinstance(message, MessageRecorded):
            seqs.setdefault((message.conversation, message.message), []).append(ev.seq)
    return {key: found for key, found in seqs.items() if len(found) > 1}


def _part_texts(store: EventStore, seqs: list[int]) -> dict[int, str]:
    """Each part's filtered text (seq → text), cut from the filtered joined message.

    The parts are joined as the messages projection joins them: in log order with
    :func:`join_parts`, a part whose ``meta.replaces`` is true starting the message again
    (each version is joined and cut on its own). A version's joined verbatim text is
    filtered as a whole with :func:`outbound`; each part gets the piece of that filtered
    whole that it adds: from where the filtered join of the parts before it stops agreeing
    with the whole, to where the join up to it does (a leading :data:`SEPARATOR` dropped).
    The pieces of a version, joined, are exactly its filtered whole, so no part shows what
    the joined message hides; a part that adds nothing visible prints as ``""``.
    """
    versions: list[list[tuple[int, str]]] = []
    for ev in store.at(seqs):
        part = ev.event
        if isinstance(part, MessageRecorded):
            if not versions or part.meta.get("replaces"):
                versions.append([])
            versions[-1].append((ev.seq, part.text))
    texts: dict[int, str] = {}
    for version in versions:
        prefixes, joined = [], ""
        for _, text in version:
            joined = join_parts((joined, text))
            prefixes.append(joined)
        whole = outbound(joined)
        start = 0
        for i, (seq, _) in enumerate(version):
            end = len(whole) if i == len(version) - 1 else max(start, _agreeing(outbound(prefixes[i]), whole))
            piece = whole[start:end]
            texts[seq] = piece[len(SEPARATOR):] if i and piece.startswith(SEPARATOR) else piece
            start = end
    return texts


def _agreeing(prefix: str, whole: str) -> int:
    """How many leading characters ``prefix`` and ``whole`` share."""
    return len(os.path.commonprefix((prefix, whole)))


def _filtered(value: Any) -> Any:
    """``value`` (decoded JSON) with each string value passed through :func:`outbound` (keys kept)."""
    if isinstance(value, str):
        return outbound(value)
    if isinstance(value, list):
        return [_filtered(v) for v in value]
    if isinstance(value, dict):
        return {k: _filtered(v) for k, v in value.items()}
    return value
