"""Score-keeper sheets over HTTP: entries through the engine, versions, idempotent ids, undo, correction, and
who may write (write tokens from the maker and the join code, revoked by renewing the code)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import yambak
from yambak.engine import replay
from yambak.server import create_app

from .keeper_plan import plan

URL = "/api/keep"


def new_sheet(client, preset="yammen", players=("Ann", "Bram", "Cas"), **extra):
    r = client.post(URL, json={"name": "Kitchen table", "preset": preset, "players": list(players), **extra})
    assert r.status_code == 201, r.text
    return r.json()


def bearer(token):
    return {"authorization": f"Bearer {token}"}


class Keeper:
    """Posts entries with fresh ids and the version last seen, like the page does, with the sheet's write token."""

    def __init__(self, client, sheet):
        self.c, self.id, self.token, self.v, self.n = client, sheet["id"], sheet["token"], 0, 0

    def post(self, body, v=None, entry_id=None, token=None):
        self.n += 1
        payload = {"id": entry_id or f"entry-{self.n:06d}", "v": self.v if v is None else v, **body}
        r = self.c.post(f"{URL}/{self.id}/entries", json=payload, headers=bearer(token or self.token))
        if r.status_code == 200:
            self.v = r.json()["v"]
        return r


def test_a_whole_yammen_sheet_kept_from_typed_dice_matches_the_engine(client):
    entries, expected = plan()
    sheet = new_sheet(client)
    k = Keeper(client, sheet)
    for e in entries:
        r = k.post(e.body())
        assert r.status_code == 200, (e, r.text)
    view = r.json()["view"]
    assert view["finished"] and len(view["history"]) == 198 and view["v"] == 198
    assert [p["total"] for p in view["players"]] == expected.totals()
    assert [p["match_points"] for p in view["players"]] == expected.match_points()
    assert view["winners"] == expected.winners()
    record = client.get(f"/keep/{sheet['id']}/record.json").json()
    assert record["format"] == "yambak-game/1" and len(record["turns"]) == 198
    assert replay(record).totals() == expected.totals()  # the stored record is docs/rules.md §11's
    # en deux was typed as roll 2: the record repeats the final dice twice
    assert next(t for t in record["turns"] if t["box"].startswith("en_deux."))["rolls"][1] is not None
    r = k.post({"kind": "dice", "seat": 0, "dice": [1, 1, 1, 1, 1], "box": "free.ones"})
    assert r.status_code == 422 and r.json()["code"] == "illegal/game-over"


def test_refusals_are_coded_and_change_nothing(client):
    sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    k = Keeper(client, sheet)
    cases = [
        ({"kind": "dice", "seat": 1, "dice": [6] * 5, "box": "chance"}, 409, "illegal/not-your-turn"),
        ({"kind": "dice", "seat": 0, "dice": [6] * 4, "box": "chance"}, 422, "input/invalid"),
        ({"kind": "dice", "seat": 0, "dice": [6, 6, 6, 6, 7], "box": "chance"}, 422, "input/invalid"),
        ({"kind": "dice", "seat": 0, "dice": [6] * 5, "box": "nowhere"}, 422, "illegal/box-unknown"),
        ({"kind": "dice", "seat": 0, "dice": [6] * 5, "roll": 4, "box": "chance"}, 422, "illegal/no-rolls-left"),
        ({"kind": "scratch", "seat": 0, "box": "chance"}, 422, "illegal/no-scratch"),
        ({"kind": "dice", "seat": 0, "box": "chance"}, 422, "input/dice"),
        ({"kind": "undo"}, 422, "keeper/nothing-to-undo"),
        ({"kind": "fix", "turn": 1, "box": "chance"}, 422, "keeper/no-entry"),
        ({"kind": "teleport"}, 422, "input/invalid"),
    ]
    for body, status, code in cases:
        r = k.post(body)
        assert (r.status_code, r.json()["code"]) == (status, code), (body, r.text)
        assert "Traceback" not in r.text
    assert client.get(f"{URL}/{sheet['id']}").json()["v"] == 0
    r = client.post(f"{URL}/{sheet['id']}/entries", json={"id": "x", "v": 0, "kind": "undo"}, headers=bearer(k.token))
    assert r.status_code == 422 and r.json()["code"] == "input/invalid"
    r = client.post(
        f"{URL}/{sheet['id']}/entries",
        content=b"{" + b" " * 20000 + b"}",
        headers={"content-type": "application/json", **bearer(k.token)},
    )
    assert r.status_code == 413 and r.json()["code"] == "input/too-large"
    assert client.get(f"{URL}/nope").json()["code"] == "sheet/unknown"


def test_versions_order_concurrent_phones_and_ids_make_entries_idempotent(client):
    sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    k = Keeper(client, sheet)
    body = {"kind": "dice", "seat": 0, "dice": [6, 6, 6, 2, 1], "box": "sixes"}
    assert k.post(body, entry_id="phone-a-0001").status_code == 200
    # the same entry again (a lost answer, an offline queue replayed): acknowledged, not applied twice
    again = k.post(body, v=0, entry_id="phone-a-0001")
    assert again.status_code == 200 and again.json()["duplicate"] and again.json()["v"] == 1
    assert len(again.json()["view"]["history"]) == 1
    # another phone, still on version 0, enters for Ann: overtaken, refused, and told whose turn it is now
    ann = {"kind": "dice", "seat": 0, "filled": 0, "dice": [5] * 5, "box": "yam"}
    stale = k.post(ann, v=0, entry_id="phone-b-0001")
    assert stale.status_code == 409
    assert stale.json() == {**stale.json(), "code": "stale/overtaken", "v": 1, "current": 1}
    view = client.get(f"{URL}/{sheet['id']}").json()
    assert view["current"] == 1 and view["history"][0]["written"] == 18 and view["players"][0]["total"] == 18
    # still on version 0, that phone enters Bram's first turn: still his turn, so it is rebased and applied
    bram = {"kind": "dice", "seat": 1, "filled": 0, "dice": [5] * 5, "box": "yam"}
    rebased = k.post(bram, v=0, entry_id="phone-b-0002")
    assert rebased.status_code == 200 and rebased.json()["v"] == 2
    assert rebased.json()["view"]["players"][1]["total"] == 50
    # an undo or a correction made on an old version is never rebased
    old = k.post({"kind": "undo", "count": 1}, v=1, entry_id="phone-b-0003")
    assert old.status_code == 409 and old.json()["code"] == "stale/version"
    # two phones show "Undo Bram's turn 1": one takes it back; the other's view moved on before its tap was
    # sent (its version is the new one), but its undo names what its button said: refused, nothing undone
    named = {"kind": "entry", "n": 2, "player": 1, "turn": 1, "target": None}
    assert rebased.json()["view"]["last"] == {"kind": "entry", "n": 2, "player": 1, "turn": 1}  # the button
    assert k.post({"kind": "undo", "count": 1, "last": named}, entry_id="phone-a-0002").status_code == 200
    late_undo = k.post({"kind": "undo", "count": 1, "last": named}, entry_id="phone-b-0004")
    assert late_undo.status_code == 409 and late_undo.json()["code"] == "stale/undo"
    assert len(client.get(f"{URL}/{sheet['id']}").json()["history"]) == 1  # Ann's turn stands
    wrong = k.post({"kind": "undo", "last": {"kind": "entry", "n": "2"}}, entry_id="phone-b-0005")
    assert wrong.status_code == 422  # a malformed name of what to undo: refused at the door
    # one player, two phones, the same turn: the late one is refused, not filed as the next turn
    solo = new_sheet(client, "yams", ("Ann",))
    s = Keeper(client, solo)
    first = {"kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 2, 1], "box": "sixes"}
    assert s.post(first, v=0, entry_id="solo-a-0001").status_code == 200
    late = s.post({**first, "box": "chance"}, v=0, entry_id="solo-b-0001")
    assert late.status_code == 409 and late.json()["code"] == "stale/overtaken"
    assert len(client.get(f"{URL}/{solo['id']}").json()["history"]) == 1


def test_scratch_undo_and_corrections(client):
    sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    k = Keeper(client, sheet)
    assert k.post({"kind": "scratch", "seat": 0, "box": "yam"}).status_code == 200
    assert k.post({"kind": "dice", "seat": 1, "dice": [1, 2, 3, 4, 5], "box": "large_straight"}).status_code == 200
    assert k.post({"kind": "dice", "seat": 0, "dice": [6, 6, 6, 6, 1], "box": "sixes"}).status_code == 200
    assert k.post({"kind": "dice", "seat": 1, "dice": [3, 3, 3, 1, 1], "box": "threes"}).status_code == 200
    view = client.get(f"{URL}/{sheet['id']}").json()
    assert [h["written"] for h in view["history"]] == [0, 40, 24, 9]
    assert view["history"][0]["scratch"] and view["history"][0]["dice"] is None  # no made-up dice shown
    assert view["history"][1]["dice"] == [1, 2, 3, 4, 5]
    # undo the last entry: Bram's threes are open again and it is his turn
    r = k.post({"kind": "undo", "count": 1})
    assert r.status_code == 200 and len(r.json()["view"]["history"]) == 3 and r.json()["view"]["current"] == 1
    # correct entry 3 (Ann's sixes): she had five sixes; everything after is re-checked
    r = k.post({"kind": "fix", "turn": 3, "dice": [6, 6, 6, 6, 6], "roll": 1, "box": "sixes"})
    assert r.status_code == 200, r.text
    assert r.json()["view"]["history"][2]["written"] == 30 and r.json()["view"]["players"][0]["total"] == 30
    # a correction that breaks a later entry: Ann's entry 1 moved to sixes, where entry 3 already is
    before = k.v
    r = k.post({"kind": "fix", "turn": 1, "dice": [6, 6, 6, 6, 6], "roll": 1, "box": "sixes"})
    assert r.status_code == 409 and r.json()["code"] == "keeper/breaks-later"
    assert [x["turn"] for x in r.json()["invalid"]] == [3] and r.json()["invalid"][0]["code"] == "illegal/box-closed"
    assert client.get(f"{URL}/{sheet['id']}").json()["v"] == before  # not applied
    # a correction that is illegal where it stands: chance always scores, it cannot be scratched
    r = k.post({"kind": "fix", "turn": 2, "box": "chance"})
    assert r.status_code == 422 and r.json()["code"] == "illegal/no-scratch"
    # a scratch correction: entry 2 becomes a 0 in Bram's yam
    r = k.post({"kind": "fix", "turn": 2, "box": "yam"})
    assert r.status_code == 200 and r.json()["view"]["history"][1] == {
        **r.json()["view"]["history"][1],
        "box": "free.yam",
        "written": 0,
    }


def test_roll_numbers_matter_only_where_the_rules_say(client):
    yams = client.get(f"{URL}/{new_sheet(client, 'yams', ('Ann',))['id']}").json()
    made = new_sheet(client, "yammen", ("Ann",))
    yammen = client.get(f"{URL}/{made['id']}").json()
    yamb = client.get(f"{URL}/{new_sheet(client, 'yamb', ('Ann',))['id']}").json()
    assert (yams["rules"]["roll_matters"], yammen["rules"]["roll_matters"], yamb["rules"]["roll_matters"]) == (
        False,
        True,
        True,
    )
    k = Keeper(client, made)
    r = k.post({"kind": "dice", "seat": 0, "dice": [1, 2, 3, 4, 5], "roll": 1, "box": "en_deux.straight"})
    assert r.status_code == 422 and r.json()["code"].startswith("illegal/")
    r = k.post({"kind": "dice", "seat": 0, "dice": [4, 4, 4, 4, 4], "roll": 3, "box": "annonce.yam"})
    assert r.status_code == 200
    assert client.get(f"/keep/{yammen['id']}/record.json").json()["turns"][0]["announce"] == "annonce.yam"


def test_custom_ruleset_and_bounds(client):
    rules = {
        "id": "tiny",
        "name": "Tiny",
        "rows": [{"id": "chance", "kind": "sum"}, {"id": "yam", "kind": "yam", "points": 50}],
        "columns": [{"id": "free"}],
    }
    r = client.post(URL, json={"name": "Custom", "rules": rules, "players": ["Ann"]})
    assert r.status_code == 201, r.text
    k = Keeper(client, r.json())
    assert (
        k.post({"kind": "dice", "seat": 0, "dice": [2, 2, 2, 2, 2], "box": "yam"}).json()["view"]["players"][0]["total"]
        == 50
    )
    bad = client.post(URL, json={"name": "x", "rules": {"rows": "nope"}, "players": ["Ann"]})
    assert bad.status_code == 422 and bad.json()["code"] == "input/rules"
    many = client.post(URL, json={"name": "x", "preset": "yams", "players": [f"P{i}" for i in range(17)]})
    assert many.status_code == 422 and many.json()["code"] == "input/invalid"
    ten = client.post(URL, json={"name": "x", "preset": "yams", "players": [f"P{i}" for i in range(10)]})
    assert ten.status_code == 201  # more than 8 players on one phone
    for invisible in ("", "   ", "\u200b\u200d", "\u202e\u2066"):
        r = client.post(URL, json={"name": "x", "preset": "yams", "players": [invisible]})
        assert r.json()["code"] == "input/name", invisible
    made = client.post(URL, json={"name": "x", "preset": "yams", "players": ["An\u202en\x00"]}).json()
    assert client.get(f"{URL}/{made['id']}").json()["players"][0]["name"] == "Ann"  # controls dropped


def test_join_by_code_qr_and_escaped_names(client):
    sheet = new_sheet(client, "yams", ("<b>Ann</b>", "Bram"))
    code = sheet["code"]
    assert len(code) == 6 and not set(code) & set("01OIL")
    r = client.get(f"/keep/join?code={code.lower()[:3]} {code.lower()[3:]}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/keep/{sheet['id']}#join={code}"  # the page joins
    assert client.get(f"/k/{code}", follow_redirects=False).headers["location"] == f"/keep/{sheet['id']}#join={code}"
    joined = client.post(f"{URL}/join", json={"code": code.lower()})
    assert joined.json() == {**joined.json(), "id": sheet["id"], "code": code} and joined.json()["token"]
    assert client.post(f"{URL}/join", json={"code": "ZZZZZ1"}).json()["code"] == "sheet/unknown-code"
    assert client.get("/keep/join?code=nothing").status_code == 404
    page = client.get(f"/keep/{sheet['id']}").text  # the watchers' link: neither the code nor a token
    assert "<b>Ann</b>" not in page and code not in page and 'rel="manifest"' in page
    assert "code" not in client.get(f"{URL}/{sheet['id']}").json()
    pytest.importorskip("segno")
    assert client.get(f"/keep/{sheet['id']}/qr.svg").status_code == 403  # the code is a key: writers only
    svg = client.get(f"/keep/{sheet['id']}/qr.svg", headers=bearer(joined.json()["token"]))
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml") and b"<svg" in svg.content


def test_writing_takes_a_token_and_a_renewed_code_revokes_the_ones_it_handed_out(client):
    sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    owner = Keeper(client, sheet)
    ann = {"kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 2, 1], "box": "sixes"}
    for headers in ({}, bearer("not-a-token-of-this-sheet"), {"authorization": "Basic abc"}):
        r = client.post(f"{URL}/{sheet['id']}/entries", json={"id": "watcher-0001", "v": 0, **ann}, headers=headers)
        assert (r.status_code, r.json()["code"]) == (403, "auth/sheet-token")
    other = new_sheet(client, "yams", ("Ann", "Bram"))  # a token writes on its own sheet only
    assert owner.post(ann, token=other["token"]).status_code == 403
    assert client.get(f"{URL}/{sheet['id']}").json()["v"] == 0  # nothing written
    cas = client.post(f"{URL}/join", json={"code": sheet["code"]}).json()["token"]
    dora = client.post(f"{URL}/join", json={"code": sheet["code"]}).json()["token"]
    assert owner.post(ann, token=cas).status_code == 200
    assert client.get(f"{URL}/{sheet['id']}/code", headers=bearer(dora)).json() == {"code": sheet["code"]}
    assert client.get(f"{URL}/{sheet['id']}/code").status_code == 403
    # Dora renews the code: every token the old code handed out stops writing, hers is replaced
    renewed = client.post(f"{URL}/{sheet['id']}/code", headers=bearer(dora)).json()
    assert renewed["code"] != sheet["code"] and renewed["token"] not in (None, dora)
    bram = {"kind": "dice", "seat": 1, "filled": 0, "dice": [5] * 5, "box": "yam"}
    for old in (cas, dora):
        r = owner.post(bram, token=old)
        assert (r.status_code, r.json()["code"]) == (403, "auth/sheet-token")
    assert client.post(f"{URL}/{sheet['id']}/code", headers=bearer(cas)).status_code == 403
    assert client.post(f"{URL}/join", json={"code": sheet["code"]}).status_code == 404  # the old code is gone
    assert owner.post(bram, token=renewed["token"]).status_code == 200
    assert owner.post({**ann, "filled": 1, "box": "fives", "dice": [5, 5, 1, 1, 1]}).status_code == 200  # the maker's
    mine = client.post(f"{URL}/{sheet['id']}/code", headers=bearer(owner.token)).json()
    assert mine["token"] is None  # the maker's own token was not the code's: it stays
    eve = client.post(f"{URL}/join", json={"code": mine["code"]}).json()
    assert eve["id"] == sheet["id"]
    assert owner.post(bram, token=renewed["token"]).json()["code"] == "auth/sheet-token"  # that code is gone too
    # the socket: anyone watches, an entry needs a token said in hello, checked again for every entry
    entry = {**bram, "filled": 1, "box": "fours", "dice": [4, 4, 1, 1, 1]}
    with client.websocket_connect(f"/ws/keep/{sheet['id']}") as watcher:
        watcher.send_json({"type": "hello"})
        assert watcher.receive_json()["type"] == "welcome" and watcher.receive_json()["v"] == 3
        watcher.send_json({"type": "entry", "ref": "watch-0001", "entry": {**entry, "id": "watch-0001", "v": 3}})
        refused = watcher.receive_json()
        assert refused == {**refused, "type": "error", "code": "auth/sheet-token", "ref": "watch-0001"}
    with client.websocket_connect(f"/ws/keep/{sheet['id']}") as ws:
        ws.send_json({"type": "hello", "tokens": [eve["token"]]})
        assert ws.receive_json()["type"] == "welcome" and ws.receive_json()["v"] == 3
        ws.send_json({"type": "entry", "ref": "eve-000001", "entry": {**entry, "id": "eve-000001", "v": 3}})
        made = ws.receive_json()
        assert (made["type"], made["v"], made["ref"]) == ("event", 4, "eve-000001")
        assert client.post(f"{URL}/{sheet['id']}/code", headers=bearer(owner.token)).status_code == 200
        later = {**ann, "filled": 2, "box": "threes", "dice": [3, 3, 3, 1, 1], "id": "eve-000002", "v": 4}
        ws.send_json({"type": "entry", "ref": "eve-000002", "entry": later})  # the same socket, a revoked token
        refused = ws.receive_json()
        assert (refused["type"], refused["code"]) == ("error", "auth/sheet-token")
    assert client.get(f"{URL}/{sheet['id']}").json()["v"] == 4


def test_an_entry_made_on_a_version_the_sheet_never_had_is_refused_not_rebased(client):
    sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    k = Keeper(client, sheet)
    assert k.post({"kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 2, 1], "box": "sixes"}).status_code == 200
    # made after an entry this sheet never got (v 2 on a sheet at 1): Bram's turn, yet not applied
    ahead = k.post({"kind": "dice", "seat": 1, "filled": 0, "dice": [5] * 5, "box": "yam"}, v=2)
    assert ahead.status_code == 409 and ahead.json() == {**ahead.json(), "code": "stale/ahead", "v": 1}
    assert k.post({"kind": "undo", "count": 1}, v=7).json()["code"] == "stale/ahead"
    assert client.get(f"{URL}/{sheet['id']}").json()["v"] == 1


def test_offline_files_and_form_pages(client):
    m = client.get("/keep/manifest.webmanifest")
    assert m.json()["start_url"] == "/keep/" and m.json()["display"] == "standalone"
    sw = client.get("/keep/sw.js")
    assert sw.headers["content-type"].startswith("text/javascript") and "caches" in sw.text
    assert "Keep score" in client.get("/").text or "/keep/" in client.get("/").text
    r = client.post(
        "/keep", data={"name": "Form", "preset": "yammen", "player0": "Ann", "player1": "Bram"}, follow_redirects=False
    )
    assert r.status_code == 303
    view = client.get("/api/keep/" + r.headers["location"].rsplit("/", 1)[1]).json()
    assert [p["name"] for p in view["players"]] == ["Ann", "Bram"]
    bad = client.post("/keep", data={"name": "Form", "preset": "nope", "player0": "Ann"})
    assert bad.status_code == 400 and "choose a ruleset" in bad.text
    toml = 'id = "t"\nname = "T"\n[[rows]]\nid = "chance"\nkind = "sum"\n[[columns]]\nid = "free"\n'
    r = client.post("/keep", data={"name": "T", "custom": toml, "player0": "Ann"}, follow_redirects=False)
    assert r.status_code == 303, r.text


def test_sheets_survive_a_restart_and_phones_follow_live(settings):
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        sheet = new_sheet(c, "yams", ("Ann", "Bram"))
        with c.websocket_connect(f"/ws/keep/{sheet['id']}") as ws:
            ws.send_json({"type": "hello"})
            assert ws.receive_json() == {"type": "welcome", "v": 0, "seats": [], "protocol": 1}
            assert ws.receive_json()["v"] == 0
            k = Keeper(c, sheet)
            assert k.post({"kind": "dice", "seat": 0, "dice": [5, 5, 5, 1, 2], "box": "fives"}).status_code == 200
            msg = ws.receive_json()
            assert msg["type"] == "event" and msg["v"] == 1 and msg["view"]["players"][0]["total"] == 15
            assert msg["event"]["box"] == "fives" and msg["ref"] == msg["event"]["id"]
            ws.send_json({"type": "roll"})
            assert ws.receive_json()["code"] == "protocol/unknown-type"
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        view = c.get(f"{URL}/{sheet['id']}").json()
        assert view["v"] == 1 and view["players"][0]["total"] == 15 and view["current"] == 1
        assert (
            Keeper(c, sheet)
            .post({"kind": "dice", "seat": 0, "dice": [1] * 5, "box": "ones"}, v=1, entry_id="entry-000001")
            .json()["duplicate"]
        )


@pytest.mark.parametrize(
    "message,code,closes",
    [
        ({"type": ["hello"]}, "protocol/unknown-type", True),
        ({"type": {"x": 1}}, "protocol/unknown-type", True),
        ({"type": "roll"}, "protocol/unknown-type", True),
        ({"type": "hello", "since": "1"}, "protocol/malformed", False),
        ({"type": "hello", "extra": 1}, "protocol/malformed", False),
        ({"type": "entry", "entry": {"id": "entry-00001", "v": 0, "kind": "undo"}}, "protocol/hello-first", False),
        ({"type": "entry", "entry": {"id": "x", "v": 0, "kind": "undo"}}, "protocol/malformed", False),
        ({"type": "ping", "ref": 7}, None, False),
    ],
    ids=repr,
)
def test_the_sheet_socket_parses_through_the_same_strict_schema(client, message, code, closes):
    from starlette.websockets import WebSocketDisconnect

    sheet = new_sheet(client, "yams", ("Ann",))
    with client.websocket_connect(f"/ws/keep/{sheet['id']}") as ws:
        ws.send_json(message)
        out = ws.receive_json()
        if code is None:
            assert out == {"type": "pong"}
            return
        assert out["type"] == "error" and out["code"] == code
        if closes:
            with pytest.raises(WebSocketDisconnect) as exc:
                ws.receive_json()
            assert exc.value.code == 4400
        else:
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}


def test_a_sheet_started_offline_is_created_once_under_the_phones_id(client):
    body = {"id": "phone-made-sheet-0001", "name": "Camping", "preset": "yams", "players": ["Ann", "Bram"]}
    first = client.post(URL, json=body)
    assert first.status_code == 201 and first.json()["id"] == body["id"] and first.json()["view"]["v"] == 0
    again = client.post(URL, json={**body, "token": first.json()["token"]})  # the answer was lost: the same sheet
    assert again.status_code == 201 and again.json()["code"] == first.json()["code"]
    assert client.post(URL, json=body).json()["code"] == "sheet/taken"  # its id alone (a watcher's link) is no key
    phone = {**body, "id": "phone-made-sheet-0002", "token": "the-phones-own-token-0002"}
    assert client.post(URL, json=phone).json()["token"] == phone["token"]  # a token the phone made offline
    assert client.post(URL, json=phone).json()["id"] == phone["id"]
    other = client.post(URL, json={**body, "players": ["Cas"]})
    assert other.status_code == 409 and other.json()["code"] == "sheet/taken"
    bad = client.post(URL, json={**body, "id": "short"})
    assert bad.status_code == 422 and bad.json()["code"] == "input/invalid"
    twice = client.post(URL, json={"name": "x", "preset": "yams", "players": ["Ann", "ann "]})
    assert twice.status_code == 422 and twice.json()["code"] == "keeper/same-name"
    assert twice.json()["message"] == "Two players have the same name: make them different."


def test_previews_and_statistics_from_the_server(client):
    sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    r = client.post(f"{URL}/{sheet['id']}/preview", json={"dice": [6, 6, 6, 2, 2], "roll": 1})
    boxes = r.json()["boxes"]
    assert (
        boxes["free.full_house"] == {"legal": True, "written": 25, "gain": 25} and boxes["free.sixes"]["written"] == 18
    )
    zeros = client.post(f"{URL}/{sheet['id']}/preview", json={"dice": None}).json()["boxes"]
    assert zeros["free.yam"]["legal"] and not zeros["free.chance"]["legal"]
    k = Keeper(client, sheet)
    k.post({"kind": "dice", "seat": 0, "dice": [6, 6, 6, 2, 2], "box": "full_house"})
    fix = client.post(f"{URL}/{sheet['id']}/preview", json={"dice": [1, 1, 1, 1, 2], "turn": 1}).json()
    assert fix["turn"] == 1 and fix["boxes"]["free.ones"]["written"] == 4
    assert client.post(f"{URL}/{sheet['id']}/preview", json={"dice": [7, 1, 1, 1, 1]}).status_code == 422
    assert (
        client.post(f"{URL}/{sheet['id']}/preview", json={"turn": 9, "dice": [1] * 5}).json()["code"]
        == "keeper/no-entry"
    )
    stats = client.post(f"{URL}/stats", json={"sheets": [sheet["id"], "nope"]}).json()
    assert stats == {"groups": [], "games": 0, "skipped": 0}  # not finished yet


def test_what_a_phone_keeps_to_work_offline(client):
    sw = client.get("/keep/sw.js")
    assert sw.status_code == 200 and "__VERSION__" not in sw.text and "/static/keeper.js" in sw.text
    assert client.get("/keep/worker.js").headers["content-type"].startswith("text/javascript")
    z = client.get("/keep/engine.zip")
    import io
    import zipfile

    names = zipfile.ZipFile(io.BytesIO(z.content)).namelist()
    assert "yambak/keeper/browser.py" in names and "yambak/rules/presets/yammen.toml" in names
    rules_modules = {f"yambak/rules/{p.name}" for p in (Path(yambak.__file__).parent / "rules").glob("*.py")}
    assert rules_modules <= set(names)  # every module the loader is made of reaches the phone
    assert not [n for n in names if n.startswith(("yambak/server", "yambak/solver", "yambak/bots"))]
    digest = z.headers["etag"].strip('"')
    assert "immutable" in client.get(f"/keep/engine.zip?v={digest}").headers["cache-control"]
    page = client.get("/keep/")
    assert '"page": "keeper"' in page.text and "keeper.css" in page.text
    unknown = client.get("/keep/only-on-a-phone-1234")  # a sheet started offline: the phone has it
    assert unknown.status_code == 404 and '"sheet": "only-on-a-phone-1234"' in unknown.text
