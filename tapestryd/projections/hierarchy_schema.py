"""DDL of the hierarchy projection's tables (documented in :mod:`tapestryd.projections.hierarchy`)."""

from __future__ import annotations

__all__ = ["NODE_COLUMNS", "SCHEMA", "TABLES"]

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS nodes (
        id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, level INTEGER NOT NULL, agent TEXT NOT NULL,
        parent TEXT NOT NULL, period_start TEXT NOT NULL, period_end TEXT NOT NULL,
        conversation TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '', summary TEXT NOT NULL DEFAULT '',
        fingerprint TEXT NOT NULL, summarized_fingerprint TEXT NOT NULL DEFAULT '',
        state TEXT NOT NULL DEFAULT 'dirty', closed INTEGER NOT NULL DEFAULT 0,
        message_count INTEGER NOT NULL DEFAULT 0, source_chars INTEGER NOT NULL DEFAULT 0,
        first_ts TEXT NOT NULL, last_ts TEXT NOT NULL, usage TEXT NOT NULL DEFAULT '{}',
        provider TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '', mode TEXT NOT NULL DEFAULT '',
        prompt_version TEXT NOT NULL DEFAULT '', context_fingerprint TEXT NOT NULL DEFAULT '',
        context_stale INTEGER NOT NULL DEFAULT 0, digest TEXT NOT NULL DEFAULT '',
        summarized_seq INTEGER NOT NULL DEFAULT 0, versions INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX IF NOT EXISTS nodes_level_agent_start ON nodes(level, agent, period_start)",
    "CREATE INDEX IF NOT EXISTS nodes_parent_state ON nodes(parent, state)",
    "CREATE INDEX IF NOT EXISTS nodes_todo ON nodes(state, closed, period_end)",
    "CREATE INDEX IF NOT EXISTS nodes_end ON nodes(period_end)",
    "CREATE INDEX IF NOT EXISTS nodes_segments ON nodes(agent, conversation, period_start) WHERE level = 0",
    """CREATE TABLE IF NOT EXISTS node_sources (
        node TEXT NOT NULL, source TEXT NOT NULL, kind TEXT NOT NULL, position INTEGER NOT NULL,
        PRIMARY KEY (node, kind, source))""",
    "CREATE INDEX IF NOT EXISTS node_sources_source ON node_sources(source, kind)",
    "CREATE TABLE IF NOT EXISTS closed_days (agent TEXT NOT NULL, date TEXT NOT NULL, PRIMARY KEY (agent, date))",
    """CREATE TABLE IF NOT EXISTS summarizer_usage (
        provider TEXT NOT NULL, model TEXT NOT NULL, summaries INTEGER NOT NULL, calls INTEGER NOT NULL,
        tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, PRIMARY KEY (provider, model))""",
    """CREATE VIRTUAL TABLE IF NOT EXISTS nodes_fts USING fts5(
        title, summary, content='nodes', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')""",
    # New nodes reach the index through an explicit statement (HierarchyProjection._insert): a
    # statement that fires a trigger opens a statement journal, and FTS5 flushes every table's
    # pending terms to disk at each such savepoint, so an insert trigger flushed messages_fts per node.
    # Files made before that still have the trigger; dropping it keeps nodes from being indexed twice.
    "DROP TRIGGER IF EXISTS nodes_ai",
    """CREATE TRIGGER IF NOT EXISTS nodes_ad AFTER DELETE ON nodes BEGIN
        INSERT INTO nodes_fts(nodes_fts, rowid, title, summary) VALUES ('delete', old.id, old.title, old.summary);
        END""",
    """CREATE TRIGGER IF NOT EXISTS nodes_au AFTER UPDATE OF title, summary ON nodes BEGIN
        INSERT INTO nodes_fts(nodes_fts, rowid, title, summary) VALUES ('delete', old.id, old.title, old.summary);
        INSERT INTO nodes_fts(rowid, title, summary) VALUES (new.id, new.title, new.summary); END""",
]

TABLES = ("nodes", "node_sources", "closed_days", "summarizer_usage")

NODE_COLUMNS = (
    "key", "level", "agent", "parent", "period_start", "period_end", "conversation", "title", "summary",
    "fingerprint", "summarized_fingerprint", "state", "closed", "message_count", "source_chars", "first_ts",
    "last_ts", "usage", "provider", "model", "mode", "prompt_version", "context_fingerprint", "context_stale",
    "summarized_seq", "versions",
)
