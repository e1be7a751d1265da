from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings, create_app


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path}/test.db", bot_delay=0.0, warm_strategies=False)


@pytest.fixture
def client(settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        yield c
