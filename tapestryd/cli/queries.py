"""Query commands: context (and the Claude Code hook), similar, recall."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit, warn
from tapestryd.cli.render import render_hits
from tapestryd.cli.render_queries import render_recall
from tapestryd.operations import requests as rq

if TYPE_CHECKING:
    from tapestryd.operations.results import ContextResult, RecallResult, SimilarResult

__all__: list[str] = []


class ContextFormat(str, Enum):
    """Output formats of ``context``."""

    text = "text"
    markdown = "markdown"
    json = "json"


@app.command()
def context(ctx: typer.Context,
            agent: Optional[str] = typer.Option(None, "--agent", help="Only this agent's memory."),
            date: Optional[str] = typer.Option(None, "--date", help="Build around this day (default today): "
                                               "2026-03-04, yesterday, 'last Tuesday'."),
            max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=1,
                                                     help="Token budget (about 4 characters each); "
                                                          "highest and oldest levels are shortened first."),
            project: Optional[str] = typer.Option(None, "--project", help="Only Claude Code sessions whose cwd "
                                                  "is inside this path."),
            recent: int = typer.Option(30, "--recent", min=1, max=500, help="Raw messages of the day to include."),
            machine: Optional[str] = typer.Option(None, "--machine", help="Only messages captured on this machine "
                                                  "(\\[sync] machine there); summaries cover every machine."),
            now_only: bool = typer.Option(False, "--now", help="Only the short 'where we are now' block."),
            hook: bool = typer.Option(False, "--hook", help="Act as a Claude Code SessionStart/UserPromptSubmit "
                                      "hook: read its JSON on stdin, print hookSpecificOutput."),
            fmt: ContextFormat = typer.Option(ContextFormat.text, "-f", "--format")) -> None:
    """Telescoping memory: earlier years, months, weeks and days as summaries, today as messages."""
    if hook:
        from tapestryd.cli.hook import run_hook

        raise typer.Exit(run_hook((ctx.find_root().obj or {}).get("home")))
    if project:
        project = str(Path(project).expanduser().resolve())
    args = {"agent": agent, "date": date, "max_tokens": max_tokens, "project": project, "recent": recent,
            "now_only": now_only, "format": fmt.value, "machine": machine}
    result: ContextResult = call(ctx, rq.ContextRequest, args)
    if fmt is ContextFormat.json:
        answer = {k: v for k, v in result.to_json().items() if k != "rendered"}
        typer.echo(json.dumps(answer, ensure_ascii=False, indent=2))
    else:
        typer.echo(result.rendered.removesuffix("\n"))
    if result.budget_note:
        warn(f"({result.budget_note})")


@app.command()
def similar(ctx: typer.Context,
            query: list[str] = typer.Argument(..., help="Text to find similar messages and summaries for."),
            level: str = typer.Option("all", "--level", help="all, messages, summaries, or L0 … L4."),
            top: int = typer.Option(10, "--top", "-n", min=1, max=1000, help="How many results."),
            fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Messages and summaries most similar to QUERY (TF-IDF cosine from the daemon's warm index;
    without it, or while it is being fitted, the full-text index answers at once)."""
    result: SimilarResult = call(ctx, rq.SimilarRequest, {"query": " ".join(query), "level": level, "top": top},
                                 timeout=120)
    if not result.index.get("warm"):
        warn(f"no warm index (tapestryd is {result.index.get('reason', 'not running')}): "
             "answered from the full-text index")
    emit(result.hits if fmt is not Format.text else result.to_json(), fmt, render_hits)


@app.command()
def recall(ctx: typer.Context,
           when: list[str] = typer.Argument(..., help="A date or period (2026-03-04, 2026-03, 2026, 2026-03-30w), "
                                            "a phrase (yesterday, 'last week', 'July 2025'), A..B or 'A to B', "
                                            "A.. (up to now) or ..B. 'last 3 months' / 'past 10 days' run from "
                                            "that day N units back up to today; 'last week' is the previous "
                                            "calendar week."),
           agent: Optional[str] = typer.Option(None, "--agent"),
           limit: int = typer.Option(50, "--limit", "-n", min=1, max=10_000,
                                     help="Most nodes (or conversations) shown; the last line counts the rest."),
           fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """The best available summaries for a date, period or range, with links down to their sources."""
    result: RecallResult = call(ctx, rq.RecallRequest, {"when": " ".join(when), "agent": agent, "limit": limit})
    emit(result.nodes if fmt is Format.jsonl else result, fmt, render_recall)
