"""Refusals in the player's language, strict keeper input, the join form's errors as a page,
the favicon, and the strategy tables warmed at startup."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from fastapi.testclient import TestClient

import yambak.solver
from yambak.server import Settings, create_app
from yambak.web.i18n import ERROR_MESSAGES, js_strings

from .helpers import WS, create

ENGINE = Path(__file__).resolve().parents[2] / "src" / "yambak" / "engine"


def test_every_engine_code_has_a_message():
    codes = set()
    for path in ENGINE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= {f"illegal/{c}" for c in re.findall(r'_illegal\(\s*"([\w-]+)"', text)}
        codes |= set(re.findall(r'IllegalAction\(\s*"([\w/-]+)"', text))
    assert len(codes) > 25
    assert codes <= set(ERROR_MESSAGES), sorted(codes - set(ERROR_MESSAGES))


def test_socket_refusals_come_in_the_players_language(client):
    made = create(client, "yams")
    with client.websocket_connect(f"/ws/{made['id']}", headers={"accept-language": "nl-BE,nl;q=0.9"}) as s:
        ws = WS(s)
        ws.hello([made["tokens"]["0"]])
        out = ws.act(type="score", seat=0, v=0, box="free.chance")
        assert out["code"] == "illegal/roll-first"
        assert out["message"] == "Gooi de stenen voor je een vak kiest."
        assert out["detail"] == "roll the dice before choosing a box"
    with client.websocket_connect(f"/ws/{made['id']}?lang=fr") as s:
        ws = WS(s)
        ws.hello([made["tokens"]["0"]])
        out = ws.act(type="score", seat=0, v=0, box="free.chance")
        assert out["message"] == "Lancez les dés avant de choisir une case."


def test_keeper_refusals_are_translated_and_keep_the_detail(client):
    sheet = client.post("/api/keep", json={"preset": "yamb", "players": ["Ann"]}).json()
    entry = {
        "id": "entry-0001",
        "v": 0,
        "kind": "dice",
        "seat": 0,
        "dice": [2, 2, 2, 1, 5],
        "roll": 1,
        "box": "down.twos",
    }
    auth = {"authorization": f"Bearer {sheet['token']}"}
    r = client.post(f"/api/keep/{sheet['id']}/entries?lang=de", json=entry, headers=auth)
    assert r.status_code == 422
    body = r.json()
    assert body["code"] == "illegal/box-order"
    assert body["message"] == "Dieses Feld ist in seiner Spalte nicht als nächstes dran."
    assert "down" in body["detail"]
    r = client.post(f"/api/keep/{sheet['id']}/entries", json=entry, headers=auth)
    assert r.json()["message"] == "That box is not next in its column."


def test_keeper_refuses_booleans_for_numbers(client):
    sheet = client.post("/api/keep", json={"preset": "yams", "players": ["Ann"]}).json()
    base = {"id": "entry-0002", "v": 0, "kind": "dice", "seat": 0, "roll": 1, "box": "free.ones"}
    auth = {"authorization": f"Bearer {sheet['token']}"}
    for bad in (
        {"dice": [True, 1, 1, 1, 1]},
        {"dice": [1, 1, 1, 1, 1], "roll": True},
        {"dice": ["1", 1, 1, 1, 1]},
        {"dice": [1, 1, 1, 1, 1], "seat": False},
    ):
        r = client.post(f"/api/keep/{sheet['id']}/entries", json={**base, **bad}, headers=auth)
        assert r.status_code == 422 and r.json()["code"] == "input/invalid", (bad, r.text)
    assert client.get(f"/api/keep/{sheet['id']}").json()["v"] == 0
    ok = client.post(f"/api/keep/{sheet['id']}/entries", json={**base, "dice": [1, 1, 1, 1, 1]}, headers=auth)
    assert ok.status_code == 200, ok.text


def test_join_form_errors_are_a_page_in_the_players_language(client):
    made = create(client, "yams", [{"name": "Ann"}])
    r = client.post(f"/t/{made['id']}/join", data={"name": "Bo"}, headers={"accept-language": "es"})
    assert r.status_code == 409 and r.headers["content-type"].startswith("text/html")
    assert "Todos los asientos de esta mesa están ocupados." in r.text and 'id="join-error"' in r.text
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}])
    r = client.post(f"/t/{made['id']}/join", data={"name": "   "})
    assert r.status_code == 400 and "Type a name of 1 to 24 characters." in r.text
    assert client.post("/t/nope/join", data={"name": "Bo"}).status_code == 404


def test_favicon_and_turn_strings(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert js_strings("nl")["Choose a box."] == "Kies een vak."


def test_strategy_tables_are_warmed_in_the_background(tmp_path, monkeypatch):
    calls: list[str] = []
    done = threading.Event()

    def fake_solve(preset, *_args, **_kwargs):
        calls.append(preset)
        if preset == "yatzy":
            done.set()
            raise RuntimeError("no disk")  # logged, never fatal
        done.wait(0)
        return type("S", (), {"loaded": True})()

    monkeypatch.setattr(yambak.solver, "solve", fake_solve)
    settings = Settings(database_url=f"sqlite:///{tmp_path}/w.db", bot_delay=0.0, warm_strategies=True)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        assert c.get("/api/tables").status_code == 200
        assert done.wait(10)
    assert calls == ["yams", "yatzy"]
    calls.clear()
    off = Settings(database_url=f"sqlite:///{tmp_path}/w.db", bot_delay=0.0, warm_strategies=False)
    with TestClient(create_app(off), base_url="http://127.0.0.1") as c:
        assert c.get("/api/tables").status_code == 200
    assert calls == []
