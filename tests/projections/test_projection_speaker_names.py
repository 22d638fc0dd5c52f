"""Speaker names (projections/speaker_names.py): the names the two sides call each other, recorded per
message, read at query time so a name heard late names the earlier turns too, forgotten with the
message that said it, and the same rows after a rebuild or a backfill."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from test_projection_blocks import _forget, _id, _message, _project

from tapestryd.projections import MessagesProjection, Projector, speaker_names


def _rows(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    return conn.execute("SELECT * FROM message_vocatives ORDER BY id, nth").fetchall()


def _chat() -> list:
    return [_message(0, "u0", "I adopted a grey cat from the shelter."),  # names no one yet
            _message(1, "a0", "Lovely, Nadia! I ran the Porto half marathon.", role="assistant"),
            _message(2, "u1", "Thanks, Tomas! Was it hot?"),
            _message(3, "a1", "Very hot, Nadia!", role="assistant"),
            _message(4, "s0", "Hey Nadia! (system note)", role="system"),
            _message(5, "o0", "Hi Nadia! Another talk entirely.", "claude-ai:c2", role="assistant")]


def test_a_name_heard_later_names_the_turns_said_before_it(tmp_path: Path) -> None:
    """Projected one event at a time: the user's first turn, said before anyone named her, is Nadia's."""
    conn = _project(tmp_path, _chat(), batch=1).conn
    ids = {key: _id(conn, key) for key in ("u0", "a0", "u1", "a1", "s0", "o0")}
    said = speaker_names.named_turns(conn, ["nadia"], list(ids.values()))
    assert said == {ids["u0"]: ["nadia"], ids["u1"]: ["nadia"]}  # c2's user says nothing; a system turn is no side
    assert speaker_names.named_turns(conn, ["TOMAS", "porto"], list(ids.values())) == {
        ids["a0"]: ["tomas"], ids["a1"]: ["tomas"]}
    assert [(r[2], r[3], r[4]) for r in _rows(conn) if r[0] == ids["a0"]] == [("claude-ai:c1", "assistant", "Nadia")]


def test_a_name_both_sides_are_called_alike_names_neither(tmp_path: Path) -> None:
    """'Sam' said by each side to the other is no one's name there."""
    conn = _project(tmp_path, [_message(0, "u", "Hi Sam! ready?"),
                               _message(1, "a", "Yes, Sam!", role="assistant")]).conn
    assert speaker_names.named_turns(conn, ["sam"], [_id(conn, "u"), _id(conn, "a")]) == {}


def test_a_side_that_never_names_the_other_makes_no_one_a_person(tmp_path: Path) -> None:
    """A user thanking 'Claude' whose assistant never names the user: 'claude' in a query is no one's turn."""
    conn = _project(tmp_path, [_message(0, "u", "Thanks, Claude! Now the hooks."),
                               _message(1, "a", "Here are the Claude Code hooks.", role="assistant"),
                               _message(2, "v", "Great, Claude!")]).conn
    assert speaker_names.named_turns(conn, ["claude", "hooks"], [_id(conn, k) for k in "uav"]) == {}


def test_forget_removes_the_names_a_forgotten_message_said(tmp_path: Path) -> None:
    """The only turns calling her Nadia are forgotten: her turns are no longer hers by that name."""
    projector = _project(tmp_path, _chat())
    conn = projector.conn
    projector.store.append([_forget(match="Nadia")])
    projector.catch_up()
    left = [i for (i,) in conn.execute("SELECT id FROM messages")]
    assert speaker_names.named_turns(conn, ["nadia"], left) == {}
    assert [r[4] for r in _rows(conn)] == ["Tomas"]


def test_rebuild_and_an_older_file_give_the_rows_of_the_incremental_path(tmp_path: Path) -> None:
    """Small batches, a streamed part that adds a name joined later, a forget in between: the same rows."""
    events = _chat()
    events.insert(3, _forget(match="Porto"))
    events += [_message(20, "u0", " See you, Tomas!"),  # later parts, joined to their messages:
               _message(21, "u1", " Speak soon, Tom!")]  # u1's names are recorded again
    projector = _project(tmp_path, events, batch=2)
    incremental = _rows(projector.conn)
    assert [r[4] for r in incremental if r[0] == _id(projector.conn, "u0")] == ["Tomas"]
    assert [r[4] for r in incremental if r[0] == _id(projector.conn, "u1")] == ["Tomas", "Tom"]
    assert "a0" not in {k for (k,) in projector.conn.execute("SELECT message_key FROM messages")}
    projector.rebuild()
    assert _rows(projector.conn) == incremental
    projector.conn.execute("DROP TABLE message_vocatives")
    assert speaker_names.named_turns(projector.conn, ["nadia"], [1, 2]) == {}  # a reader of an older file
    projector.close()
    again = Projector(projector.store, tmp_path / "projections.db", [MessagesProjection()])
    assert _rows(again.conn) == []  # opening writes nothing: the upgrade does
    again.upgrade()
    assert _rows(again.conn) == incremental
