"""The event log's SQL for SQLite, generated from its models by tapestryd/events/statements.py:
do not edit; after changing tapestryd/events/models.py run ``python -m tapestryd.events.statements``
(tests/events/test_log_schema.py fails until this file matches the models).

``INSERT_EVENT`` takes ``EVENT_COLUMNS[1:]`` in order (``seq`` is SQLite's); ``SAVE_OFFSET`` takes path,
offset, inode, size, updated_at; ``SAVE_CHECKPOINT`` name, position, updated_at.
"""

CREATE_EVENTS: tuple[str, ...] = (
    (
        'CREATE TABLE events ( seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, type '
        'TEXT NOT NULL, schema INTEGER NOT NULL, occurred_at TEXT NOT NULL, recorded_at TEXT NOT '
        'NULL, agent TEXT NOT NULL, source TEXT NOT NULL, payload TEXT NOT NULL, origin TEXT '
        "DEFAULT '' NOT NULL, UNIQUE (event_id) )"
    ),
    'CREATE INDEX events_type_seq ON events (type, seq)',
)
CREATE_SOURCE_OFFSETS: tuple[str, ...] = (
    (
        'CREATE TABLE source_offsets ( path TEXT, "offset" INTEGER NOT NULL, inode INTEGER NOT '
        'NULL, size INTEGER NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (path) )'
    ),
)
CREATE_SYNC_CHECKPOINTS: tuple[str, ...] = (
    (
        'CREATE TABLE sync_checkpoints ( name TEXT, position INTEGER NOT NULL, updated_at TEXT NOT '
        'NULL, PRIMARY KEY (name) )'
    ),
)
ADD_EVENTS_ORIGIN: str = "ALTER TABLE events ADD COLUMN origin TEXT DEFAULT '' NOT NULL"
EVENT_COLUMNS: tuple[str, ...] = (
    'seq',
    'event_id',
    'type',
    'schema',
    'occurred_at',
    'recorded_at',
    'agent',
    'source',
    'payload',
    'origin',
)
INSERT_EVENT: str = (
    'INSERT INTO events (event_id, type, schema, occurred_at, recorded_at, agent, source, '
    'payload, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id) DO NOTHING'
)
SAVE_OFFSET: str = (
    'INSERT INTO source_offsets (path, "offset", inode, size, updated_at) VALUES (?, ?, ?, ?, '
    '?) ON CONFLICT (path) DO UPDATE SET "offset" = excluded."offset", inode = excluded.inode, '
    'size = excluded.size, updated_at = excluded.updated_at'
)
SAVE_CHECKPOINT: str = (
    'INSERT INTO sync_checkpoints (name, position, updated_at) VALUES (?, ?, ?) ON CONFLICT '
    '(name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at'
)
