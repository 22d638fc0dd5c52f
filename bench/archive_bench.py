"""The raw archive: compression against whole-file zlib, and the cost of one live append.

Generates Claude Code sessions (``gen_claude_code_projects.py``), then replays each one as a
live session: its lines are appended a few at a time to a copy and the archive captures the
copy after each append, as the tailer does. Prints (and writes to ``bench/out/archive.json``)
the raw bytes, the archive's stored bytes, whole-file ``zlib.compress(level 6)`` of the same
files, capture time per append (median, p95) and extract time.

Usage: ``python bench/archive_bench.py [--sessions 60] [--lines-per-append 3]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tapestryd.sources.archive import Archive, ArchiveStore  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"


def replay(archive: Archive, source: Path, copy: Path, per: int) -> list[float]:
    """Append ``source``'s lines to ``copy`` ``per`` at a time, capturing after each; seconds per capture."""
    lines = source.read_bytes().splitlines(keepends=True)
    took = []
    for start in range(0, len(lines), per):
        with copy.open("ab") as fh:
            fh.write(b"".join(lines[start:start + per]))
        with copy.open("rb") as fh:
            began = time.perf_counter()
            archive.capture("claude-code", str(copy), fh)
            took.append(time.perf_counter() - began)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--lines-per-append", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "projects"
        subprocess.run([sys.executable, str(Path(__file__).with_name("gen_claude_code_projects.py")),
                        "--sessions", str(args.sessions), "--out", str(folder)], check=True, capture_output=True)
        sources = sorted(folder.rglob("*.jsonl"))
        archive = Archive(Path(tmp) / "archive" / "archive.db")
        copies = Path(tmp) / "live"
        copies.mkdir()
        took: list[float] = []
        for n, source in enumerate(sources):
            took += replay(archive, source, copies / f"{n}.jsonl", args.lines_per_append)
        archive.close()
        raw = sum(p.stat().st_size for p in sources)
        whole = sum(len(zlib.compress(p.read_bytes(), 6)) for p in sources)
        with ArchiveStore(Path(tmp) / "archive" / "archive.db", readonly=True) as store:
            totals = store.totals()
            began = time.perf_counter()
            extracted = sum(len(b"".join(store.read(f.id))) for f in store.listing())
            extract_s = time.perf_counter() - began
    took.sort()
    result = {"files": len(sources), "raw_bytes": raw, "stored_bytes": totals["stored_bytes"],
              "whole_file_zlib_bytes": whole, "stored_over_whole": round(int(totals["stored_bytes"]) / whole, 3),
              "captures": len(took), "capture_ms_median": round(statistics.median(took) * 1000, 2),
              "capture_ms_p95": round(took[int(len(took) * 0.95)] * 1000, 2),
              "extract_mb_s": round(extracted / extract_s / 1e6, 1), "extract_equal_bytes": extracted == raw}
    OUT.mkdir(exist_ok=True)
    (OUT / "archive.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
