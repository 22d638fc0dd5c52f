"""SIGKILL at random moments while sessions grow: nothing lost, nothing stored twice."""

from __future__ import annotations

import random
import signal
import sqlite3
import threading
import time
from pathlib import Path

from daemon_helpers import Daemon, session_line, wait_for
from tapestryd.paths import paths_for

SESSIONS = 3
LINES_PER_SESSION = 120
KILLS = 6


def write_sessions(folder: Path, stop_after: float, seed: int) -> list[str]:
    """Append lines to several session files for about ``stop_after`` s, some in two halves.

    Returns every message text written, in order of writing.
    """
    rng = random.Random(seed)
    written: list[str] = []
    pace = stop_after / (SESSIONS * LINES_PER_SESSION)
    handles = [(folder / f"crash-{n}.jsonl").open("ab", buffering=0) for n in range(SESSIONS)]
    try:
        for i in range(LINES_PER_SESSION):
            for n, fh in enumerate(handles):
                text = f"session {n} line {i} token{n}x{i}"
                line = session_line(f"crash-{n}", f"u-{n}-{i}", text, role="user" if i % 2 else "assistant")
                if rng.random() < 0.3:  # half a line now, the rest a moment later
                    cut = rng.randrange(1, len(line) - 1)
                    fh.write(line[:cut])
                    time.sleep(pace)
                    fh.write(line[cut:])
                else:
                    fh.write(line)
                written.append(text)
                time.sleep(pace * rng.random())
    finally:
        for fh in handles:
            fh.close()
    return written


def test_sigkill_at_random_moments_loses_and_repeats_nothing(daemon: Daemon, projects: Path) -> None:
    """Kill -9 the daemon at least five times while a writer appends (half lines too), restart
    each time: the stored messages are exactly the lines written, each once."""
    folder = projects / "-home-me-crash"
    folder.mkdir()
    rng = random.Random(20260304)
    written: list[str] = []
    writer = threading.Thread(target=lambda: written.extend(write_sessions(folder, 5.0, seed=7)))
    daemon.start()
    writer.start()
    for _ in range(KILLS):
        time.sleep(rng.uniform(0.1, 0.6))
        daemon.stop(signal.SIGKILL)
        daemon.start()
    writer.join()
    wait_for(lambda: len(daemon.messages()) >= len(written))
    stored = [text for _, _, text in daemon.messages()]
    assert len(written) == SESSIONS * LINES_PER_SESSION
    assert sorted(stored) == sorted(written)
    assert len(set(stored)) == len(stored) == daemon.event_count()
    offsets = dict(_offsets(daemon))
    for n in range(SESSIONS):
        path = folder / f"crash-{n}.jsonl"
        assert offsets[str(path)] == path.stat().st_size
    assert "Traceback" not in daemon.log.read_text()


def _offsets(daemon: Daemon) -> list[tuple[str, int]]:
    conn = sqlite3.connect(f"file:{paths_for(daemon.settings).events_db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT path, offset FROM source_offsets").fetchall()
    finally:
        conn.close()
