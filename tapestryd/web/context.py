"""What the calendar's views share within a request: the app's state, a reader, the agents with data.

Blueprints (:mod:`tapestryd.web.views`, :mod:`tapestryd.web.api`) read these; the app factory
(:mod:`tapestryd.web.app`) creates the state and closes the reader at the end of each request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from flask import current_app, g

from tapestryd.clock import Clock
from tapestryd.config import Settings
from tapestryd.errors import StoreError
from tapestryd.queries.calendar import agents_with_data
from tapestryd.queries.dense import DenseKeeper
from tapestryd.queries.reader import Reader
from tapestryd.web.uploads import UploadJobs

__all__ = ["WebState", "close_reader", "data_agents", "reader", "state"]


@dataclass
class WebState:
    """What every view needs: settings, the CSRF token, upload jobs, the bound host, a clock, and the dense
    index searches run in this process share (the daemon down)."""

    settings: Settings
    csrf_token: str
    jobs: UploadJobs
    host: str
    clock: Clock
    dense: DenseKeeper = field(default_factory=DenseKeeper)

    def today(self) -> date:
        """Today's local date in the configured timezone."""
        return self.clock.now().astimezone(self.settings.tz).date()


def state() -> WebState:
    """The current app's :class:`WebState`."""
    found: WebState = current_app.extensions["tapestry"]
    return found


def reader() -> Reader | None:
    """This request's read-only Reader (opened once), or None when nothing is stored yet."""
    if "reader" not in g:
        try:
            g.reader = Reader.open(state().settings)
        except StoreError:
            g.reader = None
    opened: Reader | None = g.reader
    return opened


def data_agents() -> list[str]:
    """The agents that have conversations stored, sorted (read once per request)."""
    if "data_agents" not in g:
        opened = reader()
        g.data_agents = agents_with_data(opened) if opened else []
    agents: list[str] = g.data_agents
    return agents


def close_reader(exc: BaseException | None) -> None:
    """Close this request's reader, if one was opened (the app's teardown)."""
    opened = g.pop("reader", None)
    if opened is not None:
        opened.close()
