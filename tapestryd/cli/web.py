"""``tapestryctl calendar``: serve the calendar web page on its own, or point at the daemon's."""

from __future__ import annotations

import threading
from typing import Optional

import typer

from tapestryd.cli.app import app, settings, warn
from tapestryd.errors import TapestryError

__all__: list[str] = []


@app.command("calendar")
def calendar(ctx: typer.Context,
             port: Optional[int] = typer.Option(None, "--port", min=0, max=65535,
                                               help="Port to serve on (default: web.port in tapestry.toml, 5008)."),
             host: Optional[str] = typer.Option(None, "--host",
                                                help="Address to bind (default: web.host, 127.0.0.1; "
                                                     "anything else is warned about)."),
             browser: bool = typer.Option(False, "--browser",
                                          help="Open the calendar in the default web browser.")) -> None:
    """Serve the calendar (month grid, day panel, search, upload) until Ctrl-C.

    When the daemon runs and already serves it (web.enabled = true), print its address instead.
    """
    from tapestryd.web import WebServer
    from tapestryd.web.backend import daemon_health
    from tapestryd.web.security import bind_warning

    conf = settings(ctx)
    server = WebServer(conf, host=host, port=port)
    if port is None and host is None and conf.web.enabled and daemon_health(conf)["running"]:
        typer.echo(f"tapestryd serves the calendar at {server.url}")
        _open(server.url, browser)
        return
    if bind_warning(server.host):
        warn(f"warning: {bind_warning(server.host)}")
    try:
        server.start()
    except TapestryError as exc:
        hint = "; stop what listens there or pick another with --port" if exc.message.startswith("port ") else ""
        raise TapestryError(exc.message + hint) from exc
    typer.echo(f"calendar at {server.url} (Ctrl-C to stop)")
    _open(server.url, browser)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def _open(url: str, browser: bool) -> None:
    if browser:
        import webbrowser

        webbrowser.open(url)
