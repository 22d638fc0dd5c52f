"""The messages projection's reads: conversations and messages as the queries and operations see them.

Only this module, :mod:`tapestryd.projections.messages_search` and the projection itself hold SQL
on ``conversations``, ``messages`` and ``messages_fts`` (the tables are described in
:mod:`tapestryd.projections.messages`). Timestamps are ISO 8601 UTC text of fixed width, so text
order is time order; a range ``lo``..``hi`` given as such text is half-open unless said otherwise.
Every function raises StoreError (via :func:`~tapestryd.db.translate_errors`) on a database error.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

from tapestryd.db import translate_errors
from tapestryd.events.types import MessageRecorded

__all__ = ["CONVERSATION_COLUMNS", "MessageAt", "MessageScope", "agent_totals", "conversation_activity",
           "conversation_keys_ending", "conversation_messages", "conversation_of", "conversation_row",
           "conversation_titles", "conversations_by_ref", "conversations_in_range", "conversations_under",
           "day_messages", "document_count", "documents", "first_message_ts", "has_agent", "has_origin",
           "last_conversation_rowid",
           "machine_counts", "message_by_source", "message_counts", "message_row", "message_rows_of",
           "messages_with_titles", "neighbour_ids", "origin_sql", "recent_conversations", "role_counts",
           "scoped_messages", "stored_agents", "stored_ids", "stored_message_keys", "text_sizes", "timed_messages",
           "user_text"]

CONVERSATION_COLUMNS = ("key", "agent", "source", "title", "first_ts", "last_ts", "message_count", "session", "cwd",
                        "git_branch")
"""The columns of a conversation row as the listings give them, in order."""


@dataclass(frozen=True)
class MessageScope:
    """Which messages a context read keeps: ``roles`` (any of them), ``agent`` ('' for any),
    ``conversations`` (None for any; an empty set keeps none) and ``origin`` (the machine that
    captured them; '' for any)."""

    roles: tuple[str, ...]
    agent: str = ""
    conversations: frozenset[str] | None = None
    origin: str = ""

    def where(self) -> tuple[str, list[Any]]:
        """SQL conditions (each `` AND …`` on alias ``m`` of ``messages``) and their parameters."""
        clauses, params = [f"m.role IN ({','.join('?' * len(self.roles))})"], list(self.roles)
        if self.agent:
            clauses.append("m.agent = ?")
            params.append(self.agent)
        if self.origin:
            clauses.append("m.origin = ?")
            params.append(self.origin)
        if self.conversations is not None:
            clauses.append(f"m.conversation IN ({','.join('?' * len(self.conversations))})")
            params.extend(sorted(self.conversations))
        return "".join(f" AND {c}" for c in clauses), params


def _like_end(ref: str) -> str:
    """A LIKE pattern (escape ``\\``) for keys ending with ``ref``."""
    return "%" + ref.replace("%", "\\%").replace("_", "\\_")


def recent_conversations(conn: sqlite3.Connection, *, agent: str = "", limit: int) -> list[tuple[Any, ...]]:
    """Rows of :data:`CONVERSATION_COLUMNS`, the most recently active first (``last_ts``), at most ``limit``;
    ``agent`` ('' for all) keeps one agent."""
    where, params = (" WHERE agent = ?", [agent]) if agent else ("", [])
    with translate_errors(conn):
        return conn.execute(f"SELECT {', '.join(CONVERSATION_COLUMNS)} FROM conversations{where}"
                            " ORDER BY last_ts DESC LIMIT ?", (*params, limit)).fetchall()


def conversations_by_ref(conn: sqlite3.Connection, ref: str) -> list[tuple[Any, ...]]:
    """At most two rows of :data:`CONVERSATION_COLUMNS` whose key is ``ref`` or ends with it."""
    with translate_errors(conn):
        return conn.execute(f"SELECT {', '.join(CONVERSATION_COLUMNS)} FROM conversations"
                            " WHERE key = ? OR key LIKE ? ESCAPE '\\' LIMIT 2", (ref, _like_end(ref))).fetchall()


def conversation_keys_ending(conn: sqlite3.Connection, ref: str, limit: int) -> list[str]:
    """Up to ``limit`` conversation keys ending with ``ref``, in key order."""
    with translate_errors(conn):
        rows = conn.execute("SELECT key FROM conversations WHERE key LIKE ? ESCAPE '\\' ORDER BY key LIMIT ?",
                            (_like_end(ref), limit)).fetchall()
    return [str(r[0]) for r in rows]


def conversation_row(conn: sqlite3.Connection, key: str) -> tuple[Any, ...] | None:
    """``(key, agent, title, first_ts, last_ts, message_count)`` of conversation ``key``, or None."""
    with translate_errors(conn):
        row = conn.execute("SELECT key, agent, title, first_ts, last_ts, message_count FROM conversations"
                           " WHERE key = ?", (key,)).fetchone()
    return tuple(row) if row else None


def conversation_titles(conn: sqlite3.Connection, keys: list[str]) -> dict[str, str]:
    """Conversation key → title ('' when untitled) for the stored ones among ``keys``."""
    if not keys:
        return {}
    sql = f"SELECT key, title FROM conversations WHERE key IN ({','.join('?' * len(keys))})"
    with translate_errors(conn):
        return {str(key): str(title or "") for key, title in conn.execute(sql, keys)}


def conversations_under(conn: sqlite3.Connection, root: str, like: str) -> list[tuple[str, str]]:
    """``(key, agent)`` of the conversations whose cwd is ``root`` or matches LIKE pattern ``like``
    (escape ``\\``: the paths inside ``root``)."""
    with translate_errors(conn):
        rows = conn.execute("SELECT key, agent FROM conversations WHERE cwd = ? OR cwd LIKE ? ESCAPE '\\'",
                            (root, like)).fetchall()
    return [(str(k), str(a)) for k, a in rows]


def last_conversation_rowid(conn: sqlite3.Connection) -> int | None:
    """The highest rowid of ``conversations`` (None when empty): it moves when a conversation is added."""
    with translate_errors(conn):
        row = conn.execute("SELECT MAX(rowid) FROM conversations").fetchone()
    return None if row[0] is None else int(row[0])


def has_agent(conn: sqlite3.Connection, agent: str) -> bool:
    """Whether any conversation of ``agent`` is stored (one lookup that stops at the first); False
    when the tables do not exist yet."""
    rows = _unless_missing(conn, "SELECT 1 FROM conversations WHERE agent = ? LIMIT 1", (agent,))
    return bool(rows)


def stored_agents(conn: sqlite3.Connection) -> list[str]:
    """Every agent label with at least one conversation, sorted; none when the tables do not exist yet."""
    return [str(row[0]) for row in _unless_missing(conn, "SELECT DISTINCT agent FROM conversations ORDER BY agent")]


def _unless_missing(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The rows of ``sql``; none when the projection's tables do not exist (a home never projected)."""
    with translate_errors(conn):
        try:
            return conn.execute(sql, params).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise


def agent_totals(conn: sqlite3.Connection) -> list[tuple[str, int, int | None, str | None, str | None]]:
    """Per agent: ``(agent, conversations, messages (None when no row counts), first_ts, last_ts)``."""
    with translate_errors(conn):
        return conn.execute("SELECT agent, COUNT(*), SUM(message_count), MIN(first_ts), MAX(last_ts)"
                            " FROM conversations GROUP BY agent").fetchall()


def role_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """How many messages each role has."""
    with translate_errors(conn):
        return dict(conn.execute("SELECT role, COUNT(*) FROM messages GROUP BY role").fetchall())


def message_counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """``(conversations, messages)`` stored."""
    with translate_errors(conn):
        conversations = conn.execute("SELECT COUNT(*) FROM conversations").fetchone()[0]
        messages = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    return int(conversations), int(messages)


def has_origin(conn: sqlite3.Connection, origin: str) -> bool:
    """Whether any message was captured on machine ``origin`` (one lookup on the ``messages(origin)``
    index); True in a file the projector has not given origins yet (it cannot tell)."""
    if origin_sql(conn) != "m.origin":
        return True
    return bool(_unless_missing(conn, "SELECT 1 FROM messages WHERE origin = ? LIMIT 1", (origin,)))


def machine_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Messages stored per machine that captured them (origin → messages, most first; ties by name), read
    from the ``messages(origin)`` index; empty in a file the projector has not given origins yet."""
    if origin_sql(conn) != "m.origin":
        return {}
    with translate_errors(conn):
        rows = conn.execute("SELECT origin, COUNT(*) FROM messages GROUP BY origin").fetchall()
    return dict(sorted(((str(o), int(n)) for o, n in rows), key=lambda item: (-item[1], item[0])))


def first_message_ts(conn: sqlite3.Connection) -> str | None:
    """The earliest message timestamp (ISO UTC), None when no message is stored."""
    with translate_errors(conn):
        row = conn.execute("SELECT MIN(ts) FROM messages").fetchone()
    return str(row[0]) if row and row[0] else None


def stored_message_keys(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    """``(conversation, message key)`` of every stored message."""
    with translate_errors(conn):
        return {(str(c), str(k)) for c, k in conn.execute("SELECT conversation, message_key FROM messages")}


def conversation_messages(conn: sqlite3.Connection, key: str) -> list[tuple[Any, ...]]:
    """``(id, message_key, role, ts, text, model, sidechain)`` of conversation ``key``'s messages in log order."""
    with translate_errors(conn):
        return conn.execute("SELECT id, message_key, role, ts, text, model, sidechain FROM messages"
                            " WHERE conversation = ? ORDER BY id", (key,)).fetchall()


def day_messages(conn: sqlite3.Connection, conversation: str, lo: str, hi: str) -> list[tuple[Any, ...]]:
    """``(id, role, ts, text, model)`` of ``conversation``'s messages with ``lo <= ts < hi``, by time then id."""
    with translate_errors(conn):
        return conn.execute("SELECT id, role, ts, text, model FROM messages WHERE conversation = ? AND ts >= ?"
                            " AND ts < ? ORDER BY ts, id", (conversation, lo, hi)).fetchall()


def conversation_of(conn: sqlite3.Connection, message_id: int) -> str | None:
    """The conversation key of message ``message_id``, None when it is not stored."""
    with translate_errors(conn):
        row = conn.execute("SELECT conversation FROM messages WHERE id = ?", (message_id,)).fetchone()
    return None if row is None else str(row[0])


def neighbour_ids(conn: sqlite3.Connection, conversation: str, message_id: int, before: int,
                  after: int) -> tuple[list[int], list[int]]:
    """The ids of up to ``before`` messages of ``conversation`` just before ``message_id`` (nearest first)
    and up to ``after`` just after it (nearest first), by id."""
    with translate_errors(conn):
        earlier = conn.execute("SELECT id FROM messages WHERE conversation = ? AND id < ? ORDER BY id DESC LIMIT ?",
                               (conversation, message_id, before)).fetchall()
        later = conn.execute("SELECT id FROM messages WHERE conversation = ? AND id > ? ORDER BY id LIMIT ?",
                             (conversation, message_id, after)).fetchall()
    return [int(r[0]) for r in earlier], [int(r[0]) for r in later]


def messages_with_titles(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[Any, ...]]:
    """``(id, conversation, title, agent, role, ts, text)`` of the stored ones among ``ids``, by id."""
    if not ids:
        return []
    with translate_errors(conn):
        return conn.execute(
            "SELECT m.id, m.conversation, c.title, m.agent, m.role, m.ts, m.text FROM messages m"
            f" JOIN conversations c ON c.key = m.conversation WHERE m.id IN ({','.join('?' * len(ids))}) ORDER BY m.id",
            ids).fetchall()


def message_by_source(conn: sqlite3.Connection, source: str) -> tuple[Any, ...] | None:
    """``(id, conversation, message_key, role, ts, text)`` of the message a node source names (a message id,
    or ``conversation/message key``), None when it is not stored."""
    columns = "SELECT id, conversation, message_key, role, ts, text FROM messages"
    with translate_errors(conn):
        if source.isdigit():
            row = conn.execute(f"{columns} WHERE id = ?", (int(source),)).fetchone()
        else:
            conversation, _, message_key = source.rpartition("/")
            row = conn.execute(f"{columns} WHERE conversation = ? AND message_key = ?",
                               (conversation, message_key)).fetchone()
    return None if row is None else tuple(row)


def user_text(conn: sqlite3.Connection, conversation: str, *, last: bool) -> str | None:
    """The text of ``conversation``'s first (or ``last``) non-empty user message by time, or None."""
    order = "DESC" if last else ""
    with translate_errors(conn):
        row = conn.execute("SELECT text FROM messages WHERE conversation = ? AND role = 'user' AND text != ''"
                           f" ORDER BY ts {order} LIMIT 1", (conversation,)).fetchone()
    return None if row is None else str(row[0])


def conversation_activity(conn: sqlite3.Connection, lo: str, hi: str, scope: MessageScope,
                         limit: int) -> list[tuple[Any, ...]]:
    """The ``limit`` conversations with messages in ``scope`` (not in a sidechain) with ``lo <= ts < hi``,
    the most recently active first: ``(key, title, agent, messages, first ts, last ts, session)`` each."""
    where, params = scope.where()
    sql = ("SELECT a.conversation, c.title, c.agent, a.n, a.first, a.last, c.session FROM"
           " (SELECT m.conversation, COUNT(*) AS n, MIN(m.ts) AS first, MAX(m.ts) AS last FROM messages m"
           f" WHERE m.ts >= ? AND m.ts < ? AND m.sidechain = 0{where} GROUP BY m.conversation"
           " ORDER BY last DESC LIMIT ?) a JOIN conversations c ON c.key = a.conversation ORDER BY a.last DESC")
    with translate_errors(conn):
        return conn.execute(sql, (lo, hi, *params, limit)).fetchall()


def origin_sql(conn: sqlite3.Connection) -> str:
    """``m.origin`` (alias ``m`` of ``messages``), or ``''`` in a file the projector has not given origins
    yet (a read-only reader before any writer opened it)."""
    with translate_errors(conn):
        found = conn.execute("SELECT 1 FROM pragma_table_info('messages') WHERE name = 'origin'").fetchone()
    return "m.origin" if found else "''"


def scoped_messages(conn: sqlite3.Connection, lo: str, hi: str, scope: MessageScope,
                    limit: int) -> list[tuple[Any, ...]]:
    """The ``limit`` newest non-empty messages in ``scope`` (not in a sidechain) with ``lo <= ts <= hi``
    (both ends included), newest first: ``(id, conversation, message_key, agent, role, ts, text, title, origin)``."""
    where, params = scope.where()
    sql = (f"SELECT m.id, m.conversation, m.message_key, m.agent, m.role, m.ts, m.text, c.title, {origin_sql(conn)}"
           " FROM messages m"
           " JOIN conversations c ON c.key = m.conversation"
           f" WHERE m.ts >= ? AND m.ts <= ? AND m.sidechain = 0 AND m.text != ''{where}"
           " ORDER BY m.ts DESC LIMIT ?")
    with translate_errors(conn):
        return conn.execute(sql, (lo, hi, *params, limit)).fetchall()


def conversations_in_range(conn: sqlite3.Connection, lo: str, hi: str, *, agent: str = "",
                           limit: int) -> list[tuple[Any, ...]]:
    """The first ``limit`` conversations (by first message) with messages ``lo <= ts < hi`` (of ``agent``
    when given): ``(key, title, agent, messages, first ts, last ts, how many conversations in all)``."""
    where, params = (" AND m.agent = ?", [agent]) if agent else ("", [])
    sql = ("SELECT m.conversation, c.title, c.agent, COUNT(*), MIN(m.ts), MAX(m.ts), COUNT(*) OVER () FROM messages m"
           f" JOIN conversations c ON c.key = m.conversation WHERE m.ts >= ? AND m.ts < ?{where}"
           " GROUP BY m.conversation ORDER BY MIN(m.ts) LIMIT ?")
    with translate_errors(conn):
        return conn.execute(sql, (lo, hi, *params, limit)).fetchall()


_CHUNK = 8192  # ids per IN (...) lookup, under SQLite's 32,766 bound parameters


def timed_messages(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[int, str, str, str]]:
    """``(id, role, ts, text)`` of the stored ones among ``ids``, in time order (ts, then id)."""
    rows: list[tuple[int, str, str, str]] = []
    with translate_errors(conn):
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start:start + _CHUNK]
            rows += conn.execute(f"SELECT id, role, ts, text FROM messages WHERE id IN ({','.join('?' * len(chunk))})",
                                 chunk).fetchall()
    return sorted(rows, key=lambda r: (r[2], r[0]))


def stored_ids(conn: sqlite3.Connection, ids: Iterable[int]) -> set[int]:
    """The ids among ``ids`` whose message is stored."""
    wanted, found = sorted(set(ids)), set[int]()
    with translate_errors(conn):
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            found.update(int(r[0]) for r in conn.execute(
                f"SELECT id FROM messages WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return found


def text_sizes(conn: sqlite3.Connection, ids: list[int]) -> tuple[int, int]:
    """``(messages, characters of their texts)`` over the stored ones among ``ids``."""
    count, chars = 0, 0
    with translate_errors(conn):
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start:start + _CHUNK]
            n, c = conn.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(text)), 0) FROM messages"
                                f" WHERE id IN ({','.join('?' * len(chunk))})", chunk).fetchone()
            count, chars = count + int(n), chars + int(c)
    return count, chars


_DOCUMENTS = "SELECT id, text, agent, role, ts, conversation FROM messages WHERE text != ''"


def document_count(conn: sqlite3.Connection) -> int:
    """How many messages have text (the documents the similarity index reads)."""
    with translate_errors(conn):
        return int(conn.execute("SELECT COUNT(*) FROM messages WHERE text != ''").fetchone()[0])


def documents(conn: sqlite3.Connection, ids: list[int] | None = None, *,
              chunk: int = 900) -> Iterator[tuple[int, str, str, str, str, str]]:
    """``(id, text, agent, role, ts, conversation)`` of the messages with text: every one by id when ``ids``
    is None, else those among ``ids`` (looked up ``chunk`` ids at a time, in no particular order)."""
    with translate_errors(conn):
        if ids is None:
            yield from conn.execute(f"{_DOCUMENTS} ORDER BY id")
            return
        for start in range(0, len(ids), chunk):
            some = ids[start:start + chunk]
            yield from conn.execute(f"{_DOCUMENTS} AND id IN ({','.join('?' * len(some))})", some)


MessageAt = tuple[int, str, int]
"""Where a message row is: ``(id, ts ISO UTC of its first part, log seq of its first part)``."""


def message_row(conn: sqlite3.Connection, msg: MessageRecorded) -> MessageAt | None:
    """``(id, ts, seq)`` of ``msg``'s stored message row (its first part's ts and log seq), None when it is
    not stored: how the hierarchy and the similarity feed, applied after the messages projection in
    the same transaction, find the row an event made (a lookup in the unique (conversation, key) index)."""
    row: MessageAt | None = conn.execute(
        "SELECT id, ts, seq FROM messages WHERE conversation = ? AND message_key = ?",
        (msg.conversation, msg.message)).fetchone()
    return row


def message_rows_of(conn: sqlite3.Connection, msgs: Sequence[MessageRecorded]) -> dict[tuple[str, str], MessageAt]:
    """:func:`message_row` for many events in one statement: ``(conversation, message key)`` →
    ``(id, ts, seq)`` of each stored row among ``msgs`` (a projection's whole batch costs one
    statement whose lookups run in SQLite, instead of a Python round trip per message)."""
    keys = list(dict.fromkeys((m.conversation, m.message) for m in msgs))
    if not keys:
        return {}
    rows = conn.execute(
        "SELECT m.conversation, m.message_key, m.id, m.ts, m.seq FROM json_each(?) j JOIN messages m"
        " ON m.conversation = json_extract(j.value, '$[0]') AND m.message_key = json_extract(j.value, '$[1]')",
        (json.dumps(keys),))
    return {(str(c), str(k)): (int(i), str(ts), int(seq)) for c, k, i, ts, seq in rows}
