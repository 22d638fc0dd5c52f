"""An import through the running daemon long enough for projections to follow it in a child process.

The ingest operation runs ``Projector.alongside``: after half a second a spawned child
applies what the import appends. Through the real daemon (one writer), the receipt, the
projections and search must come out whole, with nothing left to catch up.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from daemon_helpers import Daemon

CONVERSATIONS, MESSAGES = 800, 25


def chatgpt_export(path: Path) -> int:
    """A ChatGPT conversations.json of CONVERSATIONS x MESSAGES messages (~8 MB, ~1 s to parse);
    returns the message count."""
    filler = "the quick brown fox jumps over the lazy dog " * 4
    conversations = []
    for c in range(CONVERSATIONS):
        mapping, parent = {}, None
        for m in range(MESSAGES):
            node = f"c{c}m{m}"
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
                "id": node, "author": {"role": "user" if m % 2 == 0 else "assistant"},
                "create_time": 1_700_000_000 + c * 3600 + m * 60,
                "content": {"content_type": "text", "parts": [f"word{c}x{m} {filler}"]}}}
            if parent:
                mapping[parent]["children"].append(node)
            parent = node
        conversations.append({"id": f"conv{c}", "title": f"Talk {c}", "create_time": 1_700_000_000 + c * 3600,
                              "current_node": parent, "mapping": mapping})
    path.write_text(json.dumps(conversations))
    return CONVERSATIONS * MESSAGES


def test_long_import_through_the_daemon_is_projected_whole(daemon: Daemon, tmp_path: Path) -> None:
    export = tmp_path / "conversations.json"
    expected = chatgpt_export(export)
    daemon.start()
    started = time.monotonic()
    receipt = daemon.call("ingest", {"paths": [str(export)]}, timeout=180)
    took = time.monotonic() - started
    assert receipt["totals"]["messages_new"] == expected and receipt["totals"]["errors"] == 0
    assert took > 0.5, "the import was too short for the projector child to start"
    caught = daemon.call("catch_up")
    assert caught["applied"] == 0 and not any(caught["lag"].values())
    assert daemon.call("stats")["messages"] == expected
    last = f"word{CONVERSATIONS - 1}x{MESSAGES - 1}"
    hits = daemon.call("search", {"query": last})["hits"]  # the one message holding the word, then turns next to it
    lent = [bool(h.get("extra", {}).get("next_to_match")) for h in hits]
    assert lent.count(False) == 1 and not lent[0]
    assert hits[0]["message_key"] == f"c{CONVERSATIONS - 1}m{MESSAGES - 1}"
    again = daemon.call("ingest", {"paths": [str(export)]}, timeout=180)
    assert again["totals"]["messages_new"] == 0 and again["totals"]["messages_known"] == expected
    assert "follower" not in daemon.log.read_text()
