"""Benchmark: outbound() (strip private + redact) throughput on prose, code and adversarial text.

Run: python bench/privacy_redact.py
Prints the median time per call and MB/s for each input; writes bench/out/privacy_redact.json.
"""

from __future__ import annotations

import json
import random
import statistics
import string
import sys
import time
from pathlib import Path

from tapestryd.privacy import outbound

ROOT = Path(__file__).resolve().parent


def _inputs() -> dict[str, str]:
    rng = random.Random(1)
    words = ["the", "token", "password", "key", "model", "export", "function", "return", "commit", "value"]
    prose = " ".join(rng.choice(words) for _ in range(2000))
    code = "\n".join(f"api_key = os.environ['K{i}']\nexport VAR_{i}=value{i}\nurl = 'https://x.io/?page={i}'"
                     for i in range(300))
    b64 = "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(100_000))
    return {
        "prose_10kb": prose[:10_000],
        "code_25kb": code,
        "base64_100kb": b64,
        "equals_100kb": "a=" * 50_000,
        "colons_100kb": "token: " * 14_000,
        "dashes_100kb": "-----BEGIN RSA PRIVATE KEY-----" + "-" * 100_000,
        "sk_runs_100kb": "sk-proj-" * 12_500,
    }


def _median(text: str, repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        outbound(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    results = {}
    for name, text in _inputs().items():
        seconds = _median(text)
        results[name] = {"bytes": len(text), "median_ms": round(seconds * 1000, 3),
                         "mb_per_s": round(len(text) / seconds / 1e6, 2)}
        print(f"{name:<16} {len(text):>8} B  median {seconds * 1000:8.2f} ms  {len(text) / seconds / 1e6:7.2f} MB/s")
    out = ROOT / "out"
    out.mkdir(exist_ok=True)
    (out / "privacy_redact.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
