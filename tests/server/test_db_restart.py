"""The database restarting under a running server: every refusal a client meets is `server/busy` (503,
try again), never `server/error`, and the server goes on when the database is back.

The server reaches PostgreSQL through a small TCP relay of the test's own: a "restart" cuts every
connection through it and refuses new ones, as a restarting PostgreSQL does, then lets them through
again. The database itself is never touched. A move refused as busy changed nothing: sent again after
the restart, it plays.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from yambak.server import Settings, create_app

from .helpers import WS

ORIGIN = {"origin": "http://127.0.0.1"}


class Relay:
    """A TCP relay to PostgreSQL that can play a restart: `down()` cuts and refuses, `up()` relays."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.pipes: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:  # restarting: the connection is cut at once
                client.close()
                continue
            server = socket.create_connection(self.target)
            with self.lock:
                self.pipes += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def down(self) -> None:
        self.open = False
        with self.lock:
            pipes, self.pipes = self.pipes, []
        for s in pipes:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def up(self) -> None:
        self.open = True

    def close(self) -> None:
        self.down()
        self.listener.close()


@pytest.fixture
def relayed(pg_url: str) -> Iterator[tuple[TestClient, Relay]]:
    url = make_url(pg_url)
    relay = Relay(url.host or "127.0.0.1", url.port or 5432)
    settings = Settings(
        database_url=url.set(host="127.0.0.1", port=relay.port).render_as_string(hide_password=False),
        bot_delay=0.0, warm_strategies=False, undo_grace=0.0, coach_process=False,
    )  # fmt: skip
    try:
        with TestClient(create_app(settings), base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
            yield c, relay
            relay.up()
    finally:
        relay.close()


def test_a_database_restart_answers_busy_never_an_error(relayed: tuple[TestClient, Relay]) -> None:
    client, relay = relayed
    assert client.post("/api/me", json={"name": "Ann"}, headers=ORIGIN).status_code == 201
    made = client.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}, {"name": "Bram"}]}).json()
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        ws = WS(s)
        _, state = ws.hello(list(made["tokens"].values()))
        rolled = ws.act(type="roll", seat=0, v=state["v"])
        assert rolled["type"] == "event", rolled
        relay.down()  # PostgreSQL restarts: every connection cut, new ones refused
        answers = [
            client.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}]}),
            client.get("/api/me"),
            client.patch("/api/me", json={"name": "Ann B"}, headers=ORIGIN),
            client.get("/api/me/games"),
        ]
        assert [(r.status_code, r.json()["code"]) for r in answers] == [(503, "server/busy")] * len(answers)
        assert all(r.headers["retry-after"] for r in answers)
        moved = ws.act(type="score", seat=0, v=rolled["v"], box="chance")
        assert (moved["type"], moved["code"]) == ("error", "server/busy"), moved
        relay.up()  # back: tried again, the same requests go through (a connection the server held across
        # the restart fails once more, as busy) and the game goes on
        tries = [client.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}]}) for _ in range(3)]
        codes = [r.status_code for r in tries]
        assert 201 in codes and all(r.json()["code"] == "server/busy" for r in tries[: codes.index(201)]), codes
        assert client.patch("/api/me", json={"name": "Ann B"}, headers=ORIGIN).status_code == 200
        for _ in range(3):
            moved = ws.act(type="score", seat=0, v=rolled["v"], box="chance")
            if moved["type"] == "event":
                break
            assert moved["code"] == "server/busy", moved
        assert moved["type"] == "event" and moved["event"]["box"].endswith("chance"), moved
