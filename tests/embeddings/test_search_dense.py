"""Search with the dense ranking fused in (a scripted encoder: no weights needed): a message found by
meaning alone comes, marked; filters hold for it; the warm copy follows new vectors and forgets."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
from fake_encoder import FakeEncoder

from tapestryd.config import load_settings
from tapestryd.events import EventStore, Forgotten, MessageRecorded, NewEvent, event_id, format_utc
from tapestryd.paths import paths_for
from tapestryd.projections import MessagesProjection, Projector
from tapestryd.projections.vectors import MessageVectors
from tapestryd.queries.dense import DenseIndex, fuse, nearest
from tapestryd.queries.reader import Reader
from tapestryd.queries.search import SearchFilters, search

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=1)
TEXTS = ["I bought a new automobile today", "The weather was grey and cold", "We planted tomatoes in the garden",
         "Which car insurance should I pick?", "Coffee with Ana on Friday"]


def message(n: int, text: str, role: str = "user", conv: str = "chatgpt:c1") -> NewEvent:
    ts = T0 + timedelta(minutes=n)
    return NewEvent(event_id("d", str(n)), MessageRecorded(conv, f"m{n}", role, text, format_utc(ts)), ts,
                    agent="chatgpt", source=f"x#{n}")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home whose projections hold TEXTS (conversation c1, then c2 from the third on) with fake vectors."""
    (tmp_path / "tapestry.toml").write_text('[general]\ntimezone = "UTC"\n[sources]\nwatched_roots = []\n')
    paths = paths_for(load_settings(tmp_path))
    paths.ensure()
    store = EventStore(paths.events_db)
    store.append([message(n, text, "assistant" if n == 3 else "user", "chatgpt:c1" if n < 2 else "chatgpt:c2")
                  for n, text in enumerate(TEXTS)])
    projector = Projector(store, paths.projections_db, [MessagesProjection(), MessageVectors(tmp_path, FakeEncoder())])
    projector.catch_up()
    projector.close()
    store.close()
    return tmp_path


def texts(answer: dict[str, object]) -> list[str]:
    return [h["snippet"].replace("[", "").replace("]", "") for h in answer["hits"]]  # type: ignore[attr-defined]


def test_fusion_adds_up_reciprocal_ranks_and_names_what_came_by_meaning_alone() -> None:
    """An id high in both lists beats one first in only one; ids only the dense list holds are named."""
    fused, alone = fuse([(1, -9.0), (2, -8.0), (3, -7.0)], [3, 4, 1], limit=3)
    assert [i for i, _ in fused] == [1, 3, 2]
    assert alone == set()
    fused, alone = fuse([(1, -9.0)], [4, 1], limit=5)
    assert [i for i, _ in fused] == [1, 4] and alone == {4}
    assert all(score < 0 for _, score in fused)


def test_nearest_orders_only_the_best_rows_largest_first() -> None:
    """The best rows by dot product, ties to the lower row, and every row when fewer than asked."""
    matrix = np.array([[0.1, 0.0], [0.9, 0.0], [0.5, 0.0], [0.9, 0.0], [0.2, 0.0]], dtype=np.float32)
    vector = np.array([1.0, 0.0], dtype=np.float32)
    assert nearest(matrix, vector, 3).tolist() == [1, 3, 2]
    assert nearest(matrix, vector, 9).tolist() == [1, 3, 2, 4, 0]


def test_a_message_of_the_same_meaning_comes_marked_only_with_the_dense_ranking(home: Path) -> None:
    """'car' finds the automobile by meaning (marked meaning_match) after the message holding 'car'."""
    with Reader.open(load_settings(home)) as reader:
        plain = search(reader, "car", now=NOW)
        fused = search(reader, "car", now=NOW, dense=DenseIndex(FakeEncoder()))
    assert texts(plain)[0] == texts(fused)[0] == "Which car insurance should I pick?"
    assert "I bought a new automobile today" not in texts(plain)
    found = fused["hits"][texts(fused).index("I bought a new automobile today")]
    assert found["extra"] == {"meaning_match": True}
    assert not fused["hits"][0]["extra"].get("meaning_match")


def test_the_dense_ranking_keeps_to_the_filters(home: Path) -> None:
    """A role or conversation filter leaves out what the dense ranking finds outside it."""
    dense = DenseIndex(FakeEncoder())
    with Reader.open(load_settings(home)) as reader:
        by_role = search(reader, "vehicle", SearchFilters(role="assistant"), now=NOW, dense=dense)
        by_conv = search(reader, "vehicle", SearchFilters(conversation="chatgpt:c2"), now=NOW, dense=dense)
    assert texts(by_role)[0] == "Which car insurance should I pick?"
    assert "I bought a new automobile today" not in texts(by_role)
    assert "I bought a new automobile today" not in texts(by_conv)
    assert all(h["conversation"] == "chatgpt:c2" for h in by_conv["hits"])


def test_the_warm_index_reads_only_new_vectors_and_reloads_after_a_forget(home: Path) -> None:
    """Kept between queries, it encodes each query once, folds in new messages, and drops forgotten ones."""
    encoder = FakeEncoder()
    dense = DenseIndex(encoder)
    settings = load_settings(home)
    paths = paths_for(settings)
    with Reader.open(settings) as reader:
        assert dense.refresh(reader.conn) == len(TEXTS)
        search(reader, "vehicle", now=NOW, dense=dense)
        search(reader, "vehicle", now=NOW, dense=dense)
        assert encoder.calls == [["vehicle"]]
        assert dense.refresh(reader.conn) == 0
    store = EventStore(paths.events_db)
    store.append([message(9, "garden beds need water", conv="chatgpt:c3")])
    projector = Projector(store, paths.projections_db, [MessagesProjection(), MessageVectors(home, FakeEncoder())])
    projector.catch_up()
    with Reader.open(settings) as reader:
        found = texts(search(reader, "tomatoes", now=NOW, dense=dense))
        assert found[0] == "We planted tomatoes in the garden" and "garden beds need water" in found
        assert len(dense.ids) == len(TEXTS) + 1
    store.append([NewEvent(event_id("d", "forget"), Forgotten(conversation="chatgpt:c3"), NOW, agent="chatgpt")])
    projector.catch_up()
    projector.close()
    store.close()
    with Reader.open(settings) as reader:
        assert "garden beds need water" not in texts(search(reader, "tomatoes", now=NOW, dense=dense))
        assert len(dense.ids) == len(TEXTS)
