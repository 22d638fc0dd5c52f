"""Text FTS5 cannot split into words (Chinese, Japanese, Thai, Korean) and emoji (which unicode61 drops)
are found by substring over the messages listed in ``messages_unsplit``; Latin queries keep their FTS5 path."""

from __future__ import annotations

import sqlite3
from datetime import datetime

import pytest
from query_helpers import PARIS, History

from tapestryd.config import load_settings
from tapestryd.events import (
    Event,
    Forgotten,
    MessageRecorded,
    NewEvent,
    event_id,
    format_utc,
)
from tapestryd.operations.runtime import Runtime
from tapestryd.paths import paths_for
from tapestryd.projections.unsplit import has_unsplit
from tapestryd.projections.messages_search import ranked_ids
from tapestryd.queries.reader import Reader
from tapestryd.queries.rerank import KeywordRanker
from tapestryd.queries.search import SearchFilters, fts_expression, fts_ranking, search, search_messages

NOW = datetime(2026, 3, 5, 12, 0, tzinfo=PARIS)


def day(d: int, hour: int = 10) -> datetime:
    return datetime(2026, 3, d, hour, tzinfo=PARIS)


@pytest.fixture
def reader(history: History) -> Reader:
    history.message("claude-ai:hike", day(1), "我喜欢在周末去爬山", agent="claude")
    history.message("claude-ai:hike", day(1, 11), "周末爬山 on the weekends is my favourite", agent="claude",
                    role="assistant")
    history.message("chatgpt:party", day(2), "Party time 🎉", agent="chatgpt")
    history.message("chatgpt:party", day(2, 11), "I ❤ this song", agent="chatgpt")
    history.message("chatgpt:tokyo", day(3), "東京で寿司を食べた", agent="chatgpt")
    history.message("chatgpt:tokyo", day(3, 11), "ฉันชอบกินข้าวผัดมาก", agent="chatgpt")
    history.message("chatgpt:sale", day(3, 12), "50%オフ a_b東京", agent="chatgpt")
    history.message("chatgpt:sale", day(3, 13), "50 yen オフ axb東京", agent="chatgpt")
    history.message("claude-code:py", day(4), "python weekend hiking plans", cwd="/p")
    history.message("claude-code:py", day(4, 11), "the python tool call returned a traceback", cwd="/p")
    history.message("claude-code:py", day(4, 12), "plans for the weekend: hiking, then python", cwd="/p")
    history.commit()
    return Reader.open(load_settings(history.settings.home))


def texts(result: dict) -> list[str]:
    """Snippets of the messages that match (turns only next to a match left out)."""
    return [h["snippet"] for h in result["hits"] if h["kind"] == "message" and not h["extra"].get("next_to_match")]


def found(reader: Reader, query: str, **filters: object) -> list[str]:
    return texts(search(reader, query, SearchFilters(**filters), now=NOW))  # type: ignore[arg-type]


def test_a_word_inside_a_cjk_run_is_found_though_fts5_misses_it(reader: Reader) -> None:
    """FTS5 keeps 我喜欢在周末去爬山 as one token; the substring fallback finds 爬山 in it."""
    assert fts_ranking(reader, "爬山") == []
    assert found(reader, "爬山") == ["周末[爬山] on the weekends is my favourite", "我喜欢在周末去[爬山]"]
    assert found(reader, "寿司") == ["東京で[寿司]を食べた"]
    assert found(reader, "ข้าวผัด") == ["ฉันชอบกิน[ข้าวผัด]มาก"]


def test_emoji_are_found_and_a_variation_selector_is_ignored(reader: Reader) -> None:
    assert found(reader, "🎉") == ["Party time [🎉]"]
    assert found(reader, "❤\ufe0f") == ["I [❤] this song"]
    assert found(reader, '"🎉"?') == ["Party time [🎉]"]


def test_percent_and_underscore_are_matched_literally(reader: Reader) -> None:
    assert found(reader, "50%オフ") == ["[50%オフ] a_b東京"]
    assert found(reader, "a_b東京") == ["50%オフ [a_b東京]"]


def test_mixed_queries_require_every_term_latin_words_through_fts5_stems(reader: Reader) -> None:
    """爬山 by substring, 'weekend' through FTS5 (so it finds 'weekends'), intersected by id."""
    assert found(reader, "爬山 weekend") == ["周末[爬山] on the weekends is my favourite"]
    assert found(reader, "爬山 python") == []
    assert found(reader, "爬山 周末去") == ["我喜欢在[周末去]爬山"]  # the snippet is cut around the first hit


def test_filters_apply_to_substring_hits(reader: Reader) -> None:
    assert found(reader, "爬山", role="assistant") == ["周末[爬山] on the weekends is my favourite"]
    assert found(reader, "爬山", agent="chatgpt") == []
    assert found(reader, "東京", conversation="sale") == ["50 yen オフ axb[東京]", "50%オフ a_b[東京]"]
    assert found(reader, "東京", since=day(3, 12), until=day(3, 13)) == ["50%オフ a_b[東京]"]
    later = search(reader, "東京 since 2026-03-04", SearchFilters(), now=NOW)  # none since: the others, marked
    assert later["hits"] and all(h["extra"].get("outside_range") for h in later["hits"])


def test_hits_are_newest_first_with_either_sort(reader: Reader) -> None:
    for sort in ("relevance", "time"):
        hits = search(reader, "東京", now=NOW, sort=sort)["hits"]
        assert [h["ts"] for h in hits] == sorted((h["ts"] for h in hits), reverse=True) and len(hits) == 3
        assert {h["score"] for h in hits} == {0.0}


def test_latin_queries_keep_the_fts5_ranking(reader: Reader) -> None:
    """Latin-only queries never reach the substring path: the hits are FTS5's, in BM25 order with BM25 scores."""
    for query in ("python", "weekend hiking", "tool traceback", "python plans"):
        ranked = ranked_ids(reader.conn, fts_expression(query, any_term=True), SearchFilters(), 20, "relevance")
        hits = search_messages(reader, query, ranker=KeywordRanker(neighbour=0, session=0, block=0, window=0))
        assert [(h.id, h.score) for h in hits] == ranked and ranked and all(s < 0 for _, s in ranked)
    assert found(reader, "weekend hiking") == ["python [weekend] [hiking] plans",
                                               "plans for the [weekend]: [hiking], then python",
                                               "周末爬山 on the [weekends] is my favourite"]  # any-word fill, as before


def test_only_messages_with_unsplit_text_are_listed(reader: Reader) -> None:
    rows = reader.conn.execute("SELECT m.text FROM messages_unsplit u JOIN messages m ON m.id = u.id").fetchall()
    assert len(rows) == 8 and all(has_unsplit(t) for (t,) in rows)
    others = reader.conn.execute("SELECT text FROM messages WHERE id NOT IN (SELECT id FROM messages_unsplit)")
    assert [t for (t,) in others if has_unsplit(t)] == []


def append(history: History, *events: Event) -> None:
    """Append events (payloads) to the log and project them, one batch each."""
    with Runtime.open(history.settings) as runtime:
        for i, body in enumerate(events):
            key = str(history.count + i)
            runtime.store.append([NewEvent(event_id("unsplit", key), body, NOW, "chatgpt", f"x#{key}")])
            runtime.projector.catch_up()
    history.count += len(events)


def unsplit_ids(history: History) -> list[int]:
    with sqlite3.connect(paths_for(history.settings).projections_db) as conn:
        return [i for (i,) in conn.execute("SELECT id FROM messages_unsplit ORDER BY id")]


def test_forgetting_removes_messages_from_the_side_table(reader: Reader, history: History) -> None:
    before = len(unsplit_ids(history))
    append(history, Forgotten(conversation="chatgpt:party"), Forgotten(match="寿司"))
    assert len(unsplit_ids(history)) == before - 3
    fresh = Reader.open(history.settings)
    assert texts(search(fresh, "🎉", now=NOW)) == [] and texts(search(fresh, "寿司", now=NOW)) == []
    assert found(fresh, "爬山") != []


def test_a_later_part_with_cjk_lists_its_message_and_rebuild_equals_incremental(history: History) -> None:
    ts = format_utc(day(1))
    append(history, MessageRecorded("chatgpt:parts", "a", "assistant", "Hello", ts),
           MessageRecorded("chatgpt:parts", "a", "assistant", "你好世界", ts),
           MessageRecorded("chatgpt:parts", "b", "user", "plain", ts),
           MessageRecorded("chatgpt:parts", "c", "user", "bye 👋", ts), Forgotten(match="bye"))
    incremental = unsplit_ids(history)
    reader = Reader.open(history.settings)
    assert texts(search(reader, "世界", now=NOW)) == ["Hello 你好[世界]"] and len(incremental) == 1
    with Runtime.open(history.settings) as runtime:
        runtime.projector.rebuild()
    assert unsplit_ids(history) == incremental


def test_a_file_made_before_the_side_table_is_searched_then_back_filled_once(reader: Reader,
                                                                              history: History) -> None:
    """Without the table a read-only search scans every message (same hits); the projector fills it on open."""
    expected = unsplit_ids(history)
    db = paths_for(history.settings).projections_db
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER messages_unsplit_ad")
        conn.execute("DROP TABLE messages_unsplit")
    old = Reader.open(history.settings)
    assert found(old, "爬山") == found(reader, "爬山") and found(old, "🎉") == ["Party time [🎉]"]
    with Runtime.open(history.settings):
        pass
    assert unsplit_ids(history) == expected
    append(history, Forgotten(conversation="chatgpt:party"))
    assert len(unsplit_ids(history)) == len(expected) - 2
