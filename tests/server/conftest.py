from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings, create_app


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path}/test.db", bot_delay=0.0, warm_strategies=False, undo_grace=0.0)


@pytest.fixture
def client(settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        yield c


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
