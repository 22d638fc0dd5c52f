"""The event log's models run on SQLite and on PostgreSQL: one contract, each backend a real server or file."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import sqlalchemy as sa

from tapestryd.events.models import EVENTS, LOG_METADATA, SYNC_CHECKPOINTS
from tapestryd.events.statements import insert_events, save_checkpoint


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[sa.Engine]:
    """An engine on an empty database holding the log's tables, created from the models."""
    if request.param == "sqlite":
        url = sa.engine.make_url(f"sqlite:///{tmp_path / 'events.db'}")
    else:
        url = sa.engine.make_url(request.getfixturevalue("hub_url")).set(drivername="postgresql+psycopg")
    engine = sa.create_engine(url)
    LOG_METADATA.create_all(engine)
    try:
        yield engine
    finally:
        engine.dispose()


def row(n: int, origin: str = "laptop") -> dict[str, object]:
    return {"event_id": f"e{n}", "type": "MessageRecorded", "schema": 2, "occurred_at": "2026-03-04T05:06:07.000000Z",
            "recorded_at": "2026-03-04T05:06:08.000000Z", "agent": "codex", "source": f"s#{n}",
            "payload": '{"text":"hi"}', "origin": origin}


def stored(engine: sa.Engine) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.select(EVENTS.c.seq, EVENTS.c.event_id, EVENTS.c.origin)
                                               .order_by(EVENTS.c.seq))]


def test_seqs_rise_and_a_known_event_id_is_a_no_op(engine: sa.Engine) -> None:
    """The database hands out rising seqs; inserting a stored event_id again stores nothing.

    (A conflict may use up a seq on both backends, as INSERT OR IGNORE did: seqs rise, with gaps.)
    """
    dialect = engine.dialect.name
    with engine.begin() as conn:
        conn.execute(insert_events(dialect), [row(1), row(2)])
    with engine.begin() as conn:
        conn.execute(insert_events(dialect), [row(2, origin="desk"), row(3, origin="desk")])
    rows = stored(engine)
    assert [r[1:] for r in rows] == [("e1", "laptop"), ("e2", "laptop"), ("e3", "desk")]
    assert [r[0] for r in rows] == sorted({int(r[0]) for r in rows})  # type: ignore[call-overload]


def test_a_checkpoint_commits_or_rolls_back_with_its_events(engine: sa.Engine) -> None:
    """Events and checkpoint share a transaction: a failure after both leaves neither."""
    dialect = engine.dialect.name
    with engine.begin() as conn:
        conn.execute(insert_events(dialect), [row(1)])
        conn.execute(save_checkpoint(dialect), {"name": "hub:pull", "position": 1, "updated_at": "t1"})
    with pytest.raises(RuntimeError), engine.begin() as conn:
        conn.execute(insert_events(dialect), [row(2)])
        conn.execute(save_checkpoint(dialect), {"name": "hub:pull", "position": 2, "updated_at": "t2"})
        raise RuntimeError("the copy failed after both statements")
    with engine.begin() as conn:
        conn.execute(save_checkpoint(dialect), {"name": "hub:push", "position": 2**40, "updated_at": "t3"})
        positions = dict(conn.execute(sa.select(SYNC_CHECKPOINTS.c.name, SYNC_CHECKPOINTS.c.position)).all())
    assert [r[1:] for r in stored(engine)] == [("e1", "laptop")] and positions == {"hub:pull": 1, "hub:push": 2**40}
