"""Core commands: init, paths, ingest, search, conversations, show, stats, export-log, rebuild."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, List, Optional

import typer

from tapestryd.cli.app import Format, app, call, emit, emit_lines, settings, warn
from tapestryd.cli.render import render_conversation, render_conversations, render_hits, render_receipt, render_stats
from tapestryd.config import default_config_file, load_settings, resolve_home, system_timezone
from tapestryd.errors import DiskFullError, TapestryError
from tapestryd.operations import requests as rq
from tapestryd.paths import paths_for
from tapestryd.plural import counted

if TYPE_CHECKING:
    from tapestryd.operations.results import IngestResult, RebuildResult, SearchResult

__all__: list[str] = []


@app.command()
def init(ctx: typer.Context,
         home: Optional[str] = typer.Option(None, "--home", help="Put config and data under this directory."),
         force: bool = typer.Option(False, "--force", help="Overwrite an existing tapestry.toml.")) -> None:
    """Write a commented tapestry.toml, create the data folders and print where everything lives."""
    from importlib.resources import files

    root = resolve_home(home or (ctx.find_root().obj or {}).get("home"))
    config_file = default_config_file(root)
    if config_file.exists() and not force:
        warn(f"{config_file} exists; keeping it (use --force to overwrite)")
    else:
        template = files("tapestryd").joinpath("templates/tapestry.toml").read_text()
        config_file.parent.mkdir(parents=True, exist_ok=True)
        config_file.write_text(template.replace('timezone = ""', f'timezone = "{system_timezone()}"', 1))
    conf = load_settings(root)
    paths_for(conf).ensure()
    _print_paths(paths_for(conf).as_dict())


@app.command("paths")
def paths_cmd(ctx: typer.Context) -> None:
    """Print where the config, databases, inbox, backups, logs and socket live."""
    _print_paths(paths_for(settings(ctx)).as_dict())


def _print_paths(paths: dict[str, str]) -> None:
    width = max(len(k) for k in paths)
    for name, value in paths.items():
        typer.echo(f"{name.ljust(width)}  {value}")


@app.command()
def ingest(ctx: typer.Context,
           paths: List[Path] = typer.Argument(..., help="Files, folders or ZIP exports to import."),
           agent: Optional[str] = typer.Option(None, "--agent", help="Agent label (default: from the parser)."),
           parser: str = typer.Option("auto", "--parser", help="auto, claude-code, chatgpt, claude, codex,"
                                                                  " gemini or opencode."),
           fmt: Format = typer.Option(Format.text, "-f", "--format", help="Receipt as text or json.")) -> None:
    """Import exports and session files; print a receipt of what was new, known, skipped or wrong.

    A missing path is an error in the receipt while the others are imported; the exit code is 1 only
    when nothing could be imported.
    """
    missing = [str(p) for p in paths if not p.exists()]
    if len(missing) == len(paths):
        raise TapestryError(f"no such file or folder: {', '.join(missing)}")
    args = {"paths": [str(p.resolve()) for p in paths], "agent": agent, "parser": parser}
    try:
        with _progress() as progress:
            receipt: IngestResult = call(ctx, rq.IngestRequest, args, progress=progress, timeout=3600)
    except DiskFullError as exc:
        raise TapestryError(_disk_full(exc, paths)) from exc
    emit(receipt, fmt, render_receipt)
    if receipt.failed:
        raise typer.Exit(1)


IMPORT_SPACE_FACTOR = 4
"""Free space an import needs, as a multiple of the bytes it reads: the log, the projections and
their write-ahead logs at their peak (a 12 MB ChatGPT export peaked at 47 MB, leaving 28 MB)."""


def _disk_full(exc: DiskFullError, paths: List[Path]) -> str:
    """One line for a full disk: the database, the free space there, and what this import needs."""
    import shutil

    reading = sum(_size(p) for p in paths)
    try:
        free = shutil.disk_usage(Path(exc.database).parent).free
    except OSError:
        free = 0
    return (f"disk full: {exc.database} cannot grow ({free / 1e6:.1f} MB free on its file system); "
            f"this import needs about {IMPORT_SPACE_FACTOR * reading / 1e6:,.0f} MB free "
            f"({IMPORT_SPACE_FACTOR} times the "
            f"{reading / 1e6:,.1f} MB it reads). What was imported is kept: free space and run the same command again")


def _size(path: Path) -> int:
    """Bytes of a file, or of the files under a folder (0 when unreadable)."""
    try:
        if path.is_dir():
            return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        return path.stat().st_size
    except OSError:
        return 0


class _progress:
    """A rich progress bar over bytes read, shown on a terminal for imports over 5 MB."""

    def __enter__(self) -> Any:
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TimeRemainingColumn,
        )

        self.bar = Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                            TimeRemainingColumn(), transient=True, disable=not sys.stderr.isatty())
        self.task: Any = None
        self.bar.__enter__()
        return self.update

    def update(self, done: int, total: int, name: str) -> None:
        if total < 5_000_000:
            return
        if self.task is None:
            self.task = self.bar.add_task("importing", total=total)
        self.bar.update(self.task, completed=done, total=total, description=Path(name).name[:30])

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(None, None, None)


@app.command()
def search(ctx: typer.Context,
           query: List[str] = typer.Argument(..., help="Words to find; may carry a time phrase such as "
                                             "'yesterday', 'last week' (the previous calendar week), 'last 3 months' "
                                             "(from that day 3 months back up to now), 'since March' or '2025-06-14..' "
                                             "(from that day up to now). With --regex, a pattern."),
           agent: Optional[str] = typer.Option(None, "--agent"),
           role: Optional[str] = typer.Option(None, "--role", help="user, assistant, system or tool."),
           conversation: Optional[str] = typer.Option(None, "--conversation", help="A conversation key or any "
                                                      "unique end of it (as `show` takes it)."),
           level: str = typer.Option("all", "--level", help="all, messages, summaries, or L0 … L4."),
           since: Optional[str] = typer.Option(None, "--since", help="ISO time or phrase ('last week'). With a time "
                                               "phrase in QUERY too, their overlap is searched (the 'reading' "
                                               "line shows it)."),
           until: Optional[str] = typer.Option(None, "--until", help="ISO time or phrase (its end is used)."),
           sort: str = typer.Option("relevance", "--sort", help="relevance (BM25) or time (newest first)."),
           regex: bool = typer.Option(False, "--regex", help="Treat QUERY as a regular expression over "
                                      "message text (case-insensitive), newest first."),
           hybrid: bool = typer.Option(False, "--hybrid", help="The same hits, with their conversations ranked too."),
           widen: bool = typer.Option(False, "--widen", help="When a time phrase leaves fewer than --limit hits, "
                                      "add matches from other times, marked as outside the range (when it "
                                      "leaves none, they are added without it)."),
           no_subagents: bool = typer.Option(False, "--no-subagents", help="Leave out what subagents said "
                                             "(Claude Code Task agents, Gemini CLI and OpenCode subagents)."),
           machine: Optional[str] = typer.Option(None, "--machine", help="Only messages captured on this machine "
                                                 "(\\[sync] machine there); summaries, which cover every machine, are "
                                                 "left out."),
           now: Optional[str] = typer.Option(None, "--now", help="The instant relative phrases ('yesterday', "
                                             "'last week') count from, ISO 8601; a bare date is the end of that day "
                                             "(default: the clock)."),
           limit: int = typer.Option(20, "--limit", "-n"),
           fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Full-text search over messages and summaries, best match first; time phrases narrow the range.

    Messages are ranked by BM25 with the turns next to a match and their conversation's score; a turn
    holding none of the words is marked '(next to a match)'. Words found in over 20,000 messages rank
    only the 20,000 most recently stored; with --agent, --role or a time range that window grows
    fourfold until --limit of it pass the filters. The answer is the same with or without the daemon.

    A term in Chinese, Japanese, Korean, Thai or an emoji is matched as a substring; those hits come newest first.
    """
    args = {"query": " ".join(query), "agent": agent, "role": role, "conversation": conversation, "level": level,
            "since": since, "until": until, "sort": sort, "regex": regex, "limit": limit,
            "mode": "hybrid" if hybrid else "fts", "widen": widen, "no_subagents": no_subagents, "now": now,
            "machine": machine}
    result: SearchResult = call(ctx, rq.SearchRequest, args)
    if fmt is not Format.text and result.time:
        warn(f"reading {result.time.phrase!r} as {result.time.label}")
    emit(result.hits if fmt is not Format.text else result.to_json(), fmt, render_hits)


@app.command()
def conversations(ctx: typer.Context,
                  agent: Optional[str] = typer.Option(None, "--agent"),
                  limit: int = typer.Option(50, "--limit", "-n"),
                  fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """List conversations, most recently active first."""
    emit(call(ctx, rq.ConversationsRequest, {"agent": agent, "limit": limit}), fmt, render_conversations)


@app.command()
def show(ctx: typer.Context,
         conversation: str = typer.Argument(..., help="Conversation key (or a unique end of it), or a node key "
                                            "such as L1:claude-code:2026-03-04."),
         fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Print one whole conversation in order, or one summary node with its sources."""
    from tapestryd.cli.render_queries import render_node
    from tapestryd.queries.nodes import is_node_key

    if is_node_key(conversation):
        emit(call(ctx, rq.NodeRequest, {"key": conversation}), fmt, render_node)
        return
    emit(call(ctx, rq.ShowRequest, {"conversation": conversation}), fmt, render_conversation)


@app.command()
def stats(ctx: typer.Context, fmt: Format = typer.Option(Format.text, "-f", "--format")) -> None:
    """Counts of conversations and messages per agent and role."""
    emit(call(ctx, rq.StatsRequest, {}), fmt, render_stats)


@app.command("export-log")
def export_log(ctx: typer.Context,
               since: int = typer.Option(0, "--since", min=0, max=2**63 - 1,
                                         help="Only events with seq greater than this."),
               redacted: bool = typer.Option(False, "--redacted", help="Strip <private> spans and replace secrets "
                                             "(\\[secret:<kind>]), as search, context and summaries do.")) -> None:
    """Write the event log as JSONL on stdout, one event a line, in seq order.

    It is the raw log: secrets and <private> text are printed verbatim. Use --redacted to
    share or paste the output.
    """
    from tapestryd.queries.eventlog import iter_log

    emit_lines(iter_log(paths_for(settings(ctx)).events_db, since=since, redacted=redacted))


@app.command()
def rebuild(ctx: typer.Context) -> None:
    """Drop every projection and replay the event log into them (no provider calls)."""
    result: RebuildResult = call(ctx, rq.RebuildRequest, {}, timeout=3600)
    if result.set_aside:
        typer.echo(f"projections.db was not a readable database: moved it aside to {result.set_aside}")
    typer.echo(f"replayed {counted(result.replayed, 'event')} (log at seq {result.last_seq})")
