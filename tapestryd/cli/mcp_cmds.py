"""MCP commands: ``mcp`` (the server over stdio) and ``install-mcp`` (register it with AI clients).

The MCP SDK is imported only when ``mcp`` runs, so no other command pays for it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import typer

from tapestryd.cli.app import app, settings

__all__: list[str] = []


@app.command("mcp")
def mcp_cmd(ctx: typer.Context) -> None:
    """Serve your memory to an AI over MCP (stdio): search, timeline, get_messages, context, similar.

    Asks the running daemon, or reads the database read-only when it is down. Logs go to stderr.
    """
    from tapestryd.mcp.server import serve

    serve(settings(ctx))


@app.command("install-mcp")
def install_mcp(ctx: typer.Context,
                dry_run: bool = typer.Option(False, "--dry-run", help="Print what would be done; change nothing.")
                ) -> None:
    """Register `tapestryctl mcp` with Claude Code (user scope); print the Codex CLI and Gemini CLI snippets."""
    from tapestryd.mcp.install import (
        codex_snippet,
        gemini_snippet,
        install,
        plan,
        server_command,
    )

    home = (ctx.find_root().obj or {}).get("home")
    step = plan(server_command(home), claude=shutil.which("claude"), user_home=Path.home())
    if dry_run:
        typer.echo("would run: " + " ".join(step.argv) if step.argv
                   else f"would add mcpServers.tapestry to {step.config_file} (no claude CLI on PATH)")
    else:
        typer.echo(install(step))
    typer.echo(f"\nCodex CLI: add to ~/.codex/config.toml\n\n{codex_snippet(step.command)}")
    typer.echo(f"Gemini CLI: merge into ~/.gemini/settings.json\n\n{gemini_snippet(step.command)}", nl=False)
