"""The calendar: a local web page to browse the whole history by day, read nodes, drop in exports."""

from tapestryd.web.app import create_app
from tapestryd.web.server import WebServer

__all__ = ["WebServer", "create_app"]
