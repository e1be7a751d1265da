from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import fresh_pg_database
from yambak.store import Store
from yambak.store.models import Base


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A PostgreSQL database of this test run's own (the server's database is shared with other runs,
    which may be at another schema revision): created once, dropped at the end."""
    yield from fresh_pg_database("yambak_s")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path}/store.db")
    else:
        s = _clean(Store(request.getfixturevalue("pg_database")))
    yield s
    s.close()


def _clean(s: Store) -> Store:
    """A clean slate, as SQLite's fresh file is: tests run in any order."""
    with s.engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())
    return s


@pytest.fixture
def pg_store(request):
    """A store on PostgreSQL only, from the same clean slate (what SQLite does not have: round trips)."""
    s = _clean(Store(request.getfixturevalue("pg_database")))
    yield s
    s.close()
