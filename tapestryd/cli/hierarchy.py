"""Hierarchy commands: iterate, catchup, generate-l0 … generate-yearly, tree, repair.

``iterate`` and ``catchup`` call the ``iterate`` operation in slices of a few seconds and
draw a progress bar with an ETA between them, so they work the same through the daemon
or in this process, and Ctrl-C (or a crash) loses at most the slice in hand: every
summary already made is in the event log and is never asked for again.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit, settings, warn
from tapestryd.errors import DaemonError
from tapestryd.operations import requests as rq

if TYPE_CHECKING:
    from tapestryd.operations.result_parts import TreeNode
    from tapestryd.operations.results import GenerateResult, IterateResult, RepairResult, TreeResult

__all__: list[str] = []

_SLICE_SECONDS = 3.0
_BUSY_RETRIES = 60
_MARKS = {"clean": " ", "dirty": "*", "context_stale": "~"}


@app.command()
def iterate(ctx: typer.Context,
            end_date: Optional[str] = typer.Argument(
                None, help="Last local day to include (YYYY-MM-DD; default: every closed day)."),
            agent: Optional[str] = typer.Option(None, "--agent", help="Only this agent's nodes."),
            fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Summarize everything closed up to END_DATE, bottom-up with telescoping context; resumable."""
    _finish(ctx, _slices(ctx, {"until": end_date, "agent": agent, "mode": "context"}, "summarizing"), fmt)


@app.command()
def catchup(ctx: typer.Context,
            end_date: Optional[str] = typer.Argument(None, help="Last local day to include (YYYY-MM-DD)."),
            agent: Optional[str] = typer.Option(None, "--agent", help="Only this agent's nodes."),
            fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Summarize a backlog fast, without telescoping context (nodes are marked mode=catchup)."""
    _finish(ctx, _slices(ctx, {"until": end_date, "agent": agent, "mode": "catchup"}, "catching up"), fmt)


def _finish(ctx: typer.Context, total: dict[str, Any], fmt: Format) -> None:
    """Print the run; when it gave up on failures, one line naming the provider and the last
    reason on stderr, and exit code 1."""
    emit(total, fmt, _render_run)
    if total["stopped"] == "errors":
        conf = settings(ctx).summarize
        provider = f"{conf.provider} (preset {conf.preset})" if conf.preset else conf.provider
        warn(f"error: gave up after {total['failed_in_a_row']} failed attempts in a row; provider {provider}: "
             f"{total.get('last_error', 'see the failures above')}")
        raise typer.Exit(1)


def _slices(ctx: typer.Context, args: dict[str, Any], label: str) -> dict[str, Any]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    total: dict[str, Any] = {"summarized": 0, "unchanged": 0, "failed": {}, "days_closed": 0, "remaining": 0,
                             "stopped": "", "failed_in_a_row": 0,
                             "usage": {"calls": 0, "tokens_in": 0, "tokens_out": 0}}
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), transient=True, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task(label, total=None)
        while True:
            result: IterateResult = _call_when_free(ctx, rq.IterateRequest, {
                **args, "max_seconds": _SLICE_SECONDS, "failed_in_a_row": total["failed_in_a_row"]})
            _add(total, result)
            bar.update(task, completed=total["summarized"], total=total["summarized"] + result.remaining)
            if result.failed:
                total["last_error"] = list(result.failed.values())[-1]
            if total["stopped"] != "time":
                return total


def _call_when_free(ctx: typer.Context, op: type[Any], args: dict[str, Any]) -> Any:
    for _ in range(_BUSY_RETRIES):
        try:
            return call(ctx, op, args, timeout=3600)
        except DaemonError as exc:
            if exc.code != "busy":
                raise
            time.sleep(2.0)
    return call(ctx, op, args, timeout=3600)


def _add(total: dict[str, Any], result: IterateResult) -> None:
    """Add a slice's counts to the command's running ``total`` (a run report's JSON shape)."""
    total["summarized"] += result.summarized
    total["unchanged"] += result.unchanged
    total["days_closed"] += result.days_closed
    for key, value in result.usage.to_json().items():
        total["usage"][key] = total["usage"].get(key, 0) + value
    total["failed"].update(result.failed)
    total["remaining"], total["stopped"] = result.remaining, result.stopped
    total["failed_in_a_row"] = result.failed_in_a_row


def _render_run(result: dict[str, Any]) -> str:
    """A run report as text, from its JSON shape (the running total of iterate's slices, or one generate)."""
    usage = result.get("usage", {})
    lines = [f"{result.get('summarized', 0)} nodes summarized ({result.get('unchanged', 0)} unchanged), "
             f"{len(result.get('failed', {}))} failed, {result.get('remaining', 0)} still dirty; "
             f"{usage.get('calls', 0)} provider calls, {usage.get('tokens_in', 0)} tokens in, "
             f"{usage.get('tokens_out', 0)} out"]
    if result.get("stopped"):
        lines.append(f"stopped: {result['stopped']}" + (f" ({result['reason']})" if result.get("reason") else ""))
    lines.extend(f"  failed {key}: {message}" for key, message in list(result.get("failed", {}).items())[:10])
    return "\n".join(lines)


def _generate(ctx: typer.Context, level: int, when: str, agent: Optional[str], conversation: str = "") -> None:
    result: GenerateResult = _call_when_free(ctx, rq.GenerateRequest, {"level": level, "when": when, "agent": agent,
                                                                   "conversation": conversation})
    typer.echo("\n".join(f"generated {key}" for key in result.nodes))
    typer.echo(_render_run(result.to_json()))
    if result.failed:
        raise typer.Exit(1)


@app.command("generate-l0")
def generate_l0(ctx: typer.Context, date: str = typer.Argument(..., help="Local day (YYYY-MM-DD)."),
                conversation: str = typer.Argument(..., help="Conversation key (or a unique end of it)."),
                agent: Optional[str] = typer.Option(None, "--agent")) -> None:
    """Summarize one conversation-day segment now."""
    _generate(ctx, 0, date, agent, conversation)


@app.command("generate-daily")
def generate_daily(ctx: typer.Context, date: str = typer.Argument(..., help="Local day (YYYY-MM-DD)."),
                   agent: Optional[str] = typer.Option(None, "--agent",
                                                       help="Default: every agent with that day.")) -> None:
    """Summarize one day now (its dirty segments first)."""
    _generate(ctx, 1, date, agent)


@app.command("generate-weekly")
def generate_weekly(ctx: typer.Context, date: str = typer.Argument(..., help="Any day of the week (YYYY-MM-DD)."),
                    agent: Optional[str] = typer.Option(None, "--agent")) -> None:
    """Summarize the (month-split) week holding DATE now."""
    _generate(ctx, 2, date, agent)


@app.command("generate-monthly")
def generate_monthly(ctx: typer.Context, month: str = typer.Argument(..., help="YYYY-MM (or a day in it)."),
                     agent: Optional[str] = typer.Option(None, "--agent")) -> None:
    """Summarize one month now."""
    _generate(ctx, 3, month, agent)


@app.command("generate-yearly")
def generate_yearly(ctx: typer.Context, year: str = typer.Argument(..., help="YYYY (or a day in it)."),
                    agent: Optional[str] = typer.Option(None, "--agent")) -> None:
    """Summarize one year now."""
    _generate(ctx, 4, year, agent)


@app.command()
def tree(ctx: typer.Context,
         agent: Optional[str] = typer.Option(None, "--agent"),
         start: Optional[str] = typer.Option(None, "--from", help="First local day (YYYY-MM-DD)."),
         end: Optional[str] = typer.Option(None, "--to", help="Last local day (YYYY-MM-DD)."),
         segments: bool = typer.Option(False, "--segments", help="Show conversation-day segments (L0) too."),
         fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Print the summary tree: years, months, weeks, days (and segments), with titles and states."""
    result: TreeResult = call(ctx, rq.TreeRequest, {"agent": agent, "start": start, "end": end,
                                                 "min_level": 0 if segments else 1})
    emit(result, fmt, _render_tree)


def _render_tree(result: TreeResult) -> str:
    if not result.roots:
        return "no summary nodes yet"
    lines: list[str] = ["(* dirty, ~ context stale, ° open)"]
    for root in result.roots:
        _tree_lines(root, 0, lines)
    return "\n".join(lines)


def _tree_lines(node: TreeNode, depth: int, lines: list[str]) -> None:
    mark = _MARKS.get(node.state, "?") + (" " if node.closed else "°")
    label = {4: node.period_start[:4], 3: node.period_start[:7], 2: f"week {node.period_start}",
             1: node.period_start, 0: node.conversation}[node.level]
    head = f"{node.agent} " if node.level == 4 else ""
    lines.append(f"{'  ' * depth}{mark}{head}{label}  {node.title or '(not summarized)'}  "
                 f"[{node.message_count} msgs]")
    for child in node.children:
        _tree_lines(child, depth + 1, lines)


@app.command()
def repair(ctx: typer.Context, fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Run the nightly repair cascade now: checks, dirty nodes, stale nodes within the budget."""
    result: RepairResult = _call_when_free(ctx, rq.RepairRequest, {})
    emit(result, fmt, _render_repair)
    if result.error:
        warn("repair failed")
        raise typer.Exit(1)


def _render_repair(result: RepairResult) -> str:
    """The repair's one line: its error, why it was skipped, or the grade and what it rebuilt."""
    if result.error or result.skipped:
        return result.error or result.skipped or ""
    dirty = result.dirty.summarized if result.dirty else 0
    stale = result.stale.summarized if result.stale else 0
    return f"grade {result.grade}; {dirty} dirty and {stale} stale nodes rebuilt; {result.waiting} waiting"
