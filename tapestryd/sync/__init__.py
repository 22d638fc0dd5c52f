"""Sync: several machines' event logs merged through a PostgreSQL hub, payloads end-to-end encrypted.

* :mod:`tapestryd.sync.crypto`: the key, its passphrase, AES-GCM sealing (``cryptography``).
* :mod:`tapestryd.sync.hub`: the hub's schema (SQLModel) and statements (SQLAlchemy, psycopg 3).

Importing this package imports nothing else: SQLAlchemy, psycopg and cryptography load only
when a sync round runs, never on the CLI's fast path.
"""
