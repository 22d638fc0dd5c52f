"""Run a local summarizer in a child process, so the always-on daemon stays small.

The extractive provider needs scikit-learn, which adds about 70 MB to a process that
imports it. The daemon runs for months and summarizes for a few seconds a day, so its
scheduled jobs summarize through :class:`IsolatedSummarizer`: a one-worker process pool
(``spawn``: a fresh interpreter, never a fork of the threaded daemon) started at the first
request of a job and ended with it (:func:`isolated`). Requests and summaries cross the
pipe as pickles; the budget is checked and spent here, in the daemon. While a node is in
the child, ``halted()`` is asked every :data:`POLL` seconds; once it says yes (``pause``,
SIGTERM) the child is ended at once and its node abandoned (redone on the next run), so a
stop never waits for a long node.

Remote providers (``openai``) hold an HTTP client and little memory; they run in process,
waiting between retries on the daemon's ``halt`` event, so ``pause`` and stop end the
retries of the node in hand (no new request starts once it is set).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.process import BaseProcess
from contextlib import contextmanager
from typing import Callable, Iterator

from tapestryd.config import SummarizeSettings
from tapestryd.errors import ProviderError
from tapestryd.summarize import Budget, Summarizer, make_summarizer
from tapestryd.summarize.base import Summary, SummaryRequest

__all__ = ["POLL", "IsolatedSummarizer", "isolated"]

POLL = 0.1  # seconds between checks of ``halted`` while the child works

_child: Summarizer | None = None


def _end_with_parent() -> None:
    """The child's initializer: a thread that ends the process as soon as its parent is gone.

    A pool worker blocks on its call queue, whose pipe it holds both ends of, so a daemon
    killed with SIGKILL would otherwise leave it (and its ~130 MB) running for good. The
    thread waits on the parent's sentinel (``join``), which wakes when the parent exits.
    """
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_after, args=(parent,), name="parent-watch", daemon=True).start()


def _exit_after(parent: BaseProcess) -> None:
    parent.join()
    os._exit(0)


def _summarize_in_child(settings: SummarizeSettings, request: SummaryRequest) -> Summary:
    """The child's side: one provider per child process, an unlimited budget (the parent keeps it)."""
    global _child
    if _child is None:
        _child = make_summarizer(settings)
    return _child.summarize(request, Budget())


class IsolatedSummarizer:
    """A :class:`~tapestryd.summarize.Summarizer` whose work runs in a child process.

    Names, model and prompt version are the wrapped provider's, so the NodeSummarized
    events are the same as in process. Raises ProviderError (retryable) when the child dies
    or was ended because ``halted()`` said so.
    """

    local = True

    def __init__(self, settings: SummarizeSettings, *, halted: Callable[[], bool] = lambda: False) -> None:
        probe = make_summarizer(settings)
        self.name, self.model, self.prompt_version = probe.name, probe.model, probe.prompt_version
        probe.close()
        self.settings = settings
        self.halted = halted
        self._pool: ProcessPoolExecutor | None = None

    def summarize(self, request: SummaryRequest, budget: Budget) -> Summary:
        """Summarize ``request`` in the child; the budget is checked before and spent after."""
        budget.check()
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_end_with_parent)
        try:
            summary = self._wait(self._pool.submit(_summarize_in_child, self.settings, request))
        except BrokenProcessPool as exc:
            self.close()
            raise ProviderError("the summarizer's worker process died", retryable=True) from exc
        budget.spend(summary.usage)
        return summary

    def _wait(self, future: Future[Summary]) -> Summary:
        """The child's answer; ends the child and raises ProviderError once ``halted()``."""
        while True:
            try:
                return future.result(timeout=POLL)
            except FutureTimeout:
                if self.halted():
                    self.close(abandon=True)
                    raise ProviderError("the summarizer was halted (paused or stopping)", retryable=True) from None

    def close(self, *, abandon: bool = False) -> None:
        """End the child process (if one was started); ``abandon`` kills it mid-node instead of waiting."""
        if self._pool is None:
            return
        if abandon:
            for process in list(self._pool._processes.values()):  # no public way to end a busy worker in 3.11
                process.terminate()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._pool = None


@contextmanager
def isolated(settings: SummarizeSettings, *, halted: Callable[[], bool] = lambda: False,
             halt: threading.Event | None = None) -> Iterator[Summarizer]:
    """A summarizer for one job: the local provider in a child process, a remote one in process.

    The child (if any) ends when the block does, or mid-node once ``halted()``; a remote
    provider abandons its retries once ``halt`` is set. Raises ConfigError as make_summarizer does.
    """
    provider: Summarizer = IsolatedSummarizer(settings, halted=halted) if settings.provider == "extractive" \
        else make_summarizer(settings, halt=halt)
    try:
        yield provider
    finally:
        provider.close()
