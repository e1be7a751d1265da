"""Signing a device out of its profile takes the seats it was given under the profile: the issue's case (a
phone signed out from the laptop played the open daily deal on to the end, using the profile's one
attempt), on both stores. A kept sheet's write token is not the profile's: it stays."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings

from .deal_helpers import ORIGIN, CheckedWS, play
from .helpers import WS, browser, legal
from .test_devices import LAPTOP, PHONE


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def _device(client: TestClient, agent: str) -> TestClient:
    return browser(client, headers={"user-agent": agent})


def _until(ws: WS, kind: str) -> dict:
    while (msg := ws.recv())["type"] != kind:
        pass
    return msg


def test_a_signed_out_device_loses_its_seats_and_the_deal_attempt_stays_the_profiles(client, clock) -> None:
    phone, laptop = _device(client, PHONE), _device(client, LAPTOP)
    assert phone.post("/api/me", json={"name": "Ann"}, headers=ORIGIN).status_code == 201
    code = phone.post("/api/me/link", headers=ORIGIN).json()["url"].rsplit("/", 1)[1]
    assert laptop.post(f"/api/me/move/{code}", headers=ORIGIN).status_code == 200
    clock.now += timedelta(days=1)
    sheet = phone.post("/api/keep", json={"name": "Kitchen", "preset": "yams", "players": ["Ann", "Bo"]}).json()
    friendly = phone.post("/api/tables", json={"preset": "yams", "seats": [{"kind": "human", "name": "Ann"}]}).json()
    made = phone.post("/api/daily/yams/play", json={}).json()
    assert made["counted"]

    with phone.websocket_connect(f"/ws/{made['id']}") as s:
        ws = CheckedWS(s)
        welcome, out = ws.hello(list(made["tokens"].values()))
        assert welcome["seats"] == [0]
        v = out["view"]["v"]
        for _ in range(2):  # two turns on the phone
            rolled = ws.act(type="roll", seat=0, v=v)
            scored = ws.act(type="score", seat=0, v=rolled["v"], box=legal(rolled["view"]["players"][0]["turn"])[0])
            assert scored["type"] == "event", scored
            v = scored["v"]
        # the laptop signs the phone out, while the phone's socket is open
        devices = laptop.get("/api/me/devices").json()["devices"]
        gone = next(d for d in devices if d["label"] == "Chrome · Android")
        assert laptop.delete(f"/api/me/devices/{gone['id']}", headers=ORIGIN).status_code == 204
        assert _until(ws, "welcome")["seats"] == []  # told at once: it holds no seat any more
        refused = ws.act(type="roll", seat=0, v=v)
        assert refused["type"] == "error" and refused["code"] == "auth/not-your-seat", refused

    # its seat token is refused everywhere: no seat on the page's view, the open deal's game sealed
    assert phone.get("/api/me").json() == {"profile": None}
    again = phone.get(f"/api/tables/{made['id']}")
    assert again.status_code == 403, again.text
    with phone.websocket_connect(f"/ws/{friendly['id']}") as s:
        assert WS(s).hello(list(friendly["tokens"].values()))[0]["seats"] == []
    # the laptop takes the attempt back where the phone left it: two turns done, and it still counts
    back = laptop.post("/api/daily/yams/play", json={}).json()
    assert (back["id"], back["counted"]) == (made["id"], True)
    view = play(laptop, back)
    assert view["finished"] and view["players"][0]["turns_done"] == 13
    mine = laptop.get("/api/me/games").json()["games"]
    assert [g["kind"] for g in mine].count("daily") == 1
    # the kept sheet's write token is the phone's, not the profile's: it still writes
    entry = {"id": "entry-000001", "v": 0, "kind": "dice", "seat": 0, "dice": [1, 1, 2, 3, 4], "box": "ones"}
    bearer = {"authorization": f"Bearer {sheet['token']}"}
    r = phone.post(f"/api/keep/{sheet['id']}/entries", json=entry, headers=bearer)
    assert r.status_code == 200, r.text
