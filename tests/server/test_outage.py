"""Redis stopped and started mid-game under two `yambak serve` processes on PostgreSQL.

Redis is this test's own `redis-server` on a free port, stopped (SIGTERM) and started again by pid:
never the one `scripts/test-services.sh` runs for the rest of the suite. Four tables play, each with
one player on either process and a spectator on both. While Redis is down: the games go on where
they can (a player on the owner's process), a move that must be forwarded is refused with a coded
503 and tried again, the spectators still get every event (each process compares its copies with
the log), making a table, a sheet or a player's profile answers a coded 503 and stores nothing, and
the profile rate limit still holds (counted in each process). When Redis is back, both processes
agree within 5 s, every table finishes, and every client saw exactly the stored events, once each,
in order.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from yambak.store import Store

from .helpers import OwnRedis, ServerProcess, legal
from .test_cluster import Client

TABLES = 4
OUTAGE = 6.0  # seconds without Redis
PROFILE_BURST = 3


@pytest.fixture
def cluster(pg_url: str, tmp_path: Path) -> Iterator[tuple[OwnRedis, ServerProcess, ServerProcess]]:
    own = OwnRedis(tmp_path)
    own.start()
    env = {"YAMBAK_LEASE_SECONDS": "2", "YAMBAK_PROFILE_BURST": str(PROFILE_BURST), "YAMBAK_PROFILE_RATE": "0.001"}
    a = ServerProcess(pg_url, env=env, redis=own.url, log_path=str(tmp_path / "a.log"))
    b = ServerProcess(pg_url, env=env, redis=own.url, log_path=str(tmp_path / "b.log"))
    try:
        a.start(wait=90)
        b.start(wait=90)
        yield own, a, b
    finally:
        a.stop()
        b.stop()
        if own.proc is not None and own.proc.poll() is None:
            own.stop()


class Recording(Client):
    """A client that also keeps every message it got, in short (for a failure to show)."""

    def _take(self, msg):  # type: ignore[no-untyped-def]
        brief = (msg.get("type"), msg.get("v"), [e["v"] for e in msg.get("events", [])], msg.get("code"))
        self.__dict__.setdefault("log", []).append(brief)
        return super()._take(msg)


class Table:
    """One game: Ann plays through A, Bram through B; a spectator on each process."""

    def __init__(self, a: ServerProcess, b: ServerProcess, creator: ServerProcess) -> None:
        r = httpx.post(creator.base + "/api/tables", json={"name": "Outage", "preset": "yams",
                       "seats": [{"name": "Ann"}, {"name": "Bram"}]}, timeout=30)  # fmt: skip
        assert r.status_code == 201, r.text
        self.id, tokens = r.json()["id"], r.json()["tokens"]
        self.players = {0: Recording(a, self.id, [tokens["0"]]), 1: Recording(b, self.id, [tokens["1"]])}
        self.watchers = [Recording(a, self.id, []), Recording(b, self.id, [])]
        self.refused: list[str] = []
        self.error: Exception | None = None
        self.held = threading.Event()  # set while `go` holds the players: no move of theirs in flight

    def clients(self) -> list[Client]:
        return [*self.players.values(), *self.watchers]

    def play(self, go: threading.Event, stop: threading.Event) -> None:
        """Roll, then the first legal box, turn after turn; after a refusal the move is chosen again from the
        view as it is then (so a move is never made twice). Held while `go` is clear; ends with the game or
        `stop`; an error stops it and is kept for the test to show."""
        try:
            while not stop.is_set():
                if not go.wait(0.2):
                    self.held.set()
                    continue
                self.held.clear()
                newest = max(self.players.values(), key=lambda c: c.v)
                if newest.view["finished"]:
                    return
                seat = newest.view["current"]
                player = self.players[seat]
                player.catch_up(newest.v)
                turn = player.view["players"][seat]["turn"]
                move = {"type": "roll"} if turn is None else {"type": "score", "box": legal(turn)[0]}
                self._move(player, {**move, "seat": seat, "v": player.v})
        except Exception as exc:
            self.error = exc

    def _move(self, player: Client, msg: dict[str, object]) -> None:
        """Send a move; wait until the table moves on (the event, or a batch of events after a reload) or
        the move is refused."""
        start = player.v
        player.ws.send(json.dumps(msg))
        while player.v == start:
            out = player._take(player._recv(20))
            if out["type"] == "error":
                self.refused.append(out["code"])
                time.sleep(0.2)
                return


def _count(store: Store, sql: str) -> int:
    from sqlalchemy import text

    with store.engine.connect() as conn:
        return int(conn.execute(text(sql)).scalar() or 0)


def test_redis_stopped_and_started_mid_game(cluster: tuple[OwnRedis, ServerProcess, ServerProcess]) -> None:
    own, a, b = cluster
    tables = [Table(a, b, a if i % 2 == 0 else b) for i in range(TABLES)]
    go, stop = threading.Event(), threading.Event()
    go.set()
    threads = [threading.Thread(target=t.play, args=(go, stop), daemon=True) for t in tables]
    for t in threads:
        t.start()
    try:
        _outage(own, a, b, tables, threads, go)
    finally:
        stop.set()


def _outage(
    own: OwnRedis, a: ServerProcess, b: ServerProcess, tables: list[Table], threads: list[threading.Thread],
    go: threading.Event,
) -> None:  # fmt: skip
    deadline = time.monotonic() + 60
    while min(t.players[0].v for t in tables) < 12:  # mid-game everywhere
        assert time.monotonic() < deadline and all(t.is_alive() for t in threads)
        time.sleep(0.05)

    made = httpx.post(a.base + "/api/keep", json={"preset": "yams", "players": ["Ann", "Bram"]}, timeout=30).json()
    follower = connect(b.base.replace("http", "ws") + f"/ws/keep/{made['id']}", open_timeout=10)  # a phone on B
    follower.send(json.dumps({"type": "hello"}))
    assert json.loads(follower.recv(10))["type"] == "welcome"
    assert json.loads(follower.recv(10))["v"] == 0

    own.stop()
    stopped = time.monotonic()
    # a sheet owned by A takes an entry there; the phone following it on B sees it all the same
    entry = {"id": "entry-outage1", "v": 0, "kind": "dice", "seat": 0, "dice": [6, 6, 6, 6, 6], "box": "yam"}
    auth = {"authorization": f"Bearer {made['token']}"}
    assert httpx.post(a.base + f"/api/keep/{made['id']}/entries", json=entry, headers=auth, timeout=30).json()["v"] == 1
    seen = json.loads(follower.recv(5))
    assert seen["v"] == 1 and seen["view"]["players"][0]["total"] == 50
    follower.close()
    store = Store(a.db_url, migrate=False)
    before = (_count(store, "SELECT count(*) FROM game_tables"), _count(store, "SELECT count(*) FROM profiles"))
    sheets = _count(store, "SELECT count(*) FROM game_tables WHERE kind = 'sheet'")
    seats = [{"name": "Cas"}, {"kind": "bot", "bot": "easy"}]
    for server in (a, b):  # nothing that needs Redis is half-made: a coded 503, and no row
        r = httpx.post(server.base + "/api/tables", json={"name": "Down", "preset": "yams", "seats": seats}, timeout=30)
        assert r.status_code == 503 and r.json()["code"] == "server/busy", r.text
        bots = [{"kind": "bot", "bot": "easy"}] * 2
        r = httpx.post(server.base + "/api/tables", json={"name": "Bots", "preset": "yams", "seats": bots}, timeout=30)
        assert r.status_code == 503 and r.json()["code"] == "server/busy", r.text
        r = httpx.post(server.base + "/api/keep", json={"preset": "yams", "players": ["Ann"]}, timeout=30)
        assert r.status_code == 503 and r.json()["code"] == "server/busy", r.text
    # the profile limit holds without Redis: each process counts the same budget
    made = [
        httpx.post(a.base + "/api/me", json={"name": f"P{i}"}, timeout=30).status_code for i in range(PROFILE_BURST + 3)
    ]
    assert made.count(201) <= PROFILE_BURST and made.count(429) >= 3, made
    assert (_count(store, "SELECT count(*) FROM game_tables"), _count(store, "SELECT count(*) FROM profiles")) == (
        before[0],
        before[1] + made.count(201),
    )
    assert _count(store, "SELECT count(*) FROM game_tables WHERE kind = 'sheet'") == sheets
    # without Redis, spectators on either process still follow: each process reads the log
    time.sleep(max(0.0, OUTAGE - (time.monotonic() - stopped)))
    go.clear()  # hold the players while the copies are compared
    for t in tables:  # a move in flight lands first
        assert t.held.wait(30) and t.error is None, t.error
    for t in tables:
        logged = store.events(t.id)[-1].version
        for w in t.watchers:
            w.catch_up(logged, timeout=5)

    own.start()  # the same port, an empty Redis: every lease is gone
    back = time.monotonic()
    for t in tables:  # both processes agree within 5 s of Redis returning
        logged = store.events(t.id)[-1].version
        for c in t.clients():
            c.catch_up(logged, timeout=max(0.1, back + 5 - time.monotonic()))
    go.set()
    for t in threads:
        t.join(180)
    assert not any(t.is_alive() for t in threads)  # every game ended
    assert [t.error for t in tables] == [None] * len(tables)
    for t in tables:
        rows = store.events(t.id)
        last = rows[-1].version
        stored = [(e.version, e.data) for e in rows]
        assert store.get_session(t.id).finished and last == 52, (t.id, last)  # every table finished
        for c in t.clients():
            c.catch_up(last, timeout=5)  # within 5 s of the end: every process has it
            got = [v for v, _ in c.events]
            twice = sorted({v for v in got if got.count(v) > 1})
            missing = sorted(set(range(1, last + 1)) - set(got))
            assert c.events == stored, (t.id, t.clients().index(c), twice, missing, c.log)
        views = [httpx.get(s.base + f"/api/tables/{t.id}", timeout=10).json() for s in (a, b)]
        assert views[0]["v"] == views[1]["v"] == last and views[0]["players"] == views[1]["players"]
        records = [httpx.get(s.base + f"/t/{t.id}/record.json", timeout=10).json() for s in (a, b)]
        assert records[0] == records[1]
    refused = [code for t in tables for code in t.refused]
    assert refused and set(refused) <= {"server/busy", "stale/version", "cluster/moved"}, refused
    store.close()
