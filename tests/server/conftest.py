from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.conftest import fresh_pg_database, missing_service
from yambak.server import Settings, create_app


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Grades in a thread, as `profile_settings` has them."""
    return Settings(
        database_url=f"sqlite:///{tmp_path}/test.db", bot_delay=0.0, warm_strategies=False, undo_grace=0.0,
        coach_process=False,
    )  # fmt: skip


@pytest.fixture
def clock():
    """The server's clock, which a test moves (profiles, deals, turns of hours and days)."""
    from datetime import UTC, datetime

    from .profile_helpers import Clock

    return Clock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))


@pytest.fixture(params=["sqlite", "postgresql"])
def both_stores(request, tmp_path, clock) -> Settings:
    """The profile tests' server on SQLite, then on a PostgreSQL database of its own: a test that takes it
    runs on both stores. Modules take it as their `settings`."""
    from .profile_helpers import profile_settings

    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else f"sqlite:///{tmp_path}/test.db"
    return profile_settings(tmp_path, clock, http_burst=1000, database_url=url)


@pytest.fixture
def client(settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        yield c
        c.app.state.profiles.grader.wait(10)  # no grade written after the test's database is gone


@pytest.fixture
def connect_table(client):
    """Open a table's socket and say hello with the given seat tokens; closed at teardown."""
    from .helpers import WS

    opened = []

    def _open(made, seats=("0",), hello=True, via=None):
        session = (via or client).websocket_connect(f"/ws/{made['id']}")
        ws = WS(session.__enter__())
        opened.append(session)
        if hello:
            ws.hello([made["tokens"][s] for s in seats])
        return ws

    yield _open
    for session in reversed(opened):
        session.__exit__(None, None, None)


# --- several processes: PostgreSQL and Redis (scripts/test-services.sh starts both for `make test`) ----------


def _own_redis_database(url: str | None) -> str | None:
    """Each pytest-xdist worker its own Redis database (gw0 the URL's, gw1 the next...): rate limits and socket
    counts are per address, and every test's address is 127.0.0.1. Channels are shared, but their names are
    made of random table and node ids."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    if not url or worker == "gw0":
        return url
    head, _, db = url.rpartition("/")
    return f"{head}/{(int(db or 0) + int(worker.removeprefix('gw'))) % 16}"


REDIS_URL = _own_redis_database(os.environ.get("YAMBAK_TEST_REDIS_URL"))


@pytest.fixture
def redis_url() -> str:
    if not REDIS_URL:
        missing_service("YAMBAK_TEST_REDIS_URL is not set: make test starts Redis (scripts/test-services.sh)")
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except redis.RedisError as exc:
        missing_service(f"Redis at {REDIS_URL} does not answer: {exc}")
    return REDIS_URL  # type: ignore[return-value]


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database of its own (a cluster's processes adopt every orphaned table they see)."""
    yield from fresh_pg_database("yambak_t")
