"""CPU cost of typed results: reading and writing a large answer, against ``json.dumps`` of it.

An operation builds its typed result from the query layer's answer (``from_json``) and the
daemon writes it back (``to_json``) before the socket's ``json.dumps``. This measures both on
``show`` answers of a conversation of N messages (and a search answer of 100 hits), the best
CPU time (``time.process_time``) of several runs, beside ``json.dumps`` of the same answer.

Usage: ``python bench/result_codec_bench.py [--messages 10000] [--runs 9]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tapestryd.operations.results import SearchResult, ShowResult  # noqa: E402


def show_answer(messages: int) -> dict[str, Any]:
    """A ``show`` answer with ``messages`` messages of about 300 characters."""
    rows = [{"id": i, "message_key": f"k{i}", "role": "user" if i % 2 else "assistant",
             "ts": "2026-03-04T10:00:00.000000Z", "local_time": "2026-03-04T11:00:00+01:00",
             "text": "the lantern is in the shed " * 11, "model": "", "sidechain": False} for i in range(messages)]
    return {"key": "claude-code:s1", "agent": "claude-code", "source": "/p/s1.jsonl:0", "title": "lantern",
            "first_ts": rows[0]["ts"], "last_ts": rows[-1]["ts"], "message_count": messages, "session": "s1",
            "cwd": "/home/me/proj", "git_branch": "", "messages": rows}


def search_answer(hits: int) -> dict[str, Any]:
    """A ``search`` answer with ``hits`` message hits."""
    rows = [{"kind": "message", "id": i, "conversation": "claude-code:s1", "message_key": f"k{i}",
             "title": "lantern", "agent": "claude-code", "role": "user", "ts": "2026-03-04T10:00:00.000000Z",
             "local_time": "2026-03-04T11:00:00+01:00", "snippet": "the [lantern] is in the shed", "score": -1.5,
             "key": "", "level": "message", "origin": "vm", "message_uuid": f"k{i}", "conversation_uuid": "s1",
             "extra": {"quoted_by": ["L1"]}} for i in range(hits)]
    return {"query": "lantern", "terms": "lantern", "time": None, "sort": "relevance", "level": "all",
            "regex": False, "outside": 0, "hits": rows}


def measure(name: str, result_type: Any, answer: dict[str, Any], runs: int) -> None:
    """Print the best CPU milliseconds of from_json, to_json and json.dumps for ``answer``."""
    best = [float("inf")] * 3
    for _ in range(runs):
        t0 = time.process_time()
        typed = result_type.from_json(answer)
        t1 = time.process_time()
        written = typed.to_json()
        t2 = time.process_time()
        json.dumps(written)
        t3 = time.process_time()
        best = [min(b, x) for b, x in zip(best, (t1 - t0, t2 - t1, t3 - t2))]
    assert json.dumps(written) == json.dumps(answer), "the typed result changed the JSON"
    print(f"{name:<28} from_json {1000 * best[0]:7.1f} ms   to_json {1000 * best[1]:7.1f} ms   "
          f"json.dumps {1000 * best[2]:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    measure(f"show, {args.messages} messages", ShowResult, show_answer(args.messages), args.runs)
    measure("search, 100 hits", SearchResult, search_answer(100), args.runs)


if __name__ == "__main__":
    main()
