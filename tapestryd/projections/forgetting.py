"""Forgetting in the messages projection: the rules a ``Forgotten`` event adds, and their effect.

A ``Forgotten`` event names one rule: a conversation key, an instant (everything before
it, ISO UTC), or a regular expression (Python :mod:`re` syntax, matched by the ``regex``
package, the engine the forget operation times a new pattern with, in the message
text as the projection stores it: private spans removed, secrets redacted). When it is
applied, the messages it covers are deleted (conversations left empty go with them; a
pattern also blanks the conversation titles it matches, now and when they arrive later), and
the rule is kept, so a message of a forgotten conversation that arrives later (a resumed
session, an old export imported again) is never stored either. Replaying the log applies
the same rules at the same positions, so a rebuild equals the incremental result.

Tables it owns (in ``projections.db``): ``forget_rules(seq, conversation, before, match)``, and
``forgotten_keys(conversation, message_key)``: the messages a rule deleted, so a later part of a
streamed reply (the same message key, text the rule may not match) is not stored as a new message.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

from tapestryd.db import in_chunks
from tapestryd.events.types import Forgotten

__all__ = ["ForgetRule", "apply_forgotten", "clear_rules", "compiled", "conversation_forgotten", "create_rules",
           "drop_message", "is_forgotten", "preview", "rules", "title_forgotten"]

_SCHEMA = ("CREATE TABLE IF NOT EXISTS forget_rules (seq INTEGER PRIMARY KEY, conversation TEXT NOT NULL,"
           " before TEXT NOT NULL, match TEXT NOT NULL)")
_KEYS = ("CREATE TABLE IF NOT EXISTS forgotten_keys (conversation TEXT NOT NULL, message_key TEXT NOT NULL,"
         " PRIMARY KEY (conversation, message_key))")


@dataclass(frozen=True)
class ForgetRule:
    """What one Forgotten event covers; empty fields do not narrow (all three empty: nothing)."""

    conversation: str = ""
    before: str = ""
    match: str = ""

    @classmethod
    def of(cls, event: Forgotten) -> ForgetRule:
        """The rule of a Forgotten event."""
        return cls(event.conversation, event.before, event.match)

    def covers(self, conversation: str, ts: str, text: str, matches: Callable[[str], bool] | None = None) -> bool:
        """Whether a message (conversation key, ISO UTC time, stored text) is forgotten by this rule; ``matches``
        tries the pattern on a text in its place (the forget operation's timed pattern)."""
        if not (self.conversation or self.before or self.match):
            return False
        return ((not self.conversation or conversation == self.conversation)
                and (not self.before or ts < self.before)
                and (not self.match or (matches(text) if matches else compiled(self.match).search(text) is not None)))


@lru_cache(maxsize=256)
def compiled(pattern: str) -> Any:
    """A rule's pattern compiled once by the ``regex`` package (``re``'s syntax: its V0 mode), a pattern object
    with ``search``; an invalid one (only an old log can hold it) matches nothing."""
    try:
        return regex.compile(pattern, regex.V0)
    except (regex.error, OverflowError):
        return regex.compile(r"(?!)")  # an invalid pattern in the log forgets nothing; the op refuses new ones


def create_rules(conn: sqlite3.Connection) -> None:
    """Create the ``forget_rules`` and ``forgotten_keys`` tables if missing."""
    conn.execute(_SCHEMA)
    conn.execute(_KEYS)


def clear_rules(conn: sqlite3.Connection) -> None:
    """Delete every rule and forgotten key (a rebuild replays them)."""
    conn.execute("DELETE FROM forget_rules")
    conn.execute("DELETE FROM forgotten_keys")


def rules(conn: sqlite3.Connection) -> list[ForgetRule]:
    """Every rule applied so far, in log order."""
    return [ForgetRule(*row) for row in conn.execute(
        "SELECT conversation, before, match FROM forget_rules ORDER BY seq")]


def is_forgotten(conn: sqlite3.Connection, conversation: str, ts: str, text: str, message_key: str = "") -> bool:
    """Whether any rule applied so far covers this message, or deleted the message of its key (``message_key``:
    a later part of a forgotten message is forgotten too, whatever its own text)."""
    if message_key and conn.execute("SELECT 1 FROM forgotten_keys WHERE conversation = ? AND message_key = ?",
                                    (conversation, message_key)).fetchone():
        return True
    return any(rule.covers(conversation, ts, text) for rule in rules(conn))


def conversation_forgotten(conn: sqlite3.Connection, key: str) -> bool:
    """Whether a rule forgets conversation ``key`` as a whole (its title included)."""
    return conn.execute("SELECT 1 FROM forget_rules WHERE conversation = ? AND before = '' AND match = ''",
                        (key,)).fetchone() is not None


def _covered(conn: sqlite3.Connection, rule: ForgetRule,
             matches: Callable[[str], bool] | None = None) -> list[tuple[int, str]]:
    """``(message id, conversation)`` of every stored message the rule covers (``matches``: as in
    :meth:`ForgetRule.covers`)."""
    where, params = [], []  # type: tuple[list[str], list[object]]
    if rule.conversation:
        where.append("conversation = ?")
        params.append(rule.conversation)
    if rule.before:
        where.append("ts < ?")
        params.append(rule.before)
    sql = "SELECT id, conversation, ts, text FROM messages" + (" WHERE " + " AND ".join(where) if where else "")
    return [(mid, conv) for mid, conv, ts, text in conn.execute(sql, params) if rule.covers(conv, ts, text, matches)]


def preview(conn: sqlite3.Connection, rule: ForgetRule,
            matches: Callable[[str], bool] | None = None) -> dict[str, object]:
    """What the rule would forget now: counts of messages and conversations, and up to 20 keys. ``matches``
    tries the rule's pattern on a text in its place (the forget operation passes one with a time limit)."""
    covered = _covered(conn, rule, matches)
    conversations = sorted({conv for _, conv in covered})
    return {"messages": len(covered), "conversations": len(conversations), "sample": conversations[:20]}


def apply_forgotten(conn: sqlite3.Connection, seq: int, event: Forgotten) -> int:
    """Record the event's rule and delete what it covers; returns how many messages went."""
    rule = ForgetRule.of(event)
    conn.execute("INSERT OR IGNORE INTO forget_rules VALUES (?, ?, ?, ?)",
                 (seq, rule.conversation, rule.before, rule.match))
    covered = _covered(conn, rule)
    for ids, marks in in_chunks([mid for mid, _ in covered]):
        if rule.match or rule.before:  # a conversation rule covers its later parts already
            conn.execute("INSERT OR IGNORE INTO forgotten_keys SELECT conversation, message_key FROM messages"
                         f" WHERE id IN ({marks})", ids)
        conn.execute(f"DELETE FROM messages WHERE id IN ({marks})", ids)
    _refresh_conversations(conn, {conv for _, conv in covered} | ({rule.conversation} - {""}))
    _blank_titles(conn, rule)
    # A conversation left with no message and no title is gone. Live, its messages went just now; replaying a
    # compacted log, they were never stored, and only its scrubbed (empty) title event had made the row.
    conn.execute("DELETE FROM conversations WHERE message_count = 0 AND title = ''")
    return len(covered)


def _blank_titles(conn: sqlite3.Connection, rule: ForgetRule) -> None:
    """A pattern rule also forgets the conversation titles it matches (summaries take their
    titles from here, so a forgotten word does not come back through them)."""
    if not rule.match or rule.before:
        return
    scope, params = (" AND key = ?", (rule.conversation,)) if rule.conversation else ("", ())
    for key, title in conn.execute(f"SELECT key, title FROM conversations WHERE title != ''{scope}", params).fetchall():
        if compiled(rule.match).search(title):
            conn.execute("UPDATE conversations SET title = '' WHERE key = ?", (key,))


def title_forgotten(conn: sqlite3.Connection, key: str, title: str) -> bool:
    """Whether a pattern rule (of conversation ``key`` or of every conversation) matches ``title``."""
    rows = conn.execute("SELECT match FROM forget_rules WHERE match != '' AND before = ''"
                        " AND conversation IN ('', ?)", (key,)).fetchall()
    return any(compiled(match).search(title) for (match,) in rows)


def drop_message(conn: sqlite3.Connection, conversation: str, message_key: str) -> None:
    """Delete one stored message (a forgotten part's earlier parts) and refresh its conversation."""
    conn.execute("DELETE FROM messages WHERE conversation = ? AND message_key = ?", (conversation, message_key))
    _refresh_conversations(conn, {conversation})


def _refresh_conversations(conn: sqlite3.Connection, keys: set[str]) -> None:
    """Recount what is left of each conversation; one with no message left is deleted."""
    for key in keys:
        count, first, last = conn.execute(
            "SELECT COUNT(*), MIN(ts), MAX(ts) FROM messages WHERE conversation = ?", (key,)).fetchone()
        if count:
            conn.execute("UPDATE conversations SET message_count = ?, first_ts = ?, last_ts = ? WHERE key = ?",
                         (count, first, last, key))
        else:
            conn.execute("DELETE FROM conversations WHERE key = ?", (key,))
