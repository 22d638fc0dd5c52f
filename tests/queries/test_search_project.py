"""Search narrowed to a project (a cwd prefix): the filter is in the ranking's SQL, so the limit fills."""

from __future__ import annotations

from datetime import timedelta

from query_helpers import NOW, History

from tapestryd.clock import FixedClock
from tapestryd.operations.base import ReadDeps
from tapestryd.operations.query import search
from tapestryd.operations.requests import SearchRequest
from tapestryd.queries.reader import Reader


def _write(history: History) -> None:
    """A hundred strong 'deploy' matches outside the project, then four weak ones inside it."""
    at = NOW - timedelta(days=3)
    for n in range(100):
        where = "/p/app-old" if n % 2 else "/p/other"  # a sibling whose name starts like the project's
        history.message(f"claude-code:out{n}", at + timedelta(minutes=n), "deploy deploy the deploy script",
                        cwd=where)
    for n in range(4):
        filler = " ".join(f"word{k}" for k in range(60))
        history.message(f"claude-code:in{n % 2}", at + timedelta(hours=2, minutes=n),
                        f"we should deploy after {filler}", cwd="/p/app" if n < 2 else "/p/app/sub/dir")
    history.message("claude-code:in0", at + timedelta(hours=3), "the release went fine", cwd="/p/app")
    history.commit()


def _search(history: History, **fields: object) -> dict[str, object]:
    with Reader.open(history.settings) as reader:
        return search(SearchRequest(query="deploy", **fields), ReadDeps(reader, FixedClock(NOW))).to_json()


def test_project_hits_fill_the_limit_though_others_rank_higher(history: History) -> None:
    """A hundred better matches elsewhere (half of them in a sibling folder) do not crowd out the project's four."""
    _write(history)
    everywhere = _search(history, limit=4)
    assert {h["conversation"] for h in everywhere["hits"]} <= {f"claude-code:out{n}" for n in range(100)}
    found = _search(history, project="/p/app", limit=4)
    assert found["project"] == "/p/app"
    assert len(found["hits"]) == 4
    assert {h["conversation"] for h in found["hits"]} == {"claude-code:in0", "claude-code:in1"}
    assert all("deploy" in h["snippet"] for h in found["hits"])


def test_a_project_with_no_sessions_finds_nothing(history: History) -> None:
    """A path no session ran in: no hits, not the best hits from elsewhere."""
    _write(history)
    assert _search(history, project="/p/nowhere", limit=5)["hits"] == []
