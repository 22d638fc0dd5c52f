"""Warnings go to the stderr of the moment they are logged, not to the stream of the set-up."""

from __future__ import annotations

import io
import sys

import pytest
import structlog

from tapestryd.lazylog import warnings_to_stderr


def test_a_line_logged_after_the_set_up_stream_closed_goes_to_todays_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """A CLI run in-process sets logging up on a captured stream that closes with the run; a later
    warning (the summarizer's, in another test or a long-lived process) must still be written."""
    captured = io.StringIO()
    monkeypatch.setattr(sys, "stderr", captured)
    warnings_to_stderr()
    captured.close()
    now = io.StringIO()
    monkeypatch.setattr(sys, "stderr", now)
    structlog.get_logger("test").warning("summarizer.node_failed", node="L0:x")
    structlog.get_logger("test").info("not shown")
    assert "summarizer.node_failed" in now.getvalue() and "not shown" not in now.getvalue()
