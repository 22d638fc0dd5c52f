"""What is forgotten (and compacted) on one machine disappears from the hub and the other machines."""

from __future__ import annotations

from pathlib import Path

from sync_helpers import capture, log_rows, make_home, search, sync_here, write_session

from tapestryd.operations.dispatch import run_here
from tapestryd.operations.requests import CompactRequest, ForgetRequest
from tapestryd.paths import paths_for
from tapestryd.sync.crypto import Sealed, Sealer, load_key
from tapestryd.sync.hub import Hub


def _holds(settings: object, word: str) -> bool:
    """Whether any payload of the home's log, or the bytes of its file, hold ``word``."""
    rows = log_rows(settings)  # type: ignore[arg-type]
    raw = paths_for(settings).events_db.read_bytes()  # type: ignore[arg-type]
    return any(word in row[7] for row in rows) or word.encode() in raw


def test_forget_then_compact_propagates_to_the_hub_and_every_machine(tmp_path: Path, hub_url: str) -> None:
    laptop, key = make_home(tmp_path, "laptop", hub_url)
    desktop, _ = make_home(tmp_path, "desktop", hub_url, key)
    capture(laptop, write_session(tmp_path / "a", "secret-talk", ["the platypus plan", "keep platypus quiet"]),
            write_session(tmp_path / "a", "open-talk", ["the heron plan", "heron notes"]))
    sync_here(laptop)
    sync_here(desktop)
    assert search(desktop, "platypus") and _holds(desktop, "platypus")

    run_here(laptop, ForgetRequest(conversation="claude-code:secret-talk"))
    sync_here(laptop)
    sync_here(desktop)
    assert not search(desktop, "platypus") and search(desktop, "heron")  # the Forgotten event travelled

    compacted = run_here(laptop, CompactRequest()).to_json()
    assert compacted["rewritten"]["MessageRecorded"] == 2
    report = sync_here(laptop)
    assert report["forgotten_pushed"] >= 3  # two messages and the conversation's title
    sealer = Sealer(load_key(paths_for(laptop).sync_key))
    with Hub(hub_url) as hub:
        rows = hub.rows_after(0, 1000)[1]
        opened = [sealer.open(r.event_id, r.origin, r.type, r.schema, r.occurred_at,
                              Sealed(r.key_id, bytes(r.nonce), bytes(r.ciphertext))) for r in rows]
    assert not any("platypus" in o.payload for o in opened) and any("heron" in o.payload for o in opened)

    report = sync_here(desktop)
    assert report["forgotten"]["new"] >= 3
    assert not _holds(desktop, "platypus") and not _holds(laptop, "platypus")
    assert search(desktop, "heron") and not search(desktop, "platypus")
    assert sync_here(desktop)["forgotten"]["new"] == 0  # once

    server, _ = make_home(tmp_path, "server", hub_url, key)  # a machine joining later never sees it
    sync_here(server)
    assert not _holds(server, "platypus") and search(server, "heron")
    facts = [{row[:2] + row[7:8] for row in log_rows(s)} for s in (laptop, desktop, server)]
    assert facts[0] == facts[1] == facts[2]
