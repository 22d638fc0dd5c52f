"""Evaluation: compression, fact retention and Tapestry Score on real conversations (LoCoMo dev).

Run: python bench/eval_quality.py [--provider extractive]
     python bench/eval_quality.py --provider openai --base-url URL --model NAME
                                      [--api-key-env TAPESTRY_API_KEY]

What it does, through the same code paths a user's commands take:

1. a fresh home in a temporary folder (timezone UTC: the converted LoCoMo timestamps are UTC);
2. ``conversations.json`` of ``../shared/evals/locomo-dev`` imported in place (never copied:
   its licence is CC BY-NC 4.0) by ``tapestryd.sources.ingest.ingest_paths``, the function
   behind ``tapestryctl ingest``;
3. every day up to yesterday closed (``close_days``) and the whole tree summarized with
   telescoping context by the summarizer process manager (``summarize_dirty``), as
   ``tapestryctl iterate`` does, with the chosen provider;
4. ``run_eval`` (``tapestryctl eval --facts facts.jsonl``) with the 677 annotated facts:
   each fact's node is the L0 whose conversation is the LoCoMo session it belongs to;
5. one late message (made up here) for the first conversation-day, the tree rebuilt, and
   ``tapestryctl drift``: the calls the rebuild cost and how far each rebuilt node moved.

Besides the evaluation it prints three references: retention at other thresholds (how
much the figure leans on 0.30); the *ceiling*, the retention when the "summary" is the raw
source itself (facts the method can find at all); and an *oracle* extractive L1 (and L0):
for each day (conversation-day), raw sentences picked greedily by annotated facts newly
covered per character, within the length of its actual summary. It reads the answer key:
an estimate of the most that choosing whole sentences can score at that length (greedy,
so an estimate, not a proof of the bound). The issue's target (L1, extractive: score
above 10.3 at 20:1 or more) is checked against the measured figures, never assumed.
``--examples N`` prints N L1 summaries (evenly over the days) to read beside the figures;
they go to the terminal only, never to the JSON (the data's licence: no copies).
Writes ``bench/out/eval_quality_<provider>[_embedding].json``; the embedding judge keeps its
vectors in ``bench/out/embeddings.sqlite``, so a second run embeds only the new summaries.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from tapestryd.clock import SystemClock
from tapestryd.config import load_settings
from tapestryd.events.types import (
    MessageRecorded,
    NewEvent,
    event_id,
    format_utc,
    parse_utc,
)
from tapestryd.operations.dayclose import close_days
from tapestryd.operations.quality import node_summarize
from tapestryd.operations.runtime import Runtime
from tapestryd.operations.summarizer import Target, summarize_dirty
from tapestryd.quality.drift import measure_drift, read_versions
from tapestryd.quality.evaluate import Homed, evaluate_levels, fit_corpus, home_facts
from tapestryd.quality.facts import load_facts
from tapestryd.quality.metrics import contained
from tapestryd.quality.report import EvalOptions, run_eval
from tapestryd.quality.similarity import Similarity, make_similarity
from tapestryd.quality.text import split_sentences
from tapestryd.quality.tree import Tree, load_tree
from tapestryd.sources.ingest import ingest_paths
from tapestryd.summarize import Budget, make_summarizer

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out"
EMBEDDINGS = OUT / "embeddings.sqlite"  # the embedding judge's vectors, kept between runs (a cache)
DATA = ROOT.parent / "shared" / "evals" / "locomo-dev"
TARGET_SCORE, TARGET_COMPRESSION = 10.3, 20.0
THRESHOLDS = (0.2, 0.3, 0.4, 0.5)
LATE_TEXT = "Quick update: I moved to Lisbon in March and I now work at the harbour museum on Rua Nova."


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder with conversations.json and facts.jsonl")
    ap.add_argument("--provider", default="extractive", help="extractive, openai or a preset name (ollama, ...)")
    ap.add_argument("--base-url", default="", help="OpenAI-compatible base URL (provider openai)")
    ap.add_argument("--model", default="", help="model name (provider openai)")
    ap.add_argument("--api-key-env", default="TAPESTRY_API_KEY", help="environment variable holding the API key")
    ap.add_argument("--method", default="tfidf", help="similarity: tfidf or embedding")
    ap.add_argument("--yield-sample", type=int, default=5, help="nodes per level for Recall Yield (0: skip)")
    ap.add_argument("--examples", type=int, default=3, help="L1 summaries to print, evenly over the days (0: none)")
    ap.add_argument("--home", type=Path, default=None, help="build in this folder and keep it (default: a temp dir)")
    return ap.parse_args()


def write_config(home: Path, args: argparse.Namespace) -> None:
    """A tapestry.toml for the run: UTC, nothing watched outside the home, the chosen provider."""
    lines = ['[general]', 'timezone = "UTC"', '[sources]', f'watched_roots = ["{home / "claude-projects"}"]',
             '[summarize]', f'provider = "{args.provider}"']
    lines += [f'base_url = "{args.base_url}"'] if args.base_url else []
    lines += [f'model = "{args.model}"'] if args.model else []
    (home / "tapestry.toml").write_text("\n".join(lines) + "\n")
    if args.api_key_env != "TAPESTRY_API_KEY" and os.environ.get(args.api_key_env):
        os.environ["TAPESTRY_API_KEY"] = os.environ[args.api_key_env]


def build(home: Path, data: Path) -> dict[str, Any]:
    """Import, close every day, summarize the tree with context; the counts and seconds of each step."""
    settings = load_settings(home)
    with Runtime.open(settings) as rt:
        started = time.perf_counter()
        receipt = ingest_paths(rt.store, [data / "conversations.json"], settings=settings)
        rt.projector.catch_up()
        imported = time.perf_counter()
        closed = close_days(rt, SystemClock())
        summarizer = make_summarizer(settings.summarize)
        try:
            report = summarize_dirty(Target.of(rt), summarizer, mode="context")
        finally:
            summarizer.close()
    totals = receipt.to_dict().get("totals", {})
    return {"messages": totals.get("messages_new"), "days_closed": closed, "import_seconds": imported - started,
            "summarize_seconds": time.perf_counter() - imported, "run": report.to_dict()}


def evaluate(home: Path, data: Path, args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """The ``tapestryctl eval`` figures, with Recall Yield through the same provider, and example L1s."""
    settings = load_settings(home)
    options = EvalOptions(facts_file=data / "facts.jsonl", method=args.method, sample=args.yield_sample,
                          embedding_cache=EMBEDDINGS)
    with Runtime.open(settings) as rt:
        summarizer = make_summarizer(settings.summarize)
        try:
            fn = node_summarize(rt.projector.conn, settings.tz, summarizer, Budget())
            result = run_eval(rt.projector.conn, options, fn)
        finally:
            summarizer.close()
        result["provider"] = {"name": summarizer.name, "model": summarizer.model}
        tree = load_tree(rt.projector.conn)
        result["references"] = references(tree, data, args.method)
    return result, examples(tree, args.examples)


def examples(tree: Tree, count: int) -> list[str]:
    """``count`` L1 summaries, evenly spaced over the days, with their lengths (for the terminal only)."""
    days = [n for n in tree.at_level(1) if n.summary]
    picks = sorted({days[i * len(days) // count].key for i in range(count)}) if days and count > 0 else []
    leaves = tree.leaves_by_ancestor(1)
    sources = {key: sum(len(t) for leaf in leaves.get(key, []) for t in tree.messages[leaf]) for key in picks}
    return [f"{key} ({sources[key]} -> {len(tree.nodes[key].summary)} characters):\n  {tree.nodes[key].summary}"
            for key in picks]


def references(tree: Tree, data: Path, method: str) -> dict[str, Any]:
    """Retention per level at other thresholds, the ceiling (raw source as the summary) and the oracle."""
    homed, _ = home_facts(tree, load_facts(data / "facts.jsonl").facts)
    similarity = make_similarity(method, cache_file=EMBEDDINGS)
    default, sweep = similarity.threshold, {}
    for threshold in THRESHOLDS:
        similarity.threshold = threshold
        sweep[f"{threshold:.2f}"] = {f"L{r.level}": r.to_dict()["retention"]
                                     for r in evaluate_levels(tree, homed, similarity)}
    similarity.threshold = default
    raw = Tree({k: replace(n, summary="\n".join(tree.messages[k])) for k, n in tree.nodes.items() if n.level == 0},
               tree.messages)
    ceiling = evaluate_levels(raw, homed, similarity, levels=(0,))[0].to_dict()
    return {"retention_by_threshold": sweep, "ceiling_retention_L0": ceiling["retention"],
            "oracle_L0": oracle(tree, homed, similarity, 0), "oracle_L1": oracle(tree, homed, similarity, 1)}


def oracle(tree: Tree, homed: list[Homed], similarity: Similarity, level: int = 1) -> dict[str, Any]:
    """Greedy max-coverage sentence extraction with the facts known, per node of ``level`` (0 or 1), at its length."""
    similarity.fit(fit_corpus(tree, homed, (level,)))
    covered = total = chars = source = 0
    for node, leaves in tree.leaves_by_ancestor(level).items():
        units = [s for leaf in leaves for text in tree.messages[leaf] for s in split_sentences(text)]
        facts = [h.text for h in homed if any(tree.ancestor(home, level) == node for home in h.homes)]
        if not tree.nodes[node].summary or not units or not facts:
            continue
        hits = contained(similarity.matrix(facts, units), similarity.threshold)
        got, used = _cover(hits, [len(u) + 1 for u in units], len(tree.nodes[node].summary))
        covered, total, chars = covered + got, total + len(facts), chars + used
        source += sum(len(t) for leaf in leaves for t in tree.messages[leaf])
    retention, compression = covered / total, source / chars
    return {"retention": round(retention, 4), "compression_chars": round(compression, 2),
            "tapestry_score": round(retention * compression, 2)}


def _cover(hits: np.ndarray, lengths: list[int], budget: int) -> tuple[int, int]:
    """Facts covered and characters used by greedy max coverage per character within ``budget``."""
    done, used = np.zeros(hits.shape[0], dtype=bool), 0
    while True:
        gains = [(int(hits[~done, j].sum()) / n, -j) for j, n in enumerate(lengths) if used + n <= budget]
        best = max(gains, default=(0.0, 0))
        if best[0] <= 0:
            return int(done.sum()), used
        done |= hits[:, -best[1]]
        used += lengths[-best[1]]


def late_message_drift(home: Path, method: str) -> dict[str, Any]:
    """One late message for the first conversation-day, the tree rebuilt, then ``tapestryctl drift``.

    The message is made up here (not eval data). Reports the provider calls the rebuild cost
    and the drift of every node that got a second summary.
    """
    settings = load_settings(home)
    with Runtime.open(settings) as rt:
        key, conversation, agent, last = rt.projector.conn.execute(
            "SELECT key, conversation, agent, last_ts FROM nodes WHERE level = 0 ORDER BY key LIMIT 1").fetchone()
        at = parse_utc(last) + timedelta(minutes=1)
        late = MessageRecorded(conversation, "bench-late-1", "user", LATE_TEXT, format_utc(at))
        rt.store.append([NewEvent(event_id("bench-late", conversation), late, at, agent, "bench:late")])
        rt.projector.catch_up()
        summarizer = make_summarizer(settings.summarize)
        try:
            report = summarize_dirty(Target.of(rt), summarizer, mode="context")
        finally:
            summarizer.close()
        nodes = measure_drift(read_versions(rt.paths.events_db), make_similarity(method, cache_file=EMBEDDINGS))
    return {"segment": key, "calls": report.usage.calls, "nodes": [n.to_dict() for n in nodes]}


def print_report(result: dict[str, Any], built: dict[str, Any]) -> None:
    from tapestryd.cli.quality import render_eval
    from tapestryd.operations.results import EvalResult

    run = built["run"]
    print(f"imported {built['messages']} messages in {built['import_seconds']:.1f} s; summarized {run['summarized']} "
          f"nodes in {built['summarize_seconds']:.1f} s ({run['usage']['calls']} provider calls, "
          f"{len(run['failed'])} failed, {run['remaining']} left)\n")
    print(render_eval(EvalResult.from_json(result)))
    refs = result["references"]
    print(f"\nceiling (raw source as summary), L0 retention: {refs['ceiling_retention_L0']:.1%}")
    for level, what in ((0, "conversation-day's L0"), (1, "day's L1")):
        o = refs[f"oracle_L{level}"]
        print(f"oracle extraction at each {what} length (knows the facts): retention {o['retention']:.1%} at "
              f"{o['compression_chars']:.1f}:1, score {o['tapestry_score']:.2f}")
    for threshold, levels in refs["retention_by_threshold"].items():
        cells = "  ".join(f"{lv} {'-' if v is None else f'{v:.1%}'}" for lv, v in levels.items())
        print(f"retention at threshold {threshold}: {cells}")
    late = result["late_message"]
    print(f"\none late message in {late['segment']}: {late['calls']} provider calls to rebuild; drift per node:")
    for n in late["nodes"]:
        print(f"  {n['severity']:<9}{n['max_drift']:>5.2f}  {n['node']}")
    print(target_line(result))


def target_line(result: dict[str, Any]) -> str:
    """Whether L1 meets the issue's target (score above 10.3 at 20:1 or more), from the figures."""
    level1 = next((r for r in result["levels"] if r["level"] == 1), None)
    if level1 is None or level1["tapestry_score"] is None:
        return "\ntarget: L1 has no figures"
    met = level1["tapestry_score"] > TARGET_SCORE and level1["compression_chars"] >= TARGET_COMPRESSION
    return (f"\ntarget (L1: score > {TARGET_SCORE} at >= {TARGET_COMPRESSION:.0f}:1): "
            f"score {level1['tapestry_score']:.2f} at {level1['compression_chars']:.1f}:1 -> "
            f"{'MET' if met else 'NOT MET'}")


def main() -> int:
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    args = parse_args()
    if not (args.data / "conversations.json").is_file():
        print(f"no eval data at {args.data}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="tapestry-eval-") as tmp:
        home = args.home or Path(tmp)
        home.mkdir(parents=True, exist_ok=True)
        write_config(home, args)
        os.environ["TAPESTRY_HOME"] = str(home)
        built = build(home, args.data)
        result, shown = evaluate(home, args.data, args)
        result["late_message"] = late_message_drift(home, args.method)
    result["build"] = built
    print_report(result, built)
    print("".join(f"\nexample L1 {text}" for text in shown))
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"eval_quality_{args.provider}{'' if args.method == 'tfidf' else '_' + args.method}.json"
    out.write_text(json.dumps(result, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
