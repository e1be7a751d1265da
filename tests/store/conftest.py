from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest

from tests.conftest import missing_service
from yambak.store import Store

PG_URL = os.environ.get("YAMBAK_TEST_POSTGRES_URL")


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A PostgreSQL database of this test run's own (the server's database is shared with other runs,
    which may be at another schema revision): created once, dropped at the end."""
    if not PG_URL:
        missing_service("YAMBAK_TEST_POSTGRES_URL is not set: make test starts PostgreSQL (scripts/test-services.sh)")
    import psycopg

    base = PG_URL.replace("postgresql+psycopg://", "postgresql://")
    name = f"yambak_s_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(base, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f"CREATE DATABASE {name}")
    except psycopg.Error as exc:
        missing_service(f"PostgreSQL at {PG_URL} cannot create a database: {exc}")
    yield PG_URL.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path}/store.db")
    else:
        s = Store(request.getfixturevalue("pg_database"))
    yield s
    s.close()
