"""The daemon's warm index, found by the database it was built from.

The daemon registers its :class:`~tapestryd.projections.tfidf.SimilarityIndex` for its
``projections.db`` with :func:`register_warm_index`; ``similar`` and ``search`` then use it
instead of fitting per query (similar) or scanning FTS5's long posting lists (search).
Without a daemon nothing is registered and both fall back (see their modules).
"""

from __future__ import annotations

import threading
from pathlib import Path

from tapestryd.projections.tfidf import SimilarityIndex

__all__ = ["register_warm_index", "unregister_warm_index", "warm_index"]

_WARM: dict[str, SimilarityIndex] = {}
_LOCK = threading.Lock()


def _name(db_path: Path) -> str:
    return str(Path(db_path).resolve())


def register_warm_index(db_path: Path, index: SimilarityIndex) -> None:
    """Make ``index`` the warm index that queries on ``db_path`` use (the daemon calls this)."""
    with _LOCK:
        _WARM[_name(db_path)] = index


def unregister_warm_index(db_path: Path) -> None:
    """Forget the warm index of ``db_path`` (the daemon calls this on stop)."""
    with _LOCK:
        _WARM.pop(_name(db_path), None)


def warm_index(db_path: Path) -> SimilarityIndex | None:
    """The warm index registered for ``db_path``, or None."""
    with _LOCK:
        return _WARM.get(_name(db_path))
