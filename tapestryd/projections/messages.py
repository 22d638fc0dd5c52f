"""The messages projection: conversations, messages, and an FTS5 index ranked by BM25.

Tables it owns (in ``projections.db``):

* ``conversations(key, agent, source, title, first_ts, last_ts, message_count, session,
  cwd, git_branch, title_updated, title_rank)``: one row per conversation key;
  ``title_updated`` is the source's update time of the title shown (ISO UTC, ``''``
  unknown) and ``title_rank`` the precedence of its kind (index in
  :data:`~tapestryd.events.types.TITLE_KINDS`, -1 while untitled). A title of a higher
  kind replaces one of a lower kind, never the reverse (a first-prompt stand-in never
  replaces a session's own title). Between titles of one kind, a title with a known time
  replaces one with an earlier or unknown time, never a later one, so the newest export's
  title wins whatever the import order; a title of unknown time replaces only one of
  unknown time (the later in the log wins, as before the time was kept).
* ``messages(id, conversation, message_key, seq, agent, role, ts, text, model, session,
  sidechain, skipped, meta, parts, origin)``: one row per (conversation, message_key); ``seq``,
  ``ts`` and ``origin`` (the machine that captured it) are its first part's. Parts of a streamed
  reply that share a key are joined in log order, each block once
  (:func:`~tapestryd.projections.message_parts.join_parts`), and the joined verbatim text, read
  back from the log, is filtered as a whole. ``parts`` lists the log seqs of the parts after the
  first (space-separated; NULL in a file made before it was kept: such a row's later parts are
  joined to its stored text, filtered one by one). A part whose ``meta.replaces`` is true is the
  whole message again (a source that rewrites a record when it is edited: Gemini CLI, OpenCode):
  its filtered text and skipped counts replace the stored ones (the last version wins) and
  ``parts`` becomes ``=<its seq>``: later parts are joined after that version, not after the
  first part.
* ``messages_fts``: an external-content FTS5 table over ``messages.text`` (porter stemmer
  over unicode61), kept in step by this projection (texts stored during a batch are
  indexed together, in id order, by :meth:`MessagesProjection.flush` before the runner
  commits) and by a delete trigger; ``bm25(messages_fts)`` ranks matches.
* ``messages_unsplit(id)``: the messages whose text holds characters FTS5 cannot find
  words in (CJK, kana, hangul, Thai, emoji: :mod:`tapestryd.projections.unsplit`),
  recorded at the same flush, emptied with the messages and kept in step by a delete
  trigger; a file made before it gets it filled by one scan when the projector opens it.
* ``message_vocatives``: the names each message calls the other side ("Hey Mel!"), so
  search can tell whose turn a question names (:mod:`tapestryd.projections.speaker_names`),
  recorded at the same flush, again when a text changes, kept in step by a delete trigger;
  a file made before it gets it filled in the background (see ``messages_backfill``).
* ``windows_fts_<n>``, ``windows_indexed``, ``windows_stale``: each message indexed with the turns
  before and after it (:mod:`tapestryd.projections.windows`), written at the same flush with
  its neighbours', and again when a neighbour changes or goes; filled in the background for an older file.
* ``conversation_blocks``, ``block_members``, ``blocks_fts_<n>``: runs of up to 64 of a
  conversation's messages indexed as one document (:mod:`tapestryd.projections.blocks`),
  filed and indexed at the same flush, a block written again when a message of it changes
  or goes; a block that only grew may wait until the projector settles (:meth:`MessagesProjection.settle`);
  a file made before them gets them filled in the background.
* ``messages_backfill``: what a file made by an older version still lacks of the three above, written
  :data:`~tapestryd.projections.backfill.CHUNK` messages at a time by :meth:`MessagesProjection.upgrade_step`
  (:mod:`tapestryd.projections.backfill`); search ranks with what is written so far.

Timestamps (``ts``, ``first_ts``, ``last_ts``) are ISO 8601 UTC text of fixed width, so
text order is time order.

Text and titles are stored as they may leave the log (:func:`tapestryd.privacy.outbound`:
private spans removed, secrets redacted), so no query, snippet or summary built from
these rows can show them; the log keeps the verbatim text. ``Forgotten`` events delete
what they cover and keep covering later messages (:mod:`tapestryd.projections.forgetting`);
a compacted message (``meta.forgotten``, see :mod:`tapestryd.operations.compact`) is never stored.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Mapping, Sequence, cast

from tapestryd.events.store import EventStore
from tapestryd.events.types import TITLE_KINDS, ConversationTitled, Forgotten, MessageRecorded, StoredEvent
from tapestryd.privacy import outbound
from tapestryd.projections import backfill, blocks, forgetting, fts_options, speaker_names, unsplit, windows
from tapestryd.projections.message_parts import join_parts

__all__ = ["MessagesProjection"]

_SCHEMA = [
    """CREATE TABLE IF NOT EXISTS conversations (
        key TEXT PRIMARY KEY, agent TEXT NOT NULL, source TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',
        first_ts TEXT, last_ts TEXT, message_count INTEGER NOT NULL DEFAULT 0,
        session TEXT NOT NULL DEFAULT '', cwd TEXT NOT NULL DEFAULT '', git_branch TEXT NOT NULL DEFAULT '',
        title_updated TEXT NOT NULL DEFAULT '', title_rank INTEGER NOT NULL DEFAULT -1)""",
    """CREATE TABLE IF NOT EXISTS messages (
        id INTEGER PRIMARY KEY, conversation TEXT NOT NULL, message_key TEXT NOT NULL, seq INTEGER NOT NULL,
        agent TEXT NOT NULL, role TEXT NOT NULL, ts TEXT NOT NULL, text TEXT NOT NULL, model TEXT NOT NULL,
        session TEXT NOT NULL, sidechain INTEGER NOT NULL, skipped TEXT NOT NULL, meta TEXT NOT NULL, parts TEXT,
        origin TEXT NOT NULL DEFAULT '', UNIQUE (conversation, message_key))""",
    "CREATE INDEX IF NOT EXISTS messages_ts ON messages(ts)",
    "CREATE INDEX IF NOT EXISTS messages_conversation_ts ON messages(conversation, ts)",
    "CREATE INDEX IF NOT EXISTS conversations_last_ts ON conversations(last_ts)",
    # Search's title lookup (messages_search.titled_openings) scans this instead of every conversation's row:
    # only titled conversations, title alone; a message's last_ts or count update leaves it untouched.
    "CREATE INDEX IF NOT EXISTS conversations_titled ON conversations(title) WHERE title != ''",
    """CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
        text, content='messages', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
        INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text); END""",
    # Inserts and text updates reach the index through explicit statements (flush, _join_part):
    # FTS5 written from a trigger flushes its buffer on every row, which made ingest ~3x slower.
    # Files made before that still have the triggers; dropping them keeps rows from being indexed twice.
    "DROP TRIGGER IF EXISTS messages_ai",
    "DROP TRIGGER IF EXISTS messages_au",
]

_FTS_OPTIONS = {"hashsize": 64 * 1024 * 1024, "automerge": 8}
"""FTS5 options of ``messages_fts`` (https://sqlite.org/fts5.html#fts5_configuration_options):
``hashsize``, bytes of pending terms held in memory before they are written as a level-0
segment (the default of 1 MiB wrote a 5,000-event catch-up batch of ~5 MB of text as many small
segments to merge); ``automerge``, segments of one level that are merged (default 4), so bulk
loads rewrite the index fewer times. Segment layout changes; matches and ranks do not.
200 MB ChatGPT export: projector CPU 12.2 -> 11.1 s (hashsize), commits 2.4 -> 2.0 s (automerge)."""


class MessagesProjection:
    """Conversations and messages with full-text search (see the module docstring)."""

    name = "messages"
    types: tuple[str, ...] = (MessageRecorded.type, ConversationTitled.type, Forgotten.type)

    def __init__(self) -> None:
        self._unindexed: dict[int, str] = {}  # message id → its text, stored but not yet in messages_fts
        self._unfiled: dict[int, str] = {}  # message id → its conversation, stored but not yet in a block
        # message id → its verbatim joined text, for the rows this batch stored or joined to: a later part
        # in the same batch (a streamed reply's parts are neighbours in the log) reads no event back.
        self._verbatim: dict[int, str] = {}
        self._ids: dict[tuple[str, str], int] = {}  # (conversation, message key) → id, of the rows stored this batch
        self._changed: dict[int, _Change] = {}  # message id → its text change this batch, written at the batch's end
        self._log: EventStore | None = None

    def attach_log(self, store: EventStore) -> None:
        """Read earlier parts' verbatim texts from ``store`` when joining a part (the projector calls it)."""
        self._log = store

    def __getstate__(self) -> dict[str, object]:
        """Picklable state (for the follower child, which attaches its own log): no log, no batch buffers."""
        return {**self.__dict__, "_log": None, "_unindexed": {}, "_unfiled": {}, "_verbatim": {}, "_ids": {},
                "_changed": {}}

    def create(self, conn: sqlite3.Connection) -> None:
        """Create the tables, indexes, FTS5 table and triggers if missing; set the FTS5 options."""
        for statement in _SCHEMA:
            conn.execute(statement)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(conversations)")}
        if "title_updated" not in columns:  # a file made before titles kept their time
            conn.execute("ALTER TABLE conversations ADD COLUMN title_updated TEXT NOT NULL DEFAULT ''")
        if "title_rank" not in columns:  # a file made before titles had kinds: every title there ranks as ""
            conn.execute("ALTER TABLE conversations ADD COLUMN title_rank INTEGER NOT NULL DEFAULT -1")
            conn.execute("UPDATE conversations SET title_rank = 1 WHERE title != ''")
        message_columns = {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
        if "parts" not in message_columns:
            conn.execute("ALTER TABLE messages ADD COLUMN parts TEXT")  # NULL: parts unknown (see the module doc)
        if "origin" not in message_columns:
            conn.execute("ALTER TABLE messages ADD COLUMN origin TEXT NOT NULL DEFAULT ''")
            self._fill_origins(conn)
        conn.execute("CREATE INDEX IF NOT EXISTS messages_origin ON messages(origin)")  # status counts per machine
        forgetting.create_rules(conn)
        if unsplit.create_table(conn):  # one scan: it decides what unsplit text matches, so it is not left half done
            unsplit.backfill(conn)
        backfill.create_table(conn)
        # A file made before one of these tables (or with windows of another cut) gets it written a chunk at a
        # time by upgrade_step, not here: the daemon's socket opens at once (see projections.backfill).
        made = {"speaker names": speaker_names.create_table(conn), "blocks": blocks.create_tables(conn),
                "windows": windows.create_tables(conn)}
        for part in (part for part, new in made.items() if new):
            backfill.plan(conn, part)
        fts_options.configure(conn, "messages_fts", _FTS_OPTIONS)

    def upgrade_step(self, conn: sqlite3.Connection) -> bool:
        """Write one chunk of what a file made by an older version lacks (:func:`backfill.step`), in the
        caller's transaction; returns whether more is left."""
        return backfill.step(conn)

    def _fill_origins(self, conn: sqlite3.Connection) -> None:
        """Give the rows of a file made before origins the origin of their first part's event, as a rebuild
        would (one UPDATE when the log holds one machine's events, the usual case)."""
        if self._log is None:
            return
        machines = self._log.origins()
        if len(machines) == 1:
            conn.execute("UPDATE messages SET origin = ?", (next(iter(machines)),))
        elif machines:
            conn.execute("CREATE TEMP TABLE seq_origins (seq INTEGER PRIMARY KEY, origin TEXT NOT NULL)")
            conn.executemany("INSERT INTO seq_origins VALUES (?, ?)",
                             ((e.seq, e.origin) for e in self._log.read(types=(MessageRecorded.type,))))
            conn.execute("UPDATE messages SET origin = COALESCE((SELECT origin FROM seq_origins s"
                         " WHERE s.seq = messages.seq), '')")
            conn.execute("DROP TABLE seq_origins")

    def clear(self, conn: sqlite3.Connection) -> None:
        """Delete every conversation and message (the FTS index follows through triggers)."""
        self.discard()
        blocks.clear(conn)  # first: the delete triggers then find no member and no window to take out
        windows.clear(conn)
        backfill.clear(conn)
        conn.execute("DELETE FROM messages")
        conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('delete-all')")
        conn.execute("DELETE FROM messages_unsplit")
        speaker_names.clear(conn)
        conn.execute("DELETE FROM conversations")
        forgetting.clear_rules(conn)

    def apply(self, conn: sqlite3.Connection, event: StoredEvent) -> None:
        """Record a message (or join a part to its message), set a conversation's title, or forget."""
        payload = event.event
        if isinstance(payload, MessageRecorded):
            self._record(conn, event, payload)
            self._write_changes(conn)  # the projections after this one read the event's message as it now is
        elif (isinstance(payload, ConversationTitled)
              and not forgetting.conversation_forgotten(conn, payload.conversation)):
            self._ensure_conversation(conn, event, payload.conversation)
            if not forgetting.title_forgotten(conn, payload.conversation, outbound(payload.title)):
                _set_title(conn, payload)
        elif isinstance(payload, Forgotten):
            self.flush(conn)  # the delete trigger removes indexed texts only
            forgetting.apply_forgotten(conn, event.seq, payload)

    def batch_safe(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> bool:
        """True when the batch deletes no message: no Forgotten event, no compacted message, no forget rule yet."""
        for event in events:
            payload = event.event
            if isinstance(payload, Forgotten) or (isinstance(payload, MessageRecorded)
                                                  and payload.meta.get("forgotten")):
                return False
        return not forgetting.rules(conn)

    def apply_batch(self, conn: sqlite3.Connection, events: Sequence[StoredEvent]) -> None:
        """Apply ``events`` in order, the rows equal to ``apply``'s one by one.

        When nothing in the batch is forgotten (:meth:`batch_safe`), each conversation's
        span, count and session fields are updated once per batch, not once per message.
        """
        if not self.batch_safe(conn, events):
            for event in events:
                self.apply(conn, event)
            return
        spans: dict[str, _Span] = {}
        for event in events:
            payload = event.event
            if not isinstance(payload, MessageRecorded):
                self.apply(conn, event)
                continue
            span = spans.get(payload.conversation)
            if span is None:
                self._ensure_conversation(conn, event, payload.conversation)
                span = spans[payload.conversation] = _Span(payload.timestamp)
            span.add(payload, self._store(conn, event, payload))
        for key, span in spans.items():
            _touch(conn, key, span)
        self._write_changes(conn)  # the projections after this one (vectors, hierarchy) read the joined texts

    def flush(self, conn: sqlite3.Connection) -> None:
        """Index the texts stored since the last flush, in id order (the runner calls it before committing).

        Those holding unsplit characters are recorded in ``messages_unsplit`` too.

        A streamed reply's parts are then indexed once, joined, instead of a delete and an
        insert per part (an FTS5 delete after inserts writes its pending terms to disk).
        """
        self._write_changes(conn)
        conn.executemany("INSERT INTO messages_fts(rowid, text) VALUES (?, ?)", sorted(self._unindexed.items()))
        unsplit.record(conn, self._unindexed.items())
        speaker_names.record(conn, self._unindexed)
        if not backfill.pending(conn, "blocks"):  # else the backfill files them after the older ones, in id order
            blocks.file_messages(conn, sorted(self._unfiled.items()))
        blocks.index_dirty(conn, grown=False)  # a block that only grew may wait for settle
        windows.refresh(conn, self._unindexed)
        self.discard()

    def unsettled(self, conn: sqlite3.Connection) -> bool:
        """Whether a block waits to be indexed (see :meth:`settle`)."""
        return blocks.waiting(conn)

    def settle(self, conn: sqlite3.Connection) -> None:
        """Index the blocks left waiting because they only grew (:mod:`tapestryd.projections.blocks`)."""
        blocks.index_dirty(conn)

    def discard(self) -> None:
        """Drop the unindexed texts and the verbatim texts held for this batch (a rolled-back batch's too)."""
        self._unindexed.clear()
        self._unfiled.clear()
        self._verbatim.clear()
        self._ids.clear()
        self._changed.clear()

    def _record(self, conn: sqlite3.Connection, event: StoredEvent, msg: MessageRecorded) -> None:
        if msg.meta.get("forgotten") or forgetting.is_forgotten(conn, msg.conversation, msg.timestamp,
                                                                outbound(msg.text), msg.message):
            self.flush(conn)
            forgetting.drop_message(conn, msg.conversation, msg.message)
            return
        self._ensure_conversation(conn, event, msg.conversation)
        span = _Span(msg.timestamp)
        span.add(msg, self._store(conn, event, msg))
        _touch(conn, msg.conversation, span)

    def _store(self, conn: sqlite3.Connection, event: StoredEvent, msg: MessageRecorded) -> bool:
        """Insert the message, or join it to the stored one of its key; True when it was inserted.

        A later part changes the message's :class:`_Change`, written at the end of the batch: a reply streamed
        as many parts in one batch is filtered, updated and taken out of the indexes once, not once
        per part, with the rows a part-by-part update would leave.
        """
        msg_id = self._ids.get((msg.conversation, msg.message))
        change = None if msg_id is None else self._changed.get(msg_id)
        if msg_id is None or change is None:
            if msg_id is None and self._insert(conn, event, msg):
                return True
            msg_id, change = self._change_of(conn, msg)
        if msg.meta.get("replaces"):
            self._verbatim[msg_id] = msg.text
            change.replace(msg.text, dict(msg.skipped), f"={event.seq}")
        elif change.parts is None or self._log is None:  # earlier parts unknown: join to the stored (filtered) text
            change.join_filtered(outbound(msg.text), msg.skipped)
        else:
            verbatim = join_parts((self._earlier(msg_id, _part_seqs(change.first, change.parts)), msg.text))
            self._verbatim[msg_id] = verbatim
            change.join(verbatim, msg.skipped, event.seq)
        return False

    def _insert(self, conn: sqlite3.Connection, event: StoredEvent, msg: MessageRecorded) -> bool:
        """Insert the message (indexed at the next flush); False (nothing written) when its key is
        stored: a later part."""
        text = outbound(msg.text)
        cur = conn.execute(
            "INSERT INTO messages (conversation, message_key, seq, agent, role, ts, text, model, session, sidechain,"
            " skipped, meta, parts, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?)"
            " ON CONFLICT (conversation, message_key) DO NOTHING",
            (msg.conversation, msg.message, event.seq, event.agent, msg.role, msg.timestamp, text, msg.model,
             msg.session, int(bool(msg.meta.get("sidechain"))), _dumps(msg.skipped), _dumps(msg.meta), event.origin),
        )
        if cur.rowcount != 1:
            return False
        message_id = cast(int, cur.lastrowid)  # set: the row was inserted
        self._ids[(msg.conversation, msg.message)] = message_id
        self._unindexed[message_id] = text
        self._unfiled[message_id] = msg.conversation
        self._verbatim[message_id] = msg.text
        return True

    def _change_of(self, conn: sqlite3.Connection, msg: MessageRecorded) -> tuple[int, _Change]:
        """The id of ``msg``'s stored row and a change starting from that row (indexed unless stored this batch),
        held for the batch's later parts."""
        msg_id, text, skipped, first, parts = conn.execute(
            "SELECT id, text, skipped, seq, parts FROM messages WHERE conversation = ? AND message_key = ?",
            (msg.conversation, msg.message)).fetchone()
        self._ids[(msg.conversation, msg.message)] = msg_id
        change = self._changed[msg_id] = _Change(text, msg_id not in self._unindexed, first, parts, json.loads(skipped))
        return msg_id, change

    def _earlier(self, msg_id: int, seqs: list[int]) -> str:
        """The verbatim joined text of message ``msg_id``'s parts at ``seqs``: held for this batch, else read
        from the log (joining is a left fold, so joining the joined text to the next part is the same)."""
        held = self._verbatim.get(msg_id)
        if held is not None or self._log is None:
            return held or ""
        return join_parts([e.event.text for e in self._log.at(seqs) if isinstance(e.event, MessageRecorded)])

    def _write_changes(self, conn: sqlite3.Connection) -> None:
        """Store the texts the batch's later parts changed, at the end of :meth:`apply_batch` (or of :meth:`apply`),
        so the projections applied after this one (the hierarchy, the vectors) read the joined texts; the
        flush indexes them.

        A message indexed before this batch is taken out of ``messages_fts`` and of its windows
        first, while its stored text is still the one they were made of; its block is marked to
        index again (as grown when the new text begins with the stored one, see :mod:`blocks`).
        """
        if not self._changed:
            return
        texts = {msg_id: change.filtered() for msg_id, change in sorted(self._changed.items())}
        indexed = [msg_id for msg_id, change in self._changed.items() if change.indexed]
        conn.executemany("INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', ?, ?)",
                         [(msg_id, self._changed[msg_id].stored) for msg_id in sorted(indexed)])
        windows.unindex(conn, indexed)
        conn.executemany("UPDATE messages SET text = ?, skipped = ?, parts = ? WHERE id = ?",
                         [(text, _dumps(self._changed[msg_id].counts), self._changed[msg_id].parts, msg_id)
                          for msg_id, text in texts.items()])
        grown = {msg_id for msg_id in indexed if texts[msg_id].startswith(self._changed[msg_id].stored)}
        blocks.mark_dirty(conn, sorted(grown), grown=True)  # a message stored this batch is in no block yet
        blocks.mark_dirty(conn, sorted(set(indexed) - grown))
        self._unindexed.update(texts)
        self._changed.clear()

    @staticmethod
    def _ensure_conversation(conn: sqlite3.Connection, event: StoredEvent, key: str) -> None:
        conn.execute("INSERT OR IGNORE INTO conversations (key, agent, source) VALUES (?, ?, ?)",
                     (key, event.agent, event.source))


def _part_seqs(first: int, parts: str) -> list[int]:
    """The log seqs whose texts make a message: its first part (or the version ``=N`` that
    replaced it), then ``parts``."""
    seqs = parts.split()
    if seqs and seqs[0].startswith("="):
        return [int(seqs[0][1:]), *map(int, seqs[1:])]
    return [first, *map(int, seqs)]


def _set_title(conn: sqlite3.Connection, titled: ConversationTitled) -> None:
    """Keep the title unless the stored one is of a higher kind, or of the same kind and newer (see the module doc)."""
    rank = TITLE_KINDS.index(titled.kind) if titled.kind in TITLE_KINDS else 1
    conn.execute("UPDATE conversations SET title = ?, title_updated = ?, title_rank = ? WHERE key = ?"
                 " AND (title_rank < ? OR title_rank = ?"
                 " AND (CASE WHEN ? = '' THEN title_updated = '' ELSE title_updated <= ? END))",
                 (outbound(titled.title), titled.updated, rank, titled.conversation, rank, rank, titled.updated,
                  titled.updated))


class _Change:
    """A stored message's text as this batch's later parts change it, written at the end of the batch.

    ``stored``: its text in the table now (``indexed``: in ``messages_fts`` and its windows, i.e.
    stored before this batch); ``first``: the log seq of its first part; ``parts``: the seqs of its
    later parts (see the module docstring, NULL for a row made before they were kept); ``counts``:
    its skipped kinds. The new text is ``text`` when it is already filtered (a part joined to the
    stored filtered text), else the filtered ``verbatim`` (one filtering for all the batch's parts).
    """

    __slots__ = ("stored", "indexed", "first", "parts", "counts", "text", "verbatim")

    def __init__(self, stored: str, indexed: bool, first: int, parts: str | None, counts: dict[str, int]) -> None:
        self.stored, self.indexed, self.first, self.parts, self.counts = stored, indexed, first, parts, counts
        self.text: str | None = stored
        self.verbatim: str | None = None

    def filtered(self) -> str:
        """The new text as stored: filtered (:func:`tapestryd.privacy.outbound`)."""
        if self.text is None:
            self.text = outbound(self.verbatim or "")
        return self.text

    def replace(self, verbatim: str, counts: dict[str, int], parts: str) -> None:
        """The whole message again (``meta.replaces``): its text, skipped counts and parts replace these."""
        self.verbatim, self.text, self.counts, self.parts = verbatim, None, counts, parts

    def join(self, verbatim: str, skipped: Mapping[str, int], seq: int) -> None:
        """A later part (log ``seq``) joined: ``verbatim`` is the whole joined text, ``skipped`` its own counts."""
        self.verbatim, self.text = verbatim, None
        self.parts = f"{self.parts} {seq}".lstrip()
        self._count(skipped)

    def join_filtered(self, text: str, skipped: Mapping[str, int]) -> None:
        """A later part's filtered ``text`` joined to the filtered text (earlier parts unknown)."""
        self.text = join_parts((self.filtered(), text))
        self._count(skipped)

    def _count(self, skipped: Mapping[str, int]) -> None:
        for kind, n in skipped.items():
            self.counts[kind] = self.counts.get(kind, 0) + n


class _Span:
    """What a run of one conversation's messages adds to its row: time span, count, session fields.

    Folded in log order as ``_touch`` would apply them one by one: session and cwd keep
    the first non-empty value, the git branch the last one.
    """

    __slots__ = ("first", "last", "session", "cwd", "branch", "added")

    def __init__(self, ts: str) -> None:
        self.first = self.last = ts
        self.session = self.cwd = self.branch = ""
        self.added = 0

    def add(self, msg: MessageRecorded, inserted: bool) -> None:
        """Fold one message in (``inserted``: it was new, not a later part)."""
        ts = msg.timestamp
        self.first, self.last = min(self.first, ts), max(self.last, ts)
        self.session = self.session or msg.session
        self.cwd = self.cwd or str(msg.meta.get("cwd") or "")
        self.branch = str(msg.meta.get("git_branch") or "") or self.branch
        self.added += inserted


def _touch(conn: sqlite3.Connection, key: str, span: _Span) -> None:
    """Widen conversation ``key``'s time span, fill session/cwd/branch, and count the span's new messages."""
    conn.execute(
        "UPDATE conversations SET first_ts = MIN(COALESCE(first_ts, ?), ?), last_ts = MAX(COALESCE(last_ts, ?), ?),"
        " session = CASE WHEN session = '' THEN ? ELSE session END,"
        " cwd = CASE WHEN cwd = '' THEN ? ELSE cwd END,"
        " git_branch = CASE WHEN ? != '' THEN ? ELSE git_branch END,"
        " message_count = message_count + ? WHERE key = ?",
        (span.first, span.first, span.last, span.last, span.session, span.cwd, span.branch, span.branch, span.added,
         key),
    )


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _dumps(value: Mapping[str, object]) -> str:
    """Compact, key-sorted JSON (one shared encoder: ``json.dumps`` with options builds one per call)."""
    return _ENCODER.encode(value) if value else "{}"
