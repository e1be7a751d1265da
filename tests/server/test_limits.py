"""Resource limits: a per-client bucket on create/join routes, a cap on live tables and sheets,
finished ones dropped from memory (and reloaded from the store when opened)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings, create_app

from .helpers import browser

SEATS = [{"name": "Ann"}]


@pytest.fixture
def tight(tmp_path) -> Iterator[TestClient]:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/t.db",
        bot_delay=0.0,
        warm_strategies=False,
        http_rate=0.001,
        http_burst=3,
        max_tables=2,
        max_sheets=2,
    )
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        yield c


def _table(client, seats=SEATS, **extra):
    return client.post("/api/tables", json={"name": "t", "preset": "yams", "seats": seats, **extra})


def test_create_routes_are_rate_limited_per_client(tight):
    assert [_table(tight).status_code for _ in range(3)][:2] == [201, 201]
    r = _table(tight)
    assert r.status_code == 429 and r.json()["code"] == "rate/limited"
    # every create/join route shares the bucket: the JSON API, the lobby form, the keeper, joining
    r = tight.post("/api/keep", json={"preset": "yams", "players": ["Ann"]})
    assert r.status_code == 429 and r.json()["code"] == "rate/limited"
    r = tight.post("/tables", data={"name": "x", "preset": "yams", "seat0_kind": "human", "seat0_name": "A"})
    assert r.status_code == 429 and "Too many requests" in r.text and "<html" in r.text
    r = tight.post("/keep", data={"name": "x", "preset": "yams", "player0": "A"})
    assert r.status_code == 429 and "<html" in r.text
    r = tight.post("/api/tables/whatever/join", json={"name": "B"})
    assert r.status_code == 429
    # another client address has its own bucket
    other = browser(tight, client=("10.0.0.9", 1234))
    assert _table(other).status_code in (201, 503)


def test_live_tables_are_capped(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/t.db", bot_delay=0.0, warm_strategies=False, max_tables=2)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        assert _table(c).status_code == 201 and _table(c).status_code == 201
        r = _table(c)
        assert r.status_code == 503 and r.json()["code"] == "server/full"
        page = c.post("/tables", data={"name": "x", "preset": "yams", "seat0_kind": "human", "seat0_name": "A"})
        assert page.status_code == 503 and "<html" in page.text


def _wait_finished(client, table_id):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if table_id not in client.app.state.manager.sessions:
            return
        time.sleep(0.05)
    raise AssertionError("the finished table stayed in memory")


def test_finished_tables_leave_memory_and_reload(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/t.db", bot_delay=0.0, warm_strategies=False, max_tables=2)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        bots = _table(c, seats=[{"kind": "bot", "bot": "easy"}]).json()
        _wait_finished(c, bots["id"])  # a bot-only game nobody watches: dropped when it ends
        assert _table(c).status_code == 201 and _table(c).status_code == 201
        assert _table(c).status_code == 503
        view = c.get(f"/api/tables/{bots['id']}").json()  # still in the store: opened on demand
        assert view["finished"] and view["players"][0]["full"]
        assert c.get(f"/t/{bots['id']}").status_code == 200
        assert c.app.state.manager.evict_finished() >= 1 and bots["id"] not in c.app.state.manager.sessions


def test_live_sheets_are_capped_and_finished_ones_dropped(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/t.db", bot_delay=0.0, warm_strategies=False, max_sheets=1)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        made = c.post("/api/keep", json={"preset": "yatzy", "players": ["Ann"]}).json()
        r = c.post("/api/keep", json={"preset": "yatzy", "players": ["Bo"]})
        assert r.status_code == 503 and r.json()["code"] == "server/full"
        view = c.get(f"/api/keep/{made['id']}").json()
        for row in view["rules"]["rows"]:  # fill the sheet: the game ends
            box = f"{view['rules']['columns'][0]['id']}.{row['id']}"
            out = c.post(
                f"/api/keep/{made['id']}/entries",
                json={
                    "id": f"entry-{box}".replace(".", "-"),
                    "v": view["v"],
                    "kind": "dice",
                    "seat": 0,
                    "dice": [1, 2, 3, 4, 6],
                    "roll": 1,
                    "box": box,
                },
                headers={"authorization": f"Bearer {made['token']}"},
            )
            assert out.status_code == 200, out.text
            view = out.json()["view"]
        assert view["finished"] and made["id"] not in c.app.state.keeper.sessions
        assert c.post("/api/keep", json={"preset": "yatzy", "players": ["Bo"]}).status_code == 201
        assert c.get(f"/api/keep/{made['id']}").json()["finished"]  # reloaded from the store


def test_guessing_sheet_codes_is_rate_limited(tight):
    made = tight.post("/api/keep", json={"preset": "yams", "players": ["Ann"]}).json()  # 1 of the burst of 3
    assert tight.post("/api/keep/join", json={"code": made["code"]}).json()["id"] == made["id"]  # 2
    assert tight.post("/api/keep/join", json={"code": "ZZZZZZ"}).status_code == 404  # 3: a wrong guess
    r = tight.post("/api/keep/join", json={"code": made["code"]})
    assert r.status_code == 429 and r.json()["code"] == "rate/limited"
    r = tight.get("/keep/join", params={"code": "QQQQQQ"}, follow_redirects=False)
    assert r.status_code == 429 and "<html" in r.text
    assert tight.get("/k/ABCDEF", follow_redirects=False).status_code == 429


def test_the_shared_rate_limit_holds_without_redis():
    """Redis does not answer: the process counts the same budget itself, never lets everything through."""
    from yambak.server.cluster import RedisLimiter

    from .helpers import free_port

    limiter = RedisLimiter(f"redis://127.0.0.1:{free_port()}/0", rate=0.001, burst=2)  # nothing listens there
    assert [limiter.take("1.2.3.4") for _ in range(4)] == [True, True, False, False]
    assert limiter.take("5.6.7.8")  # per client address, as in Redis


# --- a fair share per client: socket caps, hellos, advice ------------------------------------------------


def _refused_socket(client: TestClient, path: str) -> tuple[dict, int]:
    """A socket over a cap: its coded refusal, and the close code."""
    from starlette.websockets import WebSocketDisconnect

    with client.websocket_connect(path) as s:
        refusal = s.receive_json()
        with pytest.raises(WebSocketDisconnect) as closed:
            s.receive_json()
    return refusal, closed.value.code


def test_the_eleventh_socket_from_one_address_to_a_table_is_refused(client):
    made = client.post("/api/tables", json={"name": "t", "preset": "yams", "seats": SEATS}).json()
    path = f"/ws/{made['id']}"
    opened = [client.websocket_connect(path) for _ in range(10)]
    for s in opened:
        s.__enter__().send_json({"type": "hello"})
        assert s.receive_json()["type"] == "welcome"
    refusal, code = _refused_socket(client, path)
    assert (refusal["code"], refusal["cap"], refusal["limit"], code) == ("rate/sockets", "session", 10, 4409)
    assert refusal["message"] == "Too many connections from your network: close a tab or try again later."
    opened.pop().__exit__(None, None, None)  # one closes: the next one is in
    with client.websocket_connect(path) as s:
        s.send_json({"type": "hello"})
        assert s.receive_json()["type"] == "welcome"
    for s in opened:
        s.__exit__(None, None, None)


def test_a_16_player_club_behind_one_nat_still_plays(tmp_path):
    """Sixteen players at one address (a club's evening: one router), each at the round's table of their
    own with the page open on a phone and on a laptop: 32 sockets from one address, every one let in."""
    from .deal_helpers import ORIGIN
    from .profile_helpers import Clock, profile_settings

    clock = Clock(__import__("datetime").datetime(2026, 3, 2, 18, 0, tzinfo=__import__("datetime").UTC))
    settings = profile_settings(tmp_path, clock, http_burst=1000, profile_burst=100)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as host:
        players = [browser(host) for _ in range(16)]
        for i, c in enumerate(players):
            assert c.post("/api/me", json={"name": f"Player {i + 1}"}, headers=ORIGIN).status_code == 201
        club = players[0].post("/api/clubs", json={"name": "Club", "preset": "yams", "rounds": 1, "window": 60})
        invite = club.json()["invite"].split("invite=")[1]
        sockets = []
        for c in players:
            if c is not players[0]:
                assert c.post(f"/api/clubs/{club.json()['id']}/join", json={"invite": invite}).json()["joined"]
            made = c.post(f"/api/clubs/{club.json()['id']}/rounds/1/play").json()
            for _ in range(2):  # a phone and a laptop
                s = c.websocket_connect(f"/ws/{made['id']}")
                ws = s.__enter__()
                ws.send_json({"type": "hello", "tokens": list(made["tokens"].values())})
                assert ws.receive_json()["type"] == "welcome"
                sockets.append((s, ws, made))
        for _, ws, _ in sockets[::2]:  # every player rolls
            ws.receive_json()
            ws.send_json({"type": "roll", "seat": 0, "v": 0})
            assert ws.receive_json()["type"] == "event"
        for s, _, _ in sockets:
            s.__exit__(None, None, None)


def test_hello_since_gets_only_what_was_missed_and_hellos_are_rate_limited(client):
    made = client.post("/api/tables", json={"name": "t", "preset": "yams", "seats": SEATS}).json()
    token = made["tokens"]["0"]
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        s.send_json({"type": "hello", "tokens": [token]})
        s.receive_json(), s.receive_json()
        for v in range(3):
            s.send_json({"type": "roll" if v != 1 else "hold", "seat": 0, "v": v, **({"dice": [0]} if v == 1 else {})})
            assert s.receive_json()["v"] == v + 1
        s.send_json({"type": "hello", "since": 1})
        assert s.receive_json()["type"] == "welcome"
        missed = s.receive_json()
        assert [e["v"] for e in missed["events"]] == [2, 3] and missed["view"]["v"] == 3  # the view after them
        s.send_json({"type": "hello", "since": 3})
        s.receive_json()
        assert s.receive_json() == {"type": "events", "v": 3, "events": []}  # nothing missed: no view
        for _ in range(2):  # five hellos at once (the first included), then one every two seconds
            s.send_json({"type": "hello", "since": 3, "ref": "h"})
            assert s.receive_json()["type"] == "welcome"
            s.receive_json()
        s.send_json({"type": "hello", "since": 3, "ref": "h6"})
        refused = s.receive_json()
        assert (refused["type"], refused["code"], refused["ref"]) == ("error", "rate/limited", "h6")


def test_a_second_advise_replaces_the_pending_one(client):
    """The coach works in its own pool, one request per client at a time: a newer request cancels the one
    still waiting or running; that one is answered `advice/replaced` and only the newer is advised."""
    made = client.post("/api/tables", json={"name": "t", "preset": "yammen", "seats": [{"name": "A"}, {"name": "B"}],
                                            "hints": True}).json()  # fmt: skip
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        s.send_json({"type": "hello", "tokens": [made["tokens"]["0"]]})
        s.receive_json(), s.receive_json()
        s.send_json({"type": "roll", "seat": 0, "v": 0})
        assert s.receive_json()["v"] == 1
        s.send_json({"type": "advise", "seat": 0, "v": 1, "ref": "a1"})
        s.send_json({"type": "advise", "seat": 0, "v": 1, "ref": "a2"})
        first, second = s.receive_json(), s.receive_json()
        assert (first["type"], first["code"], first["ref"]) == ("error", "advice/replaced", "a1"), first
        assert second["type"] == "advice" and second["v"] == 1 and second["advice"]["best"], second
        s.send_json({"type": "ping"})
        assert s.receive_json() == {"type": "pong"}  # one answer for each: nothing else was on its way
