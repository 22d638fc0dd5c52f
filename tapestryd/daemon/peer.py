"""The socket peer of a connection: its uid, and a request rate limit.

* The server records the uid of the peer a client thread serves (:func:`set_peer_uid`,
  :func:`peer_uid_now`); the dispatcher hands it to ``ingest`` as a dependency
  (:class:`tapestryd.operations.base.WriteDeps`), which imports only what that uid may read.
* :class:`TokenBucket` bounds requests per connection: ``burst`` at once, ``rate`` per
  second sustained (a token bucket, as in RFC 2697's single-rate meter).
"""

from __future__ import annotations

import threading
import time

__all__ = ["TokenBucket", "peer_uid_now", "set_peer_uid"]

_local = threading.local()


def set_peer_uid(uid: int | None) -> None:
    """Remember the peer uid of the connection this thread serves."""
    _local.uid = uid


def peer_uid_now() -> int | None:
    """The peer uid of the connection this thread serves (None: unknown, or not a socket thread)."""
    return getattr(_local, "uid", None)


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; :meth:`take` spends one if there is one."""

    def __init__(self, rate: float = 200.0, burst: float = 400.0) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = burst, time.monotonic()

    def take(self) -> bool:
        """Whether a request may proceed now."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
