"""Restart and resume: a game interrupted mid-turn goes on in a new server process on the same database."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager

import httpx
from websockets.sync.client import connect

from yambak.engine import replay, summary
from yambak.store import Store

from .helpers import legal, server_process


@contextmanager
def _ws(base: str, table_id: str, tokens: list[str], since: int | None = None):
    with connect(base.replace("http", "ws") + f"/ws/{table_id}", open_timeout=10) as ws:
        yield (ws, *_hello(ws, tokens, since))


def _hello(ws, tokens, since):
    hello = {"type": "hello", "tokens": tokens}
    if since is not None:
        hello["since"] = since
    ws.send(json.dumps(hello))
    welcome = json.loads(ws.recv(10))
    return welcome, json.loads(ws.recv(10))


def _act(ws, **msg):
    ws.send(json.dumps(msg))
    return json.loads(ws.recv(10))


def test_a_game_interrupted_mid_turn_resumes_after_a_restart(tmp_path):
    db = f"sqlite:///{tmp_path}/restart.db"
    every = {"YAMBAK_SNAPSHOT_EVERY": "3"}  # snapshots at versions 3 and 6: the restart rebuilds from 3 + events 4, 5
    with server_process(db, env=every) as base:
        made = httpx.post(
            base + "/api/tables",
            json={"name": "Restart", "preset": "yammen", "seats": [{"name": "Ann"}, {"name": "Bram"}]},
        ).json()
        tokens = list(made["tokens"].values())
        with _ws(base, made["id"], tokens) as (ws, _, _):
            _act(ws, type="roll", seat=0, v=0)
            first = _act(ws, type="score", seat=0, v=1, box="down.ones")
            assert first["type"] == "event", first
            _act(ws, type="roll", seat=1, v=2)
            _act(ws, type="hold", seat=1, v=3, dice=[0, 4])
            before = _act(ws, type="roll", seat=1, v=4, held=[0, 4])
            assert before["type"] == "event" and before["event"]["roll"] == 2
    # a new process on the same database
    with server_process(db, env=every) as base:
        listed = httpx.get(base + "/api/tables").json()["tables"]
        assert [t["id"] for t in listed] == [made["id"]]
        with _ws(base, made["id"], tokens, since=4) as (ws, welcome, state):
            assert welcome["seats"] == [0, 1] and state["v"] == 5 and [e["v"] for e in state["events"]] == [5]
            after = state["view"]
            turn = after["players"][1]["turn"]
            assert turn["dice"] == before["event"]["dice"] and turn["held"] == [0, 4] and turn["rolls_left"] == 1
            assert (
                after["players"][0]["columns"]["down"]["boxes"]["ones"]
                == before["view"]["players"][0]["columns"]["down"]["boxes"]["ones"]
            )
            # the turn goes on where it was: roll 3 keeps the held dice, then a box
            third = _act(ws, type="roll", seat=1, v=5)
            assert third["v"] == 6 and third["event"]["roll"] == 3
            assert [third["event"]["dice"][i] for i in (0, 4)] == [turn["dice"][0], turn["dice"][4]]
            assert _act(ws, type="roll", seat=1, v=6)["code"] == "illegal/no-rolls-left"
            box = legal(third["view"]["players"][1]["turn"])[0]
            last = _act(ws, type="score", seat=1, v=6, box=box)
            assert last["v"] == 7
            record = httpx.get(base + f"/t/{made['id']}/record.json").json()
    # the stored log is the truth: seven events, the newest snapshot at version 6 (mid-turn)
    store = Store(db)
    row = store.get_session(made["id"])
    events = store.events(made["id"])
    assert [e.version for e in events] == list(range(1, 8)) and row.version == 6
    assert len(row.record["pending"]) == 1 and len(row.record["turns"]) == 1
    assert all("name" not in json.dumps(e.data) and "Ann" not in json.dumps(e.data) for e in events)  # seats only
    state = replay(record)
    assert len(record["turns"]) == 2 and "pending" not in record
    assert [p["total"] for p in summary(state)["players"]] == [p["total"] for p in last["view"]["players"]]
    store.close()


def test_bots_resume_after_a_restart(tmp_path):
    db = f"sqlite:///{tmp_path}/bots.db"
    with server_process(db, bot_delay=0.5) as base:
        made = httpx.post(
            base + "/api/tables", json={"name": "Bots", "preset": "yams", "seats": [{"kind": "bot"}, {"kind": "bot"}]}
        ).json()
    # the server stopped at once (a bot had at most begun); the next process plays the game out
    with server_process(db, bot_delay=0.0) as base:
        for _ in range(300):
            view = httpx.get(base + f"/api/tables/{made['id']}").json()
            if view["finished"]:
                break
            time.sleep(0.1)
        assert view["finished"], view["v"]
        record = httpx.get(base + f"/t/{made['id']}/record.json").json()
    state = replay(record)
    assert state.finished and len(record["turns"]) == 26


def test_a_duplicate_table_resumes_with_the_same_shared_dice(tmp_path):
    from fastapi.testclient import TestClient

    from yambak.server import Settings, create_app

    from .helpers import WS, create

    settings = Settings(database_url=f"sqlite:///{tmp_path}/dup.db", bot_delay=0)
    with TestClient(create_app(settings)) as client:
        made = create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}], duplicate=True)
        with client.websocket_connect(f"/ws/{made['id']}") as s:
            ann = WS(s)
            ann.hello([made["tokens"]["0"]])
            first = ann.act(type="roll", seat=0, v=0)["event"]["dice"]
            ann.act(type="hold", seat=0, v=1, dice=[0, 1, 2, 3, 4])
            ann.act(type="release", seat=0, v=2, dice=[4])
            second = ann.act(type="roll", seat=0, v=3)["event"]
    with TestClient(create_app(settings)) as client:  # a new app on the same database
        with client.websocket_connect(f"/ws/{made['id']}") as s:
            bram = WS(s)
            _, state = bram.hello([made["tokens"]["1"]])
            assert state["v"] == 4 and state["view"]["players"][0]["turn"] == {"rolls": 2, "hidden": True}
            assert bram.act(type="roll", seat=1, v=4)["event"]["dice"] == first
            bram.act(type="hold", seat=1, v=5, dice=[0, 1, 2, 3])
            assert bram.act(type="roll", seat=1, v=6)["event"]["dice"] == second["dice"]


def test_an_app_started_again_serves_the_trainer_and_the_strategy_figures(settings):
    """The trainer and the strategy jobs are made by their first request and closed with the app; an app
    started again (its lifespan run twice, as a test client or an ASGI host may) makes them anew on its
    new store, instead of answering from closed ones (503 train/unavailable, a 500 on /strategy)."""
    from fastapi.testclient import TestClient

    from yambak.server import create_app

    app = create_app(settings)
    for _ in range(2):
        with TestClient(app, base_url="http://127.0.0.1") as c:
            assert c.get("/api/train/yams/next").status_code == 200
            body = {"name": "House", "preset": "yamb", "options": {"four_kind": "four"}, "seats": [{"name": "Ann"}]}
            made = c.post("/api/tables", json=body)
            assert c.get(f"/t/{made.json()['id']}/strategy").status_code == 200  # no shipped figures: a job
            c.app.state.profiles.grader.wait(10)
        assert app.state.trainer is None and app.state.strategy_jobs is None
