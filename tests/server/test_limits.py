"""Resource limits: a per-client bucket on create/join routes, a cap on live tables and sheets,
finished ones dropped from memory (and reloaded from the store when opened)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings, create_app

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
    other = TestClient(tight.app, base_url="http://127.0.0.1", client=("10.0.0.9", 1234))
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
