"""Asynchronous tables (SQLite and PostgreSQL): a clock of hours or days per turn, its deadline kept in the
store with the event that starts the turn, so that a restart resumes it and a table out of memory is
brought back when it passes; a reminder when a quarter of the clock is left (once); the stand-in waits
for the clock, not for an away player; and "your turn" lists of a profile's own turns."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings, create_app
from yambak.server.common.events import TurnSignal
from yambak.server.tables.settings import ASYNC_CLOCKS, choose

from .deal_helpers import ORIGIN, person
from .helpers import WS, browser, create, legal
from .profile_helpers import profile_settings

DAY = 86400


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def _day_table(ann: TestClient, bram: TestClient) -> tuple[str, dict[str, str]]:
    """Ann's table of a day per turn, Bram seated at it: (its id, each one's seat token)."""
    r = ann.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}],
                                      "listed": False, "clock": DAY})  # fmt: skip
    assert r.status_code == 201, r.text
    made = r.json()
    joined = bram.post(f"/api/tables/{made['id']}/join", json={"name": "Bram"}, headers=ORIGIN)
    assert joined.status_code == 200, joined.text
    return made["id"], {"ann": made["tokens"]["0"], "bram": joined.json()["token"]}


def _turns(c: TestClient) -> list[str]:
    r = c.get("/api/me/turns")
    assert r.status_code == 200, r.text
    return [t["table"] for t in r.json()["turns"]]


def _play_turn(c: TestClient, table_id: str, token: str) -> None:
    with c.websocket_connect(f"/ws/{table_id}") as s:
        ws = WS(s)
        welcome, out = ws.hello([token])
        seat = welcome["seats"][0]
        rolled = ws.act(type="roll", seat=seat, v=out["v"])
        scored = ws.act(type="score", seat=seat, v=rolled["v"], box=legal(rolled["view"]["players"][seat]["turn"])[0])
        assert scored["type"] == "event", scored


def _wait(check, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def test_clocks_of_hours_or_days_are_asynchronous(tmp_path) -> None:
    for clock in ASYNC_CLOCKS:
        s = choose(["human", "open"], False, False, {"clock": clock})
        assert s.clock == clock and s.asynchronous
    assert choose(["human", "open"], True, False, {"clock": 5000}).clock == 600  # live clocks stay in range
    assert not choose(["human", "open"], True, False, {"clock": 600}).asynchronous
    assert choose(["human", "open"], True, False, {"clock": DAY, "ranked": "yams"}).clock == 90  # ranked: live
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/t.db", warm_strategies=False))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        seats = [{"name": "A"}, {"kind": "open"}]
        assert c.post("/api/tables", json={"preset": "yams", "seats": seats, "clock": DAY}).status_code == 201
        refused = c.post("/api/tables", json={"preset": "yams", "seats": seats, "clock": 5000})
        assert refused.status_code == 422 and refused.json()["code"] == "input/invalid"
        assert 'option value="86400"' in c.get("/").text  # the lobby's form offers them
        form = {
            "name": "Days",
            "preset": "yams",
            "seat0_kind": "human",
            "seat0_name": "A",
            "seat1_kind": "open",
            "clock": "259200",
        }
        made = c.post("/tables", data=form, follow_redirects=False)
        assert made.status_code == 303
        table_id = made.headers["location"].rsplit("/", 1)[1]
        assert c.get(f"/api/tables/{table_id}").json()["settings"]["clock"] == 3 * DAY


def test_your_turn_lists_the_nearest_deadline_first_then_tables_without_a_clock(settings) -> None:
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        ann, bram = person(client, "Ann"), person(client, "Bram")
        r = ann.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}],
                                          "listed": False, "name": "No clock"})  # fmt: skip
        friends = r.json()["id"]
        bram.post(f"/api/tables/{friends}/join", json={"name": "Bram"}, headers=ORIGIN).raise_for_status()
        days, _ = _day_table(ann, bram)
        turns = ann.get("/api/me/turns").json()["turns"]
        assert [(t["table"], t["name"], t["left"]) for t in turns] == [
            (days, "Ann's table", DAY),
            (friends, "No clock", None),
        ]
        solo = ann.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}, {"kind": "bot"}]})
        assert solo.status_code == 201 and len(_turns(ann)) == 2  # alone against a bot: nobody waits, no list


def test_a_live_table_lists_only_a_player_away_on_their_turn(settings, clock) -> None:
    """Played live (everybody here) a table writes no turns; a person to act who leaves is listed, and is not
    once back."""
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        ann, bram = person(client, "Ann"), person(client, "Bram")
        r = ann.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}],
                                          "listed": False, "name": "Live"})  # fmt: skip
        table, token = r.json()["id"], r.json()["tokens"]["0"]
        joined = bram.post(f"/api/tables/{table}/join", json={"name": "Bram"}, headers=ORIGIN)
        bram_token = joined.json()["token"]
        assert _turns(ann) == [table]  # her turn, and she has not come yet
        with ann.websocket_connect(f"/ws/{table}") as a, bram.websocket_connect(f"/ws/{table}") as b:
            ws, other = WS(a), WS(b)
            _, out = ws.hello([token])
            other.hello([bram_token])
            _wait(lambda: _turns(ann) == [])  # at the table: nothing listed
            rolled = ws.act(type="roll", seat=0, v=out["v"])
            ws.act(type="score", seat=0, v=rolled["v"], box=legal(rolled["view"]["players"][0]["turn"])[0])
            assert _turns(bram) == [] and _turns(ann) == []  # Bram's turn, and he is here: nothing written
        clock.now += timedelta(seconds=3)  # past the grace a closed page has (a reload is not leaving)
        _wait(lambda: _turns(bram) == [table])  # gone on his turn: his list brings him back
        assert _turns(ann) == []


def test_whose_turn_is_the_seat_s_and_a_table_is_named_after_its_first_person(settings) -> None:
    """The list reads whose turn from the seats (a deleted profile's seat is nobody's: the next move is
    stored as ever), and names a table without a name as its page does (after its first person, not a bot)."""
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        ann, bram = person(client, "Ann"), person(client, "Bram")
        seats = [{"kind": "bot", "bot": "greedy", "name": "Robo"}, {"name": "Ann"}, {"kind": "open"}]
        r = ann.post("/api/tables", json={"preset": "yams", "seats": seats, "listed": False, "clock": DAY})
        assert r.status_code == 201, r.text
        table_id, ann_token = r.json()["id"], r.json()["tokens"]["1"]
        _wait(lambda: _turns(ann) == [table_id])  # the bot played: Ann's turn
        joined = bram.post(f"/api/tables/{table_id}/join", json={"name": "Bram"}, headers=ORIGIN)
        assert ann.get("/api/me/turns").json()["turns"][0]["name"] == "Ann's table"
        assert bram.delete("/api/me", headers=ORIGIN).status_code in (200, 204)
        _play_turn(ann, table_id, ann_token)  # Bram's seat is nobody's now: the move is stored all the same
        assert _turns(ann) == [] and joined.status_code == 200


def test_a_turn_without_a_clock_left_a_month_is_a_game_given_up(settings, clock) -> None:
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        ann, bram = person(client, "Ann"), person(client, "Bram")
        r = ann.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}],
                                          "listed": False, "name": "Forgotten"})  # fmt: skip
        bram.post(f"/api/tables/{r.json()['id']}/join", json={"name": "Bram"}, headers=ORIGIN).raise_for_status()
        clock.now += timedelta(days=29)
        assert _turns(ann) == [r.json()["id"]]
        clock.now += timedelta(days=2)
        assert _turns(ann) == []


def test_a_day_clock_survives_a_restart_and_its_deadline_fires_after_one(settings, clock) -> None:
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        ann, bram = person(client, "Ann"), person(client, "Bram")
        table_id, tokens = _day_table(ann, bram)
        assert _turns(ann) == [table_id] and _turns(bram) == []  # each sees only their own turns
        _play_turn(ann, table_id, tokens["ann"])
        assert _turns(ann) == [] and _turns(bram) == [table_id]
        turn = bram.get("/api/me/turns").json()["turns"][0]
        assert turn["url"] == f"/t/{table_id}" and turn["left"] == DAY and turn["name"] == "Ann's table"
        assert browser(client).get("/api/me/turns").status_code == 401  # no profile: nobody's turns
    clock.now += timedelta(hours=10)  # the server is down for ten hours: Bram's clock runs on
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        view = client.get(f"/api/tables/{table_id}").json()
        assert view["current"] == 1 and view["clocks"]["1"] == pytest.approx(14 * 3600, abs=5)
    clock.now += timedelta(hours=15)  # down again, past Bram's deadline: the stand-in plays once it is up
    heard: list[TurnSignal] = []
    app = create_app(dataclasses.replace(settings, bot_delay=1.0))  # the stand-in takes a moment

    async def hear(signal: TurnSignal) -> None:
        heard.append(signal)

    with TestClient(app, base_url="http://127.0.0.1") as client:
        ann = browser(client, cookies=ann.cookies)  # Ann's browser, on the server started again
        manager = client.app.state.manager
        manager.events.on_async(TurnSignal, hear)
        table = manager.get(table_id)
        client.portal.call(manager.turns.remind)  # past the deadline: no "a quarter is left"
        _wait(lambda: table.state.current == 0)
        assert table.state.sheets[1].turns == 1 and _turns(ann) == [table_id]
        assert [s.kind for s in heard if s.seat == 1] == []


def test_an_away_player_is_not_played_for_and_hears_of_turn_and_reminder_once(settings, clock) -> None:
    heard: list[TurnSignal] = []
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        manager = client.app.state.manager

        async def hear(signal: TurnSignal) -> None:
            heard.append(signal)

        manager.events.on_async(TurnSignal, hear)
        ann, bram = person(client, "Ann"), person(client, "Bram")
        table_id, tokens = _day_table(ann, bram)
        table = manager.get(table_id)
        bram_id = bram.get("/api/me").json()["profile"]["id"]
        with ann.websocket_connect(f"/ws/{table_id}") as s:  # Ann stays while Bram is away
            ws = WS(s)
            _, out = ws.hello([tokens["ann"]])
            rolled = ws.act(type="roll", seat=0, v=out["v"])
            ws.act(type="score", seat=0, v=rolled["v"], box=legal(rolled["view"]["players"][0]["turn"])[0])
            _wait(lambda: len(heard) == 1)
            signal = heard[0]
            assert (signal.kind, signal.profile_id, signal.seat, signal.table_id) == ("turn", bram_id, 1, table_id)
            assert heard[0].due_at == clock.now.replace(tzinfo=None) + timedelta(days=1)
            assert not manager.stand_in.due(table, 1, manager.turn_clock.now() + 60)  # away is not late here
            clock.now += timedelta(hours=17)  # not yet three quarters of the day
            client.portal.call(manager.turns.remind)
            assert len(heard) == 1
            clock.now += timedelta(hours=1, seconds=1)
            client.portal.call(manager.turns.remind)
            client.portal.call(manager.turns.remind)
            _wait(lambda: len(heard) == 2)
            assert heard[1].kind == "reminder" and heard[1].profile_id == bram_id
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:  # a restart does not remind again
        manager = client.app.state.manager
        manager.events.on_async(TurnSignal, hear)
        client.portal.call(manager.turns.remind)
        # a reminder remind() started is published on the loop before a fact published after it: once that
        # later one is heard, a second reminder would have been heard too
        later = TurnSignal(table_id, "", 1, bram_id, "turn")
        client.portal.call(lambda: asyncio.get_running_loop().create_task(manager.events.publish(later)))
        _wait(lambda: later in heard)
        assert heard[2:] == [later] and 1 in manager.get(table_id).reminded


def test_a_waiting_table_leaves_memory_and_comes_back_when_its_deadline_passes(settings, clock) -> None:
    settings.idle_after = 0.0
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        manager = client.app.state.manager
        ann, bram = person(client, "Ann"), person(client, "Bram")
        table_id, tokens = _day_table(ann, bram)
        _play_turn(ann, table_id, tokens["ann"])
        _wait(lambda: not manager.sessions[table_id].conns)
        assert manager.turns.evict() == 1 and table_id not in manager.sessions
        client.portal.call(manager.turns.load_due)
        assert table_id not in manager.sessions  # nothing due yet: it stays in the store
        clock.now += timedelta(days=1, seconds=1)
        client.portal.call(manager.turns.load_due)
        table = manager.sessions[table_id]
        _wait(lambda: table.state.current == 0)  # the stand-in played Bram's turn
        assert _turns(ann) == [table_id] and _turns(bram) == []


def test_in_a_cluster_a_due_table_out_of_memory_is_adopted_and_fired(pg_url, redis_url, tmp_path, clock) -> None:
    """With Redis, the sweeper leaves a due table to the cluster's monitor: it is among the orphans, and the
    first process to take its lease (released when it left memory) fires its deadline. (One client: the
    cluster's Redis connection lives on the app's own event loop.)"""
    settings = profile_settings(tmp_path, clock, http_burst=1000, database_url=pg_url, redis_url=redis_url)
    settings.idle_after = 0.0
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        manager = client.app.state.manager
        made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}], listed=False, clock=DAY)
        client.post(f"/api/tables/{made['id']}/join", json={"name": "Bram"}, headers=ORIGIN).raise_for_status()
        client.cookies.clear()
        table_id = made["id"]
        _play_turn(client, table_id, made["tokens"]["0"])
        _wait(lambda: not manager.sessions[table_id].conns)
        assert manager.turns.evict() == 1 and table_id not in manager.sessions
        assert table_id not in client.portal.call(manager.orphans)
        clock.now += timedelta(days=1, seconds=1)
        assert table_id in client.portal.call(manager.orphans)
        _wait(lambda: table_id in manager.sessions and manager.sessions[table_id].state.current == 0)
        assert manager.sessions[table_id].owned
        assert list(manager.store.turns_of(table_id)) == [0]


def test_a_join_while_the_bot_moves_is_answered(settings) -> None:
    """A person who takes the open seat while the bot before them plays is seated, and the bot's move lands:
    neither waits on the other for good (the table's lock, the turns kept in the store and the signal of
    whose turn it is meet here)."""
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        ann, bram = person(client, "Ann"), person(client, "Bram")
        for _ in range(4):
            seats = [{"kind": "bot", "bot": "greedy", "name": "Robo"}, {"name": "Ann"}, {"kind": "open"}]
            r = ann.post("/api/tables", json={"preset": "yams", "seats": seats, "listed": False, "clock": DAY})
            assert r.status_code == 201, r.text
            table_id = r.json()["id"]
            joined = bram.post(f"/api/tables/{table_id}/join", json={"name": "Bram"}, headers=ORIGIN)
            assert joined.status_code == 200, joined.text
            _wait(lambda t=table_id: t in _turns(ann))  # the bot's move landed: Ann's turn
