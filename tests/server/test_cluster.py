"""Several `yambak serve` processes on one PostgreSQL and one Redis: any socket on any process.

Real processes on free ports (as hosts behind a sticky-less proxy would be): a game whose players
sit on different processes; a spectator on one process of a table owned by the other; the owner
killed with SIGKILL mid-turn and the game finished through the survivor; bots adopted; kept sheets;
the shared rate limit; `--workers`.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from yambak.engine import replay
from yambak.store import Store

from .helpers import OwnRedis, ServerProcess, legal


@pytest.fixture
def two(pg_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = {"YAMBAK_LEASE_SECONDS": "2"}
    a = ServerProcess(pg_url, env=env, redis=redis_url, log_path=str(tmp_path / "a.log"), bot_delay=0.02)
    b = ServerProcess(pg_url, env=env, redis=redis_url, log_path=str(tmp_path / "b.log"), bot_delay=0.02)
    try:
        a.start()
        b.start()
        yield a, b
    finally:
        a.stop()
        b.stop()


class Client:
    """One socket to one process: follows the table's version, acts for its seats."""

    def __init__(self, server: ServerProcess, table: str, tokens: list[str], since: int | None = None) -> None:
        self._socket = connect(server.base.replace("http", "ws") + f"/ws/{table}", open_timeout=10)
        self.ws = self._socket.__enter__()
        self.events: list[tuple[int, dict[str, Any]]] = []
        hello: dict[str, Any] = {"type": "hello", "tokens": tokens}
        if since is not None:
            hello["since"] = since
        self.ws.send(json.dumps(hello))
        welcome = self._recv()
        assert welcome["type"] == "welcome", welcome
        self.seats = welcome["seats"]
        self.v = -1
        self.view: dict[str, Any] = {}
        self._take(self._recv())

    def _recv(self, timeout: float = 15) -> dict[str, Any]:
        return json.loads(self.ws.recv(timeout))

    def _take(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg["type"] == "event":
            self.events.append((msg["v"], msg["event"]))
        elif msg["type"] == "events":
            self.events += [(e["v"], e["event"]) for e in msg["events"]]
        if msg["type"] in ("event", "events", "state"):
            self.v = msg["v"]
            self.view = msg.get("view", self.view)  # `events` without a view: nothing missed
        return msg

    def catch_up(self, version: int, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        while self.v < version:
            self._take(self._recv(max(0.1, deadline - time.monotonic())))

    def act(self, **msg: Any) -> dict[str, Any]:
        """Send an action on the version seen; return its event message (or the refusal)."""
        self.ws.send(json.dumps({**msg, "v": self.v}))
        while True:
            out = self._take(self._recv())
            if out["type"] == "error" or (out["type"] == "event" and out["event"]["player"] == msg["seat"]):
                return out

    def close(self) -> None:
        self._socket.__exit__(None, None, None)


def _create(server: ServerProcess, **body: Any) -> dict[str, Any]:
    r = httpx.post(server.base + "/api/tables", json={"name": "Cluster", "preset": "yams", **body}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def _turn(player: Client, seat: int) -> None:
    """Roll, then the first legal box."""
    out = player.act(type="roll", seat=seat)
    assert out["type"] == "event", out
    box = legal(out["view"]["players"][seat]["turn"])[0]
    out = player.act(type="score", seat=seat, box=box)
    assert out["type"] == "event", out


def _in_order_once(events: list[tuple[int, dict[str, Any]]], last: int) -> None:
    assert [v for v, _ in events] == list(range(1, last + 1))


def test_a_game_across_processes_and_a_spectator_on_the_other(two):
    a, b = two
    made = _create(b, seats=[{"name": "Ann"}, {"name": "Bram"}])  # B owns the table
    table, tokens = made["id"], made["tokens"]
    spectator = Client(a, table, [])
    ann, bram = Client(a, table, [tokens["0"]]), Client(b, table, [tokens["1"]])
    assert (ann.seats, bram.seats, spectator.seats) == ([0], [1], [])
    players = {0: ann, 1: bram}
    while not ann.view["finished"]:
        seat = ann.view["current"]
        players[seat].catch_up(ann.v)
        _turn(players[seat], seat)
        ann.catch_up(players[seat].v)
    last = ann.v
    assert last == 52  # 26 turns of a roll and a box
    spectator.catch_up(last)
    bram.catch_up(last)
    # the spectator on A saw every event of B's table, in order, once; so did each player
    for client in (spectator, ann, bram):
        _in_order_once(client.events, last)
    assert spectator.events == bram.events
    store = Store(b.db_url, migrate=False)
    stored = [(e.version, e.data) for e in store.events(table)]
    store.close()
    assert stored == spectator.events
    record_a = httpx.get(a.base + f"/t/{table}/record.json").json()
    record_b = httpx.get(b.base + f"/t/{table}/record.json").json()
    assert record_a == record_b and replay(record_a).finished
    forwarded = httpx.get(a.base + "/metrics").text
    assert "yambak_forwarded_total 5" in forwarded or "yambak_forwarded_total" in forwarded
    for c in (spectator, ann, bram):
        c.close()


def test_the_owner_killed_mid_turn_and_the_game_finished_on_the_other(two):
    a, b = two
    made = _create(a, seats=[{"name": "Ann"}, {"name": "Bram"}])  # A owns it
    table, tokens = made["id"], made["tokens"]
    ann, bram = Client(b, table, [tokens["0"]]), Client(a, table, [tokens["1"]])
    spectator = Client(b, table, [])
    players = {0: ann, 1: bram}
    for _ in range(4):
        seat = ann.view["current"]
        players[seat].catch_up(ann.v)
        _turn(players[seat], seat)
        ann.catch_up(players[seat].v)
    # mid-turn: Ann (on B) rolls and holds, through A
    first = ann.act(type="roll", seat=0)
    held = ann.act(type="hold", seat=0, dice=[0, 1])
    assert held["event"]["held"] == [0, 1]
    a.kill()  # SIGKILL: no goodbye
    start = time.monotonic()
    second = ann.act(type="roll", seat=0)  # B takes the table over from the log and rolls
    took = time.monotonic() - start
    assert second["type"] == "event", second
    assert took < 5, took
    assert second["v"] == held["v"] + 1 and second["event"]["roll"] == 2
    assert second["event"]["dice"][:2] == first["event"]["dice"][:2]  # the held dice survived the takeover
    box = legal(second["view"]["players"][0]["turn"])[0]
    ann.act(type="score", seat=0, box=box)
    # Bram's socket died with A: he comes back on B from the last version he saw
    bram.close()
    bram = Client(b, table, [tokens["1"]], since=bram.v)
    players[1] = bram
    while not ann.view["finished"]:
        seat = ann.view["current"]
        players[seat].catch_up(ann.v)
        _turn(players[seat], seat)
        ann.catch_up(players[seat].v)
    last = ann.v
    spectator.catch_up(last)
    _in_order_once(spectator.events, last)  # across the takeover: every event, in order, once
    store = Store(b.db_url, migrate=False)
    stored = store.events(table)
    row = store.get_session(table)
    store.close()
    assert [e.version for e in stored] == list(range(1, last + 1))
    assert [(e.version, e.data) for e in stored] == spectator.events
    assert row.finished and row.version == last and replay(row.record).finished
    record = httpx.get(b.base + f"/t/{table}/record.json").json()
    state = replay(record)
    assert state.finished and len(record["turns"]) == 26
    assert record["turns"][4]["rolls"][:2] == [first["event"]["dice"], second["event"]["dice"]]
    assert "yambak_lease_moves_total 1.0" in httpx.get(b.base + "/metrics").text
    for c in (ann, bram, spectator):
        c.close()


def test_an_owner_killed_right_after_a_forwarded_action_the_client_learns_the_truth(pg_url, tmp_path):
    """Bram's roll goes from B to the table's owner A, which commits it; before A's answer or its event
    can leave, Redis takes no more writes (`CLIENT PAUSE ... WRITE`, on a redis-server of this test's
    own) and A is killed. B takes the table over from the log and tries the roll again under its ref:
    Bram is answered with the roll as it was made (the event, or an `ack` with it), never a refusal,
    and the log holds it once. The moment is made certain by a lock in PostgreSQL: A's commit waits
    on the table's row until the pause is in place."""
    import redis
    from sqlalchemy import create_engine, text

    own = OwnRedis(tmp_path)
    own.start()
    env = {"YAMBAK_LEASE_SECONDS": "2"}
    a = ServerProcess(pg_url, env=env, redis=own.url, log_path=str(tmp_path / "a.log"))
    b = ServerProcess(pg_url, env=env, redis=own.url, log_path=str(tmp_path / "b.log"))
    admin = redis.Redis.from_url(own.url, socket_timeout=5)
    engine = create_engine(pg_url)
    try:
        a.start(wait=90)
        b.start(wait=90)
        made = _create(a, seats=[{"name": "Ann"}, {"name": "Bram"}])  # A owns it; Ann plays there
        table, tokens = made["id"], made["tokens"]
        ann, bram = Client(a, table, [tokens["0"]]), Client(b, table, [tokens["1"]])
        _turn(ann, 0)
        bram.catch_up(ann.v)
        v = bram.v
        with engine.connect() as holder:
            holder.execute(text("SELECT id FROM game_tables WHERE id = :t FOR UPDATE"), {"t": table})
            bram.ws.send(json.dumps({"type": "roll", "seat": 1, "v": v, "ref": "bram-1"}))
            deadline = time.monotonic() + 60  # generous: a busy machine starves these processes
            with engine.connect() as probe:  # A's insert waits on the row: the forwarded roll reached it
                while not probe.execute(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    " AND wait_event_type = 'Lock' AND query LIKE '%events%'"
                )).scalar():  # fmt: skip
                    assert time.monotonic() < deadline, "the owner never started to store the roll"
                    try:  # nothing comes back meanwhile (a refusal would say why the roll went nowhere)
                        early = bram._take(json.loads(bram.ws.recv(0.02)))
                    except TimeoutError:
                        continue
                    assert early["type"] != "error", early
            admin.client_pause(60_000, all=False)  # WRITE: no PUBLISH, no script: A's answer cannot leave
            holder.rollback()  # A's commit goes through
        with engine.connect() as probe:
            while not probe.execute(text("SELECT count(*) FROM events WHERE table_id = :t AND ref = 'bram-1'"),
                                    {"t": table}).scalar():  # fmt: skip
                assert time.monotonic() < deadline, "the owner did not store the roll"
                time.sleep(0.02)
        a.kill()
        admin.client_unpause()
        answer = None
        while answer is None:
            msg = bram._take(bram._recv(20))
            assert not (msg["type"] == "error" and msg.get("ref") == "bram-1"), msg  # never refused: it was done
            if msg.get("ref") == "bram-1" or any(e.get("ref") == "bram-1" for e in msg.get("events", [])):
                answer = msg
        assert answer["type"] in ("event", "events", "ack"), answer
        rolled = next(e for n, e in bram.events if n == v + 1)
        assert rolled["type"] == "rolled" and rolled["player"] == 1
        out = bram.act(type="score", seat=1, box=legal(bram.view["players"][1]["turn"])[0])  # B owns it now
        assert out["type"] == "event" and out["v"] == v + 2, out
        store = Store(pg_url, migrate=False)
        stored = store.events(table)
        store.close()
        assert [e.version for e in stored] == list(range(1, v + 3))
        assert [e.ref for e in stored].count("bram-1") == 1 and stored[v].ref == "bram-1"
        assert stored[v].data == rolled
        bram.close()
    finally:
        engine.dispose()
        a.stop()
        b.stop()
        if own.proc is not None and own.proc.poll() is None:
            own.stop()


def test_socket_caps_hold_across_processes_and_see_clients_behind_a_trusted_proxy(pg_url, redis_url, tmp_path):
    """The caps on open sockets count every process's sockets (in Redis): 12 per table here, 6 through
    each process, and the 13th is refused wherever it lands. A trusted proxy's X-Forwarded-For names the
    client the caps count (A trusts 127.0.0.1, uvicorn's `forwarded_allow_ips`); an untrusted peer's is
    ignored (B trusts only 10.9.9.9): there every socket is 127.0.0.1's."""
    from websockets.exceptions import ConnectionClosed

    env = {"YAMBAK_SOCKETS_PER_TABLE": "12"}
    a = ServerProcess(pg_url, env=env, redis=redis_url, log_path=str(tmp_path / "a.log"))
    b = ServerProcess(pg_url, env={**env, "YAMBAK_FORWARDED_ALLOW_IPS": "10.9.9.9"}, redis=redis_url,
                      log_path=str(tmp_path / "b.log"))  # fmt: skip
    net = f"198.51.{secrets.randbelow(200)}"  # addresses of this run's own (the test Redis outlives it)
    opened = []

    def open_(server: ServerProcess, table: str, address: str) -> dict[str, Any]:
        url = server.base.replace("http", "ws") + f"/ws/{table}"
        ws = connect(url, open_timeout=10, additional_headers={"X-Forwarded-For": address}).__enter__()
        opened.append(ws)
        try:
            ws.send(json.dumps({"type": "hello"}))
        except ConnectionClosed:  # refused at once: its refusal is there to read
            pass
        first = json.loads(ws.recv(10))
        if first["type"] == "error":
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
        return first

    try:
        a.start()
        b.start()
        t, u, v = (_create(a, seats=[{"name": "Ann"}])["id"] for _ in range(3))
        assert all(open_(a, t, f"{net}.1")["type"] == "welcome" for _ in range(6))
        assert all(open_(b, t, f"{net}.2")["type"] == "welcome" for _ in range(6))
        for server in (a, b):
            refused = open_(server, t, f"{net}.3")
            assert (refused["code"], refused["cap"], refused["limit"]) == ("rate/sockets", "total", 12), refused
        assert all(open_(a, u, f"{net}.4")["type"] == "welcome" for _ in range(10))
        assert open_(a, u, f"{net}.4")["cap"] == "session"  # the 11th from one client
        assert open_(a, u, f"{net}.5")["type"] == "welcome"  # another client behind the same proxy
        assert all(open_(b, v, f"{net}.{i}")["type"] == "welcome" for i in range(10, 20))
        assert open_(b, v, f"{net}.20")["cap"] == "session"  # B does not trust this peer: all are 127.0.0.1
    finally:
        for ws in opened:
            ws.close()
        a.stop()
        b.stop()


def test_bots_are_adopted_when_their_owner_dies(two):
    a, b = two
    made = _create(a, seats=[{"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "greedy"}])
    table = made["id"]
    deadline = time.monotonic() + 30
    while httpx.get(a.base + f"/api/tables/{table}").json()["v"] < 2:  # the bots play, on A
        assert time.monotonic() < deadline, "the bots never began"
        time.sleep(0.02)
    a.kill()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = httpx.get(b.base + f"/api/tables/{table}").json()
        if view["finished"]:
            break
        time.sleep(0.3)
    assert view["finished"], view["v"]
    store = Store(b.db_url, migrate=False)
    versions = [e.version for e in store.events(table)]
    store.close()
    assert versions == list(range(1, len(versions) + 1))  # bots ran once: no version twice, no gap


def test_kept_sheets_across_processes(two):
    a, b = two
    r = httpx.post(a.base + "/api/keep", json={"name": "Kitchen", "preset": "yams", "players": ["Ann", "Bram"]})
    assert r.status_code == 201, r.text
    sheet, code = r.json()["id"], r.json()["code"]
    joined = httpx.post(b.base + "/api/keep/join", json={"code": code}).json()  # codes join anywhere
    assert joined["id"] == sheet
    auth = {"authorization": f"Bearer {joined['token']}"}  # a token handed out on B writes on A
    with connect(a.base.replace("http", "ws") + f"/ws/keep/{sheet}", open_timeout=10) as follower:
        follower.send(json.dumps({"type": "hello"}))
        assert json.loads(follower.recv(10))["type"] == "welcome"
        assert json.loads(follower.recv(10))["v"] == 0
        entry = {"id": "entry-00001", "v": 0, "kind": "dice", "seat": 0, "dice": [6, 6, 6, 6, 6], "box": "yam"}
        # entered on B, owned by A
        out = httpx.post(b.base + f"/api/keep/{sheet}/entries", json=entry, headers=auth).json()
        assert out["v"] == 1 and not out["duplicate"]
        live = json.loads(follower.recv(10))  # the phone following on A sees it
        assert live["v"] == 1 and live["view"]["players"][0]["total"] == 50
        # the offline queue replays
        again = httpx.post(a.base + f"/api/keep/{sheet}/entries", json=entry, headers=auth).json()
        assert again["duplicate"] and again["applied_as"] == 1
        entry2 = {"id": "entry-00002", "v": 1, "kind": "scratch", "seat": 1, "box": "yam"}
        assert httpx.post(b.base + f"/api/keep/{sheet}/entries", json=entry2, headers=auth).json()["v"] == 2
        assert json.loads(follower.recv(10))["v"] == 2
    a.kill()  # the owner dies: B takes the sheet over
    entry3 = {"id": "entry-00003", "v": 2, "kind": "dice", "seat": 0, "dice": [1, 1, 1, 2, 2], "box": "ones"}
    out = httpx.post(b.base + f"/api/keep/{sheet}/entries", json=entry3, headers=auth, timeout=15).json()
    assert out["v"] == 3, out
    record = httpx.get(b.base + f"/keep/{sheet}/record.json").json()
    assert [t["box"] for t in record["turns"]] == ["free.yam", "free.yam", "free.ones"]


def test_the_rate_limit_is_shared_by_every_process(pg_url, redis_url):
    env = {"YAMBAK_HTTP_RATE": "0.01", "YAMBAK_HTTP_BURST": "3"}
    a = ServerProcess(pg_url, env=env, redis=redis_url)
    b = ServerProcess(pg_url, env=env, redis=redis_url)
    try:
        a.start()
        b.start()
        # an address of its own (loopback is a trusted proxy): the bucket is Redis's, shared with other tests
        who = {"X-Forwarded-For": f"198.51.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"}
        codes = [
            httpx.post(s.base + "/api/keep/join", json={"code": "ZZZZZZ"}, headers=who).status_code
            for s in (a, b, a, b, a)
        ]
    finally:
        a.stop()
        b.stop()
    assert codes == [404, 404, 404, 429, 429]


def test_workers_on_one_port(pg_url, redis_url, tmp_path):
    server = ServerProcess(pg_url, redis=redis_url, workers=2, log_path=str(tmp_path / "w.log"))
    server.start()
    try:
        made = _create(server, seats=[{"name": "Ann"}, {"name": "Bram"}])
        clients = [Client(server, made["id"], [made["tokens"][s]]) for s in ("0", "1", "0", "1")]
        ann = clients[0]
        for seat in (0, 1, 0):
            player = clients[seat]
            player.catch_up(ann.v)
            _turn(player, seat)
            ann.catch_up(player.v)
        for c in clients:
            c.catch_up(6)
            assert [v for v, _ in c.events] == [1, 2, 3, 4, 5, 6]
            c.close()
        metrics = httpx.get(server.base + "/metrics").text
        assert "yambak_actions_total 6.0" in metrics  # summed over the workers
    finally:
        server.stop()


@pytest.mark.parametrize(
    "args, says",
    [
        (["--db", "sqlite:///x.db", "--redis", "redis://127.0.0.1:1"], "PostgreSQL"),
        (["--db", "postgresql+psycopg://u:p@127.0.0.1:1/x"], "Redis"),
    ],
)
def test_workers_are_refused_on_sqlite_or_without_redis(args, says, monkeypatch):
    monkeypatch.delenv("YAMBAK_REDIS_URL", raising=False)
    exe = Path(sys.executable).with_name("yambak")
    done = subprocess.run([str(exe), "serve", "--workers", "2", *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr


def test_a_table_whose_players_all_sit_elsewhere_moves_to_them(two):
    a, b = two
    made = _create(a, seats=[{"name": "Ann"}, {"name": "Bram"}])  # created, so owned, on A
    table, tokens = made["id"], made["tokens"]
    ann, bram = Client(b, table, [tokens["0"]]), Client(b, table, [tokens["1"]])  # both on B
    spectator = Client(a, table, [])  # a watcher on A does not keep it there
    _turn(ann, 0)  # forwarded to A, which hands the table to B
    bram.catch_up(ann.v)
    _turn(bram, 1)  # done on B
    ann.catch_up(bram.v)
    spectator.catch_up(bram.v)
    _in_order_once(spectator.events, 4)
    _in_order_once(ann.events, 4)
    late = Client(a, table, [])  # A, owner no more, brings its copy up to date with B's rolls
    assert late.v == 4 and late.view["players"] == bram.view["players"]
    late.close()
    metrics_b = httpx.get(b.base + "/metrics").text
    assert "yambak_handoffs_total 1.0" in metrics_b
    assert "yambak_forwarded_total 1.0" in metrics_b  # the first roll only: then the table is on B
    store = Store(b.db_url, migrate=False)
    assert [e.version for e in store.events(table)] == [1, 2, 3, 4]
    store.close()
    for c in (ann, bram, spectator):
        c.close()


def _metric(server: ServerProcess, name: str) -> float:
    for line in httpx.get(server.base + "/metrics").text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def test_a_late_spectator_on_another_process_sees_every_event_of_a_quiet_table(two):
    a, b = two
    made = _create(b, seats=[{"name": "Ann"}, {"name": "Bram"}])
    table, tokens = made["id"], made["tokens"]
    ann, bram = Client(b, table, [tokens["0"]]), Client(b, table, [tokens["1"]])  # nobody follows on A
    for _ in range(2):
        _turn(ann, 0)
        bram.catch_up(ann.v)
        _turn(bram, 1)
        ann.catch_up(bram.v)
    assert _metric(b, "yambak_quiet_events_total") >= 2  # B stopped sending events nobody received
    spectator = Client(a, table, [])  # A announces itself to B before it reads the log
    assert spectator.v == 8 and spectator.view["players"][1]["total"] == bram.view["players"][1]["total"]
    for _ in range(2):
        _turn(ann, 0)
        bram.catch_up(ann.v)
        _turn(bram, 1)
        ann.catch_up(bram.v)
    spectator.catch_up(16)
    assert [v for v, _ in spectator.events] == list(range(9, 17))
    assert spectator.events == bram.events[8:] and spectator.view == bram.view
    for c in (ann, bram, spectator):
        c.close()


def test_a_phone_following_a_quiet_sheet_from_another_process(two):
    a, b = two
    r = httpx.post(a.base + "/api/keep", json={"name": "Porch", "preset": "yams", "players": ["Ann", "Bram"]})
    sheet, auth = r.json()["id"], {"authorization": f"Bearer {r.json()['token']}"}
    first = {"id": "entry-00001", "v": 0, "kind": "dice", "seat": 0, "dice": [6, 6, 6, 6, 6], "box": "yam"}
    second = {"id": "entry-00002", "v": 1, "kind": "scratch", "seat": 1, "box": "yam"}
    for entry in (first, second):  # nobody follows the sheet on B yet
        assert httpx.post(a.base + f"/api/keep/{sheet}/entries", json=entry, headers=auth).json()["v"] == entry["v"] + 1
    assert _metric(a, "yambak_quiet_events_total") >= 1
    with connect(b.base.replace("http", "ws") + f"/ws/keep/{sheet}", open_timeout=10) as follower:
        follower.send(json.dumps({"type": "hello"}))
        assert json.loads(follower.recv(10))["type"] == "welcome"
        assert json.loads(follower.recv(10))["v"] == 2
        third = {"id": "entry-00003", "v": 2, "kind": "dice", "seat": 0, "dice": [1, 1, 1, 2, 2], "box": "ones"}
        assert httpx.post(a.base + f"/api/keep/{sheet}/entries", json=third, headers=auth).json()["v"] == 3
        live = json.loads(follower.recv(10))
        assert live["v"] == 3 and live["view"]["players"][0]["total"] == 53


class _Recorder:
    """The cluster's side of a feature, with nothing behind it: answers requests, keeps what it hears."""

    def __init__(self) -> None:
        self.heard: list[dict[str, Any]] = []

    async def handle_rpc(self, _object_id: str, op: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"op": op, "args": args}

    def on_message(self, _object_id: str, message: dict[str, Any]) -> None:
        self.heard.append(message)

    async def take_over(self, object_id: str) -> None:
        pass

    def lost_lease(self, object_id: str) -> None:
        pass

    def owned_ids(self) -> list[str]:
        return []

    def watched_ids(self) -> list[str]:
        return []


def test_a_process_whose_redis_connection_drops_hears_again(redis_url: str) -> None:
    """Redis drops the connection a process receives on: it reconnects, subscribes again to its requests
    and to what it follows, and tells the owner, whose channel had gone quiet meanwhile, well before the
    quiet period's own probe would (QUIET_SECONDS)."""
    from yambak.server.cluster import QUIET_SECONDS, Cluster

    async def scenario() -> None:
        owner, follower = Cluster(redis_url), Cluster(redis_url)
        owner.owners, follower.owners = {"thing": _Recorder()}, {"thing": _Recorder()}
        heard = follower.owners["thing"].heard  # type: ignore[attr-defined]
        await owner.start()
        await follower.start()
        try:
            thing = secrets.token_hex(6)
            await owner.claim_new("thing", thing)
            await follower.follow("thing", thing)
            owner.publish("thing", thing, {"kind": "event", "v": 1})
            await _until(lambda: [m["v"] for m in heard] == [1])

            host, port = follower._sub._writer.get_extra_info("sockname")[:2]
            await owner.redis.execute_command("CLIENT", "KILL", "ADDR", f"{host}:{port}")
            owner.publish("thing", thing, {"kind": "event", "v": 2})  # nobody hears it: the channel goes quiet
            await _until(lambda: owner._quiet)
            start, v = time.monotonic(), 2
            while not heard or heard[-1]["v"] < 3:
                v += 1
                owner.publish("thing", thing, {"kind": "event", "v": v})
                await asyncio.sleep(0.1)
                assert time.monotonic() - start < QUIET_SECONDS / 2, "the follower was not heard from again"
            assert [m["v"] for m in heard][0] == 1 and 2 not in [m["v"] for m in heard]
            reply = await follower.call(owner.node, "thing", thing, "ping", {"n": 7})  # its requests come back
            assert reply == {"result": {"op": "ping", "args": {"n": 7}}}
        finally:
            await follower.stop()
            await owner.stop()

    asyncio.run(scenario())


async def _until(check: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def test_presence_across_processes_a_friend_who_leaves_is_played_for(pg_url, redis_url, tmp_path):
    """Ann on A (the owner), her friend Bram on B: his socket closes on B, Ann's page on A shows him away
    within 5 s and the stand-in plays his turn; back on B, his page says what it played for him."""
    env = {"YAMBAK_LEASE_SECONDS": "2", "YAMBAK_AWAY_TURN": "2"}
    a = ServerProcess(pg_url, env=env, redis=redis_url, log_path=str(tmp_path / "a.log"))
    b = ServerProcess(pg_url, env=env, redis=redis_url, log_path=str(tmp_path / "b.log"))
    try:
        a.start()
        b.start()
        made = _create(a, seats=[{"name": "Ann"}, {"kind": "open"}], listed=False)
        joined = httpx.post(b.base + f"/api/tables/{made['id']}/join", json={"name": "Bram"}, timeout=10).json()
        ann = Client(a, made["id"], [made["tokens"]["0"]])
        bram = Client(b, made["id"], [joined["token"]])
        deadline = time.monotonic() + 10
        while ann.view["online"] != [0, 1]:  # Bram's socket on B, told to A
            ann._take(ann._recv(max(0.1, deadline - time.monotonic())))
        assert bram.view["online"] == [0, 1]
        # reactions both ways: Bram's is forwarded to A, the owner, which tells B again
        bram.ws.send(json.dumps({"type": "react", "seat": 1, "reaction": "luck"}))
        ann.ws.send(json.dumps({"type": "react", "seat": 0, "reaction": "thanks"}))
        for client, want in ((ann, {(1, "luck"), (0, "thanks")}), (bram, {(1, "luck"), (0, "thanks")})):
            got = set()
            while got != want:
                msg = client._take(client._recv(10))
                if msg["type"] == "reaction":
                    got.add((msg["seat"], msg["reaction"]))
        _turn(ann, 0)
        bram.catch_up(ann.v)
        bram.close()  # during his turn
        left = time.monotonic()
        while ann.view["online"] != [0]:
            ann._take(ann._recv(5))
        assert time.monotonic() - left < 5
        while not any(e["type"] == "scored" and e["player"] == 1 for _, e in ann.events):
            ann._take(ann._recv(10))
        v, event = next((v, e) for v, e in ann.events if e["type"] == "scored" and e["player"] == 1)
        assert event["absent"] is True
        bram = Client(b, made["id"], [joined["token"]])
        bram.catch_up(v)  # B's copy may hear of the stand-in's last move a moment after A
        assert bram.view["played_for"] == {"1": [{"box": event["box"], "written": event["written"]}]}
        while ann.view["online"] != [0, 1]:  # back: Ann's page on A says so
            ann._take(ann._recv(5))
        ann.close()
        bram.close()
    finally:
        a.stop()
        b.stop()
