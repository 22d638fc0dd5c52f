"""Evaluation: evidence recall of search, similar and hybrid on LoCoMo-dev, against plain BM25.

Run: python bench/eval_retrieval.py [--data ../shared/evals/locomo-dev] [--summaries] [--systems search,bm25]
     [--embeddings auto|PATH]

The conversations are imported through the normal ingest path
(:func:`tapestryd.sources.ingest.ingest_paths`, read in place, never copied) into a scratch
home (UTC, since LoCoMo's times are written as UTC). Each question is asked once of each
system, with relative time read against its ``asked_at``:

* ``bm25``: the baseline, plain Okapi BM25 over message texts, computed here, set up as
  bm25s's quick start does (k1 1.5, b 0.75, Lucene idf; lower-cased words of two or more
  characters, English stop words removed, no stemming), one pooled index;
* ``search``: ``tapestryctl search`` (FTS5 BM25, every word then any word, time phrases); with
  ``--embeddings`` (``auto``: the packaged all-MiniLM-L6-v2, or a model folder) the home encodes
  every message at import (:mod:`tapestryd.projections.vectors`) and search fuses the dense
  ranking in, as a home with ``[search] embeddings = "auto"`` does; without it the scratch home
  has embeddings off (the default);
* ``similar``: ``tapestryctl similar`` (the warm TF-IDF index);
* ``hybrid``: ``tapestryctl search --hybrid`` (both fused by reciprocal rank, with neighbour
  turns; its answer also ranks conversations, fused at session level).

Scoring follows the split's README: message level, the message uuids of the top k against
``evidence_message_uuids``; session level, the distinct conversation uuids in rank order cut
at k, against ``evidence_conversation_uuids`` (for the hybrid, the order of the answer's own
``conversations`` ranking; for the others, the order in which sessions first appear among the
hits); recall@k is the share of a question's evidence found, averaged per category (and, for
categories 1–4, per LoCoMo conversation, so a gain can be seen to hold in each); ``any``
and ``all`` count questions with at least one and with every item found. The verdict asks
whether the hybrid beats BM25 at recall@10 in every category at both levels. With
``--summaries`` the hierarchy is summarized first (extractive provider) and the systems may
return L0 segment summaries, which count at session level.
Prints tables and writes ``bench/out/eval_retrieval.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from tapestryd.config import load_settings
from tapestryd.events.types import parse_utc
from tapestryd.operations.runtime import Runtime
from tapestryd.projections.tfidf import SimilarityIndex
from tapestryd.queries.dense import dense_for
from tapestryd.queries.hybrid import hybrid_search
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search
from tapestryd.queries.similar import similar
from tapestryd.queries.stopwords import STOPWORDS
from tapestryd.sources.ingest import ingest_paths

OUT = Path(__file__).resolve().parent / "out"
DATA = Path(__file__).resolve().parents[2] / "shared" / "evals" / "locomo-dev"
KS = (5, 10, 25)
DEPTH = 200  # results asked of each system, enough to reach 25 distinct sessions
SYSTEMS = ("bm25", "search", "similar", "hybrid")
Ranking = list[tuple[str, str]]  # (message uuid or '', conversation uuid) in rank order
Answer = tuple[Ranking, list[str]]  # the ranking, and its sessions in rank order


class PlainBM25:
    """Okapi BM25 over whole message texts (Robertson and Zaragoza 2009; Lucene's idf)."""

    def __init__(self, docs: list[tuple[str, str, str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.ids = [(mid, conv) for mid, conv, _ in docs]
        self.k1, self.b = k1, b
        self.tfs = [Counter(_words(text)) for _, _, text in docs]
        self.lengths = [sum(tf.values()) for tf in self.tfs]
        self.avg = statistics.fmean(self.lengths) if self.lengths else 0.0
        df = Counter(term for tf in self.tfs for term in tf)
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, tf in enumerate(self.tfs):
            for term in tf:
                self.postings[term].append(i)

    def rank(self, query: str, depth: int) -> Ranking:
        scores: dict[int, float] = defaultdict(float)
        for term in set(_words(query)):
            for i in self.postings.get(term, ()):
                tf, norm = self.tfs[i][term], self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
                scores[i] += self.idf[term] * tf * (self.k1 + 1) / (tf + norm)
        best = sorted(scores, key=lambda i: -scores[i])[:depth]
        return [self.ids[i] for i in best]


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"\b\w\w+\b", text.lower()) if w not in STOPWORDS]


def import_split(data: Path, home: Path, *, summaries: bool, embeddings: str = "off") -> dict[str, Any]:
    """Ingest conversations.json into ``home`` (and summarize the hierarchy when asked); ``embeddings`` is
    the home's ``[search] embeddings`` setting. ``cpu_seconds``: this process's CPU time for the import."""
    (home / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n'
                                        f'[search]\nembeddings = {json.dumps(embeddings)}\n')
    settings = load_settings(home)
    started, cpu = time.monotonic(), time.process_time()
    with Runtime.open(settings) as runtime:
        receipt = ingest_paths(runtime.store, [data / "conversations.json"], settings=settings)
        runtime.projector.catch_up()
    imported = {"seconds": round(time.monotonic() - started, 2), "cpu_seconds": round(time.process_time() - cpu, 2),
                **receipt.to_dict()["totals"]}
    if summaries:
        imported["summaries"] = summarize_all(home)
    return imported


def summarize_all(home: Path) -> dict[str, Any]:
    """Close every day and summarize every node with the offline extractive provider."""
    from tapestryd.operations.dispatch import run_here
    from tapestryd.operations.requests import IterateRequest

    started = time.monotonic()
    result = run_here(load_settings(home), IterateRequest()).to_json()
    return {"seconds": round(time.monotonic() - started, 2), "summarized": result.get("summarized", result)}


def load_questions(data: Path) -> list[dict[str, Any]]:
    """Questions with resolvable evidence (the README's scoring skips the rest)."""
    rows = [json.loads(line) for line in (data / "questions.jsonl").read_text().splitlines() if line.strip()]
    return [q for q in rows if q["evidence_message_uuids"] or q["evidence_conversation_uuids"]]


def message_docs(reader: Reader) -> list[tuple[str, str, str]]:
    rows = reader.conn.execute("SELECT message_key, conversation, text FROM messages ORDER BY id").fetchall()
    return [(mid, _uuid(conv), text) for mid, conv, text in rows]


def _uuid(conversation: str) -> str:
    return conversation.split(":", 1)[1] if ":" in conversation else conversation


def _session_of_node(key: str) -> str:
    """The conversation uuid of an L0 node key (``L0:agent:date:claude-ai:<uuid>``), else ''."""
    return _uuid(key.split(":", 3)[3]) if key.startswith("L0:") else ""


def as_ranking(hits: list[dict[str, Any]]) -> Ranking:
    """Hits as (message uuid, conversation uuid); L0 summaries count for their session only."""
    out: Ranking = []
    for h in hits:
        if h["kind"] == "message":
            out.append((h["message_key"], _uuid(h["conversation"])))
        elif _session_of_node(h["key"]):
            out.append(("", _session_of_node(h["key"])))
    return out


def systems(reader: Reader, baseline: PlainBM25, level: str,
            index: SimilarityIndex | None = None) -> dict[str, Callable[[str, datetime], Answer]]:
    filters = SearchFilters(level=level)
    dense = dense_for(reader)
    return {
        "bm25": lambda q, now: in_order(baseline.rank(q, DEPTH)),
        "search": lambda q, now: in_order(as_ranking(search(reader, q, filters, now=now, limit=DEPTH,
                                                            widen=True, dense=dense)["hits"])),
        "similar": lambda q, now: in_order(as_ranking(similar(reader, q, top=DEPTH, level=level,
                                                              index=index)["hits"])),
        "hybrid": lambda q, now: with_conversations(hybrid_search(reader, q, filters, now=now, limit=DEPTH,
                                                                  pool=DEPTH, widen=True)),
    }


def in_order(ranking: Ranking) -> Answer:
    """The ranking with its sessions in the order they first appear in it."""
    return ranking, list(dict.fromkeys(conv for _, conv in ranking))


def with_conversations(answer: dict[str, Any]) -> Answer:
    """A hybrid answer's hits, with its own conversation ranking as the sessions."""
    return as_ranking(answer["hits"]), [_uuid(row["conversation"]) for row in answer["conversations"]]


def score(answer: Answer, question: dict[str, Any], k: int) -> dict[str, tuple[int, int]]:
    """(found, total) at message and session level for the top ``k``."""
    ranking, sessions = answer
    messages = {m for m, _ in ranking[:k] if m}
    wanted_m, wanted_s = set(question["evidence_message_uuids"]), set(question["evidence_conversation_uuids"])
    return {"message": (len(wanted_m & messages), len(wanted_m)),
            "session": (len(wanted_s & set(sessions[:k])), len(wanted_s))}


def evaluate(reader: Reader, questions: list[dict[str, Any]], baseline: PlainBM25, level: str,
             names: tuple[str, ...] = SYSTEMS, index: SimilarityIndex | None = None) -> dict[str, Any]:
    """Per system of ``names``: per category and k, recall/any/all at message and session level, and timing
    (``index``: the fitted similarity index ``similar`` answers from, as the daemon's)."""
    tally: dict[str, Any] = {s: defaultdict(lambda: defaultdict(list)) for s in names}
    per_conversation: dict[str, Any] = {s: defaultdict(lambda: defaultdict(list)) for s in names}
    seconds: dict[str, list[float]] = {s: [] for s in names}
    runs = {name: run for name, run in systems(reader, baseline, level, index).items() if name in names}
    for question in questions:
        now = parse_utc(question["asked_at"])
        for name, run in runs.items():
            started = time.perf_counter()
            answer = run(question["question"], now)
            seconds[name].append(time.perf_counter() - started)
            for k in KS:
                for unit, (found, total) in score(answer, question, k).items():
                    if total:
                        tally[name][str(question["category"])][(unit, k)].append((found, total))
                        if question["category"] != 5:
                            per_conversation[name][question["sample_id"]][(unit, k)].append((found, total))
    return {name: {"categories": _summarize(tally[name]),
                   "conversations": {conv: _recalls(per_conversation[name][conv])
                                     for conv in sorted(per_conversation[name])},
                   "median_ms": round(statistics.median(seconds[name]) * 1000, 2)} for name in names}


def _summarize(per_category: dict[str, dict[tuple[str, int], list[tuple[int, int]]]]) -> dict[str, Any]:
    groups = {**{c: [c] for c in sorted(per_category)}, "overall_1_4": ["1", "2", "3", "4"],
              "all_1_5": ["1", "2", "3", "4", "5"]}
    out: dict[str, Any] = {}
    for name, cats in groups.items():
        out[name] = _recalls({(unit, k): [p for c in cats for p in per_category.get(c, {}).get((unit, k), [])]
                              for unit in ("message", "session") for k in KS})
    return out


def _recalls(pairs_by_cut: dict[tuple[str, int], list[tuple[int, int]]]) -> dict[str, Any]:
    """``{"message@10": {recall, any, all, n}, …}`` from the (found, total) pairs of each (unit, k)."""
    out: dict[str, Any] = {}
    for (unit, k), pairs in pairs_by_cut.items():
        if pairs:
            out[f"{unit}@{k}"] = {"recall": round(statistics.fmean(f / t for f, t in pairs), 4),
                                  "any": round(statistics.fmean(f > 0 for f, _ in pairs), 4),
                                  "all": round(statistics.fmean(f == t for f, t in pairs), 4), "n": len(pairs)}
    return out


NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop", "5": "adversarial",
         "overall_1_4": "OVERALL (1-4)", "all_1_5": "ALL (1-5)"}


def print_tables(results: dict[str, Any]) -> None:
    names = [s for s in SYSTEMS if s in results]
    for unit in ("message", "session"):
        print(f"\n{unit}-level recall@5 / @10 / @25")
        print(f"{'category':<16}" + "".join(f"{s:>22}" for s in names))
        for cat in NAMES:
            cells = []
            for system in names:
                row = results[system]["categories"].get(cat, {})
                cells.append(" / ".join(f"{row[f'{unit}@{k}']['recall']:.3f}" if f"{unit}@{k}" in row else "  -  "
                                        for k in KS))
            print(f"{NAMES[cat]:<16}" + "".join(f"{c:>22}" for c in cells))
    print("\nper conversation (categories 1-4): message recall@5 / @10 / @25")
    for conv in sorted({c for system in names for c in results[system]["conversations"]}):
        cells = [" / ".join(f"{results[s]['conversations'][conv][f'message@{k}']['recall']:.3f}" for k in KS)
                 for s in names]
        print(f"{conv:<16}" + "".join(f"{c:>22}" for c in cells))
    print("\nmedian ms per question: " + ", ".join(f"{s} {results[s]['median_ms']}" for s in names))


def verdict(results: dict[str, Any]) -> dict[str, Any]:
    """Whether hybrid beats the BM25 baseline at recall@10 in every category, at message and session level
    (empty when either was not run)."""
    out: dict[str, Any] = {}
    if "hybrid" not in results or "bm25" not in results:
        return {}
    for unit in ("message@10", "session@10"):
        out[unit] = {}
        for cat in ("1", "2", "3", "4", "5"):
            hybrid = results["hybrid"]["categories"][cat][unit]["recall"]
            base = results["bm25"]["categories"][cat][unit]["recall"]
            out[unit][NAMES[cat]] = {"hybrid": hybrid, "bm25": base, "beats": hybrid > base}
    return {**out, "all_beat": all(r["beats"] for unit in out.values() for r in unit.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--summaries", action="store_true", help="summarize the hierarchy first (extractive)")
    parser.add_argument("--embeddings", default="off",
                        help="the scratch home's [search] embeddings: off (default), auto (the packaged model) or a"
                             " model folder; search then fuses the dense ranking")
    parser.add_argument("--systems", default=",".join(SYSTEMS),
                        help=f"comma-separated systems to run, of {', '.join(SYSTEMS)} (default: all; the verdict"
                             " needs bm25 and hybrid; 'search' alone takes about a minute)")
    args = parser.parse_args(argv)
    names = tuple(s for s in SYSTEMS if s in args.systems.split(","))
    if not names or set(args.systems.split(",")) - set(SYSTEMS):
        print(f"--systems: expected names of {', '.join(SYSTEMS)}, got {args.systems!r}", file=sys.stderr)
        return 2
    if not (args.data / "conversations.json").is_file():
        print(f"no eval data at {args.data}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="tapestry-eval-") as scratch:
        imported, results = _run(Path(scratch), args, names)
    print(f"imported: {imported}")
    print_tables(results)
    outcome = verdict(results)
    for unit in outcome and ("message@10", "session@10"):
        print(f"\nhybrid vs bm25 at {unit.replace('@', ' recall@')}: " + ", ".join(
            f"{c} {r['hybrid']:.3f} vs {r['bm25']:.3f}{'' if r['beats'] else ' (NOT beaten)'}"
            for c, r in outcome[unit].items()))
    if outcome:
        print(f"→ {'beats in every category at both levels' if outcome['all_beat'] else 'does NOT beat everywhere'}")
    OUT.mkdir(exist_ok=True)
    name = "eval_retrieval_summaries.json" if args.summaries else "eval_retrieval.json"
    (OUT / name).write_text(json.dumps({"imported": imported, "questions": imported["questions"],
                                        "results": results, "verdict": outcome}, indent=2))
    return 0


def _run(home: Path, args: argparse.Namespace, names: tuple[str, ...]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Import the split into the scratch ``home`` and ask every question of ``names``: the import's figures and
    the recall tables (:func:`evaluate`)."""
    imported = import_split(args.data, home, summaries=args.summaries, embeddings=args.embeddings)
    questions = load_questions(args.data)
    with Reader.open(load_settings(home)) as reader:
        index = SimilarityIndex(reader.paths.projections_db)
        index.build()
        results = evaluate(reader, questions, PlainBM25(message_docs(reader)), "all" if args.summaries else "messages",
                           names, index)
        index.stop()
    return {**imported, "questions": len(questions)}, results


if __name__ == "__main__":
    sys.exit(main())
