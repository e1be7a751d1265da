"""HTTP API and pages: creating, joining, listing, escaping, coded errors, bounded bodies."""

from __future__ import annotations

from yambak.engine import replay, summary

from .helpers import WS, create, legal


def test_create_list_and_view(client):
    made = create(client, "yammen", [{"name": "Ann"}, {"kind": "open"}, {"kind": "bot"}])
    assert set(made["tokens"]) == {"0"}
    listed = client.get("/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [made["id"]]
    assert listed[0]["open_seats"] == 1 and listed[0]["players"] == ["Ann", "Bot 3"]  # an open seat is counted
    view = client.get(f"/api/tables/{made['id']}").json()
    assert [p["kind"] for p in view["players"]] == ["human", "open", "bot"]
    assert len(view["rules"]["columns"]) == 6 and view["v"] == 0


def test_private_tables_are_not_listed(client):
    create(client, listed=False)
    assert client.get("/api/tables").json()["tables"] == []


def test_eight_players_join_by_invite(client):
    made = create(client, "yams", [{"name": "Host"}] + [{"kind": "open"}] * 7)
    assert client.post(f"/api/tables/{made['id']}/join", json={"name": "X", "seat": 0}).json()["code"] == "seat/taken"
    tokens = [made["tokens"]["0"]]
    for i in range(7):
        r = client.post(f"/api/tables/{made['id']}/join", json={"name": f"P{i + 1}"})
        assert r.status_code == 200, r.text
        assert r.json()["seat"] == i + 1
        tokens.append(r.json()["token"])
    r = client.post(f"/api/tables/{made['id']}/join", json={"name": "Late"})
    assert r.status_code == 409 and r.json()["code"] == "seat/none-open"
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        ws = WS(s)
        ws.hello(tokens)
        v = 0
        for seat in range(8):  # one full round, every seat scores
            assert ws.act(type="roll", seat=seat, v=v)["event"]["type"] == "rolled"
            out = ws.act(type="score", seat=seat, v=v + 1, box="chance")
            assert out["event"]["type"] == "scored", out
            v += 2
    view = client.get(f"/api/tables/{made['id']}").json()
    assert [p["name"] for p in view["players"]] == ["Host"] + [f"P{i + 1}" for i in range(7)]
    assert all(p["turns_done"] == 1 for p in view["players"])


def test_refused_creations_have_codes(client):
    bad = [
        ({"name": "x", "preset": "nope", "seats": [{"name": "A"}]}, "input/rules"),
        ({"name": "x", "preset": "yams", "options": {"columns": 9}, "seats": [{"name": "A"}]}, "input/rules"),
        ({"name": "x", "preset": "yams", "seats": []}, "input/invalid"),
        ({"name": "x", "preset": "yams", "seats": [{"name": ""}]}, "input/name"),
        ({"name": "", "preset": "yams", "seats": [{"name": "A"}]}, "input/name"),
        ({"name": "x", "preset": "yams", "seats": [{"name": "\u202e\u200b"}]}, "input/name"),
        ({"name": "x", "preset": "yams", "seats": [{"name": "A"}] * 17}, "input/seats"),
        ({"name": "x", "preset": "yams", "seats": [{"name": "A" * 30}]}, "input/name"),
        ({"name": "x", "preset": "yams", "seats": [{"name": "A"}], "dice": [6, 6, 6, 6, 6]}, "input/invalid"),
    ]
    for body, code in bad:
        r = client.post("/api/tables", json=body)
        assert r.status_code in (400, 422), (body, r.text)
        assert r.json()["code"] == code, (body, r.json())
    assert client.get("/api/tables").json()["tables"] == []


def test_a_seat_is_a_number_when_joining(client):
    """Regression: `"seat": "0"` and `"seat": true` were taken as seat 0 by the join route."""
    made = client.post(
        "/api/tables", json={"name": "t", "preset": "yams", "seats": [{"name": "A"}, {"kind": "open"}]}
    ).json()
    for seat in ("1", True, 1.0, [1]):
        r = client.post(f"/api/tables/{made['id']}/join", json={"name": "B", "seat": seat})
        assert r.status_code == 422 and r.json()["code"] == "input/invalid", (seat, r.text)
    assert client.get(f"/api/tables/{made['id']}").json()["open_seats"] == [1]
    r = client.post(f"/api/tables/{made['id']}/join", json={"name": "B", "seat": 1})
    assert r.status_code == 200 and r.json()["seat"] == 1
    for body in (
        {"name": "x", "preset": "yams", "seats": [{"name": "A"}], "listed": "yes"},
        {"name": "x", "preset": "yams", "seats": [{"name": 5}]},
    ):
        assert client.post("/api/tables", json=body).json()["code"] == "input/invalid"


def test_unknown_table_and_bodies_too_large(client):
    r = client.get("/api/tables/doesnotexist")
    assert r.status_code == 404 and r.json()["code"] == "table/unknown"
    assert client.get("/t/doesnotexist").status_code == 404
    r = client.post("/api/tables", content=b"{" + b" " * 20000 + b"}", headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "input/too-large"
    r = client.post("/api/tables", content=b"not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["code"] == "input/invalid"
    assert "Traceback" not in r.text


def test_names_are_escaped_everywhere(client):
    evil = "<script>x()</script>"
    made = create(client, "yams", [{"name": evil[:24]}], name=evil)
    lobby = client.get("/").text
    assert "<script>x()" not in lobby and "&lt;script&gt;x()" in lobby
    page = client.get(f"/t/{made['id']}").text
    assert "<script>x()" not in page
    assert "<title>&lt;script&gt;x()&lt;/script&gt; — yambak</title>" in page


def test_lobby_form_creates_a_table_and_sets_the_seat_cookie(client):
    r = client.post(
        "/tables",
        data={
            "name": "Form",
            "preset": "yams-fr",
            "opt.yams-fr.columns": "3",
            "seat0_kind": "human",
            "seat0_name": "Ann",
            "seat1_kind": "bot",
            "listed": "on",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303
    table_id = r.headers["location"].rsplit("/", 1)[1]
    assert "yambak_tokens" in r.cookies
    view = client.get(f"/api/tables/{table_id}").json()
    assert [c["id"] for c in view["rules"]["columns"]] == ["down", "free", "up"]
    page = client.get(f"/t/{table_id}")
    assert '"seats": [0]' in page.text  # the cookie gave this browser seat 0
    r = client.post(
        "/tables",
        data={"name": "Bad", "preset": "yams-fr", "opt.yams-fr.columns": "7", "seat0_kind": "human", "seat0_name": "A"},
    )
    assert r.status_code == 400 and "columns" in r.text


def test_record_download_replays_to_the_same_sheet(client):
    made = create(client, "yams-fr", [{"name": "Ann"}])
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        ws = WS(s)
        ws.hello([made["tokens"]["0"]])
        ws.act(type="roll", seat=0, v=0)
        ws.act(type="score", seat=0, v=1, box="free.chance")
        ws.act(type="roll", seat=0, v=2)
    r = client.get(f"/t/{made['id']}/record.json")
    assert "attachment" in r.headers["content-disposition"]
    record = r.json()
    assert record["format"] == "yambak-game/1" and len(record["turns"]) == 1 and record["pending"][0]["rolls"]
    state = replay(record)
    view = client.get(f"/api/tables/{made['id']}").json()
    assert summary(state)["players"][0]["total"] == view["players"][0]["total"]
    assert list(state.turns[0].dice) == view["players"][0]["turn"]["dice"]


def test_bot_levels(client):
    made = create(client, "yammen", [{"name": "Ann"}, {"kind": "bot", "bot": "hard"}, {"kind": "bot", "bot": "easy"}])
    assert [p["kind"] for p in client.get(f"/api/tables/{made['id']}").json()["players"]] == ["human", "bot", "bot"]
    r = client.post("/api/tables", json={"name": "x", "preset": "yams", "seats": [{"kind": "bot", "bot": "genius"}]})
    assert r.status_code == 400 and r.json()["code"] == "input/seats"


def test_replay_frames_step_through_a_finished_game(client):
    from yambak.engine import replay

    made = create(client, "yams", [{"name": "Ann"}])
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        ws = WS(s)
        ws.hello([made["tokens"]["0"]])
        v = 0
        for _ in range(13):
            out = ws.act(type="roll", seat=0, v=v)
            out = ws.act(type="score", seat=0, v=out["v"], box=legal(out["view"]["players"][0]["turn"])[0])
            v = out["v"]
    record = client.get(f"/api/tables/{made['id']}/record").json()
    for n in (0, 1, 7, 13):
        frame = client.get(f"/api/tables/{made['id']}/frames/{n}").json()
        assert frame["n"] == n and frame["turns"] == 13 and frame["rounds"] == 13 and frame["round"] == n
        expected = replay({**record, "turns": record["turns"][:n]})
        assert frame["players"][0]["total"] == expected.total(0)
        if n:
            turn = record["turns"][n - 1]
            assert frame["turn"]["rolls"] == turn["rolls"] and frame["turn"]["box"] == turn["box"]
    assert client.get(f"/api/tables/{made['id']}/frames/99").json()["n"] == 13  # clamped
    unfinished = create(client, "yams", [{"name": "Ann"}])
    assert client.get(f"/api/tables/{unfinished['id']}/frames/0").json()["code"] == "table/not-finished"
