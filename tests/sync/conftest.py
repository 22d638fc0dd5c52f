"""Fixtures of the sync tests: one PostgreSQL cluster per session, an empty hub database per test."""

from __future__ import annotations

import itertools
from typing import Iterator

import pytest

from pgcluster import PgCluster, missing_reason

_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A running throwaway cluster (skips, naming what is missing, where PostgreSQL is not installed)."""
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    cluster = PgCluster()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.destroy()


@pytest.fixture
def hub_url(pg_cluster: PgCluster) -> str:
    """The URL of a new, empty database on the cluster (one per test), with the server running."""
    if not pg_cluster.running():
        pg_cluster.start()
    return pg_cluster.create_database(f"hub{next(_names)}")
