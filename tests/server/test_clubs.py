"""An organiser runs their club (SQLite and PostgreSQL): a start time in their own zone, approval of
joiners, a renewed invite, removing a player, pausing (the seed stays sealed however long the pause),
extending a round (later rounds move, seeds and commitments stay), cancelling a round (it counts for
nobody, its seed is published); anyone else is refused. A deleted organiser's tournament goes on, closed
to new players."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings

from .deal_helpers import ORIGIN, person, play
from .helpers import WS, browser
from .profile_helpers import Clock

ACTIONS = ["pause", "resume", "extend", "cancel-round", "cancel", "invite", "approval", "approve", "remove"]


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 3, 2, 18, 0, tzinfo=UTC))


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def _do(c: TestClient, club: str, action: str, **body) -> dict:
    return c.post(f"/api/clubs/{club}/{action}", json=body, headers=ORIGIN).json()


def _roll(c: TestClient, made: dict) -> dict:
    with c.websocket_connect(f"/ws/{made['id']}") as s:
        ws = WS(s)
        _, out = ws.hello(list(made["tokens"].values()))
        return ws.act(type="roll", seat=0, v=out["v"])


def test_an_organiser_runs_the_club_and_nobody_else_can(client, clock) -> None:
    ann, bram, cy = person(client, "Ann"), person(client, "Bram"), person(client, "Cy")
    body = {"name": "Thursday club", "preset": "yatzy", "rounds": 2, "window": 30, "approval": True}
    for wrong in (
        {"window": 5},
        {"starts": "2026-03-02T17:00:00Z"},
        {"starts": "2026-07-01T19:00:00Z"},
        {"starts": "soon"},
    ):
        r = ann.post("/api/clubs", json={**body, **wrong})
        assert r.status_code in (400, 422) and r.json()["code"] == "input/invalid", (wrong, r.text)
    made = ann.post("/api/clubs", json={**body, "starts": "2026-03-02T20:00:00+01:00"}).json()  # 19:00 UTC
    club, code = made["id"], made["invite"].split("invite=")[1]
    data = ann.get(f"/api/clubs/{club}").json()
    assert [(r["opens_at"], r["closes_at"]) for r in data["rounds"]] == [
        ("2026-03-02T19:00:00Z", "2026-03-02T19:30:00Z"), ("2026-03-02T19:30:00Z", "2026-03-02T20:00:00Z"),
    ]  # fmt: skip
    commitments = [r["commitment"] for r in data["rounds"]]

    # joiners wait for approval; the organiser approves Bram and turns Cy away for good
    for c in (bram, cy):
        assert c.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["status"] == "pending"
    keys = {m["name"]: m["key"] for m in ann.get(f"/api/clubs/{club}").json()["members"]}
    assert "members" not in bram.get(f"/api/clubs/{club}").json()  # only the organiser sees them
    _do(ann, club, "approve", player=keys["Bram"])
    _do(ann, club, "remove", player=keys["Cy"])
    assert cy.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["code"] == "deal/removed"
    # nobody but the organiser runs it: not a player, not someone without a profile
    anonymous = browser(client)
    for c in (bram, anonymous):
        for action in ACTIONS:
            r = c.post(f"/api/clubs/{club}/{action}", json={"round": 1, "minutes": 15, "player": keys["Bram"]})
            assert r.status_code == 403 and r.json()["code"] == "deal/not-organiser", (action, r.text)
        assert c.post(f"/c/{club}/manage", data={"action": "pause"}, headers=ORIGIN).status_code == 403
    assert "You run this tournament" in ann.get(f"/c/{club}").text
    assert "You run this tournament" not in bram.get(f"/c/{club}").text
    # a new invite link: the old one stops working
    fresh = _do(ann, club, "invite")["invite"].split("invite=")[1]
    dee = person(client, "Dee")
    assert dee.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["code"] == "deal/invite"
    assert dee.post(f"/api/clubs/{club}/join", json={"invite": fresh}).json()["status"] == "pending"

    clock.now = datetime(2026, 3, 2, 19, 5, tzinfo=UTC)  # round 1 is open
    games = {n: c.post(f"/api/clubs/{club}/rounds/1/play").json() for n, c in (("ann", ann), ("bram", bram))}
    play(ann, games["ann"])
    play(bram, games["bram"], turns=2)
    _do(ann, club, "pause")
    assert _roll(bram, games["bram"])["code"] == "deal/paused"
    clock.now = datetime(2026, 3, 2, 20, 5, tzinfo=UTC)  # an hour later: past every close as first set
    assert anonymous.get(f"/t/{games['ann']['id']}/record.json").status_code == 403  # still sealed
    assert ann.get(f"/t/{games['ann']['id']}/record.json").json()["fairness"]["seed"] is None
    paused = ann.get(f"/api/clubs/{club}").json()
    assert paused["paused"] and not paused["rounds"][0]["closed"] and paused["rounds"][0]["seed"] is None
    _do(ann, club, "resume")  # the clock goes on: both rounds move by the hour of the pause
    _do(ann, club, "extend", round=1, minutes=15)  # and round 1 gets 15 more minutes, round 2 moving with it
    data = ann.get(f"/api/clubs/{club}").json()
    assert [(r["opens_at"], r["closes_at"]) for r in data["rounds"]] == [
        ("2026-03-02T19:00:00Z", "2026-03-02T20:45:00Z"), ("2026-03-02T20:45:00Z", "2026-03-02T21:15:00Z"),
    ]  # fmt: skip
    assert [r["commitment"] for r in data["rounds"]] == commitments  # the same deals
    play(bram, games["bram"])  # Bram plays on
    _do(ann, club, "cancel-round", round=2)
    data = ann.get(f"/api/clubs/{club}").json()
    two = data["rounds"][1]
    assert (
        two["cancelled"] and two["closed"] and hashlib.sha256(bytes.fromhex(two["seed"])).hexdigest() == commitments[1]
    )
    assert bram.post(f"/api/clubs/{club}/rounds/2/play").json()["code"] == "deal/cancelled"
    clock.now = datetime(2026, 3, 2, 20, 46, tzinfo=UTC)
    final = client.get(f"/api/clubs/{club}").json()
    assert final["over"] and {s["name"]: s["max"] for s in final["standings"]} == {"Ann": 2, "Bram": 2}
    assert dee.post(f"/api/clubs/{club}/join", json={"invite": fresh}).json()["code"] == "deal/over"


def test_a_removed_player_leaves_the_open_round_and_a_deleted_organiser_leaves_the_club_going(client, clock) -> None:
    ann, bram, cy = person(client, "Ann"), person(client, "Bram"), person(client, "Cy")
    made = ann.post("/api/clubs", json={"name": "Club", "preset": "yams", "rounds": 2, "window": 60}).json()
    club, code = made["id"], made["invite"].split("invite=")[1]
    for c in (bram, cy):
        assert c.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["status"] == "player"
    games = {n: c.post(f"/api/clubs/{club}/rounds/1/play").json() for n, c in (("bram", bram), ("cy", cy))}
    play(cy, games["cy"])
    play(bram, games["bram"], turns=1)
    keys = {m["name"]: m["key"] for m in ann.get(f"/api/clubs/{club}").json()["members"]}
    assert [r["name"] for r in client.get(f"/api/clubs/{club}").json()["rounds"][0]["rows"]] == ["Cy"]
    _do(ann, club, "remove", player=keys["Cy"])  # his finished game leaves the open round's board
    assert client.get(f"/api/clubs/{club}").json()["rounds"][0]["rows"] == []
    _do(ann, club, "remove", player=keys["Bram"])  # and Bram's table takes no more actions
    assert _roll(bram, games["bram"])["code"] == "deal/not-invited"
    _do(ann, club, "approval", on=False)
    dee = person(client, "Dee")
    assert dee.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["status"] == "player"
    assert ann.delete("/api/me", headers=ORIGIN).status_code == 204
    data = client.get(f"/api/clubs/{club}").json()
    assert data["organiser_gone"] and not data["over"]
    assert "closed to new players" in client.get(f"/c/{club}").text
    eve = person(client, "Eve")
    assert eve.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["code"] == "deal/organiser-gone"
    play(dee, dee.post(f"/api/clubs/{club}/rounds/1/play").json())  # the tournament goes on
    clock.now += timedelta(minutes=61)
    assert [s["name"] for s in client.get(f"/api/clubs/{club}").json()["standings"]] == ["Dee"]


def test_the_organiser_cancels_the_rest_of_the_tournament(client) -> None:
    """Cancelling the tournament mid-round: every round not over is cancelled (a game in play stops, the
    round counts for nobody, every seed is published), the club says so and takes no one new."""
    ann, bram, cy = person(client, "Ann"), person(client, "Bram"), person(client, "Cy")
    made = ann.post("/api/clubs", json={"name": "Club", "preset": "yams", "rounds": 2, "window": 60}).json()
    club, code = made["id"], made["invite"].split("invite=")[1]
    assert bram.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["status"] == "player"
    game = bram.post(f"/api/clubs/{club}/rounds/1/play").json()
    play(bram, game, turns=2)
    commitments = [r["commitment"] for r in client.get(f"/api/clubs/{club}").json()["rounds"]]
    assert _do(bram, club, "cancel")["code"] == "deal/not-organiser"  # only the organiser
    assert "code" not in _do(ann, club, "cancel")
    data = client.get(f"/api/clubs/{club}").json()
    assert data["over"] and all(r["cancelled"] and r["closed"] for r in data["rounds"])
    assert [hashlib.sha256(bytes.fromhex(r["seed"])).hexdigest() for r in data["rounds"]] == commitments
    assert _roll(bram, game)["code"] == "deal/closed"  # the game in play stops, unfinished
    assert data["standings"] == []  # cancelled rounds count for nobody
    assert cy.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["code"] == "deal/over"
    assert _do(ann, club, "cancel")["code"] == "deal/over"  # nothing left to cancel


def test_a_pause_reaches_the_open_tables_at_once(client) -> None:
    """Pausing changes no event of a table, only its deal: a player's open socket is sent the whole view
    again, which says paused (a resync that sent only missed events would say nothing)."""
    ann, bram = person(client, "Ann"), person(client, "Bram")
    made = ann.post("/api/clubs", json={"name": "Club", "preset": "yams", "rounds": 1, "window": 60}).json()
    club, code = made["id"], made["invite"].split("invite=")[1]
    assert bram.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["status"] == "player"
    game = bram.post(f"/api/clubs/{club}/rounds/1/play").json()
    with bram.websocket_connect(f"/ws/{game['id']}") as s:
        ws = WS(s)
        _, out = ws.hello(list(game["tokens"].values()))
        assert out["view"]["deal"]["paused"] is False
        _do(ann, club, "pause")
        pushed = ws.recv()
        assert pushed["type"] == "state" and pushed["view"]["deal"]["paused"] is True
        _do(ann, club, "resume")
        assert ws.recv()["view"]["deal"]["paused"] is False


def test_every_organiser_action_is_logged_and_cancel_or_extend_is_asked_first(client, clock) -> None:
    """The issue: cancelling or extending a round after seeing the scores left no trace. Now the page logs
    what, when and by whom; its cancel and extend ask first; a round cancelled while open tells its players."""
    ann, bram = person(client, "Ann"), person(client, "Bram")
    made = ann.post("/api/clubs", json={"name": "Club", "preset": "yatzy", "rounds": 2, "window": 30}).json()
    club, code = made["id"], made["invite"].split("invite=")[1]
    assert bram.post(f"/api/clubs/{club}/join", json={"invite": code}).json()["status"] == "player"
    clock.now += timedelta(minutes=5)  # round 1 is open: Bram plays a turn
    game = bram.post(f"/api/clubs/{club}/rounds/1/play").json()
    # the page asks before it extends: nothing changes until the organiser says yes
    closes = ann.get(f"/api/clubs/{club}").json()["rounds"][0]["closes_at"]
    page = ann.post(f"/c/{club}/manage", data={"action": "extend", "round": "1", "minutes": "15"}, headers=ORIGIN)
    assert page.status_code == 200 and 'id="confirm-action"' in page.text
    assert "Extend round 1 by 15 minutes?" in page.text
    assert ann.get(f"/api/clubs/{club}").json()["rounds"][0]["closes_at"] == closes
    yes = {"action": "extend", "round": "1", "minutes": "15", "confirmed": "1"}
    assert ann.post(f"/c/{club}/manage", data=yes, headers=ORIGIN, follow_redirects=False).status_code == 303
    assert ann.get(f"/api/clubs/{club}").json()["rounds"][0]["closes_at"] == "2026-03-02T18:45:00Z"
    page = ann.post(f"/c/{club}/manage", data={"action": "cancel-round", "round": "1"}, headers=ORIGIN).text
    assert "Cancel round 1?" in page and not ann.get(f"/api/clubs/{club}").json()["rounds"][0]["cancelled"]
    with bram.websocket_connect(f"/ws/{game['id']}") as s:
        ws = WS(s)
        _, out = ws.hello(list(game["tokens"].values()))
        assert out["view"]["deal"]["cancelled"] is False
        clock.now += timedelta(minutes=3)
        yes = {"action": "cancel-round", "round": "1", "confirmed": "1"}
        assert ann.post(f"/c/{club}/manage", data=yes, headers=ORIGIN, follow_redirects=False).status_code == 303
        while (msg := ws.recv()).get("type") not in ("state", "events") or not msg.get("view"):
            pass
        assert msg["view"]["deal"]["cancelled"] is True and msg["view"]["deal"]["closed"] is True
    _do(ann, club, "pause")
    # the log: what, when, by whom, newest first, for every member (the API and the page)
    log = bram.get(f"/api/clubs/{club}").json()["log"]
    assert [(e["action"], e["round"], e["minutes"], e["started"], e["by"]) for e in log] == [
        ("pause", None, None, False, "Ann"),
        ("cancel-round", 1, None, True, "Ann"),
        ("extend", 1, 15, False, "Ann"),
        ("created", None, None, False, "Ann"),
    ]
    assert [e["at"] for e in log] == ["2026-03-02T18:08:00Z", "2026-03-02T18:08:00Z", "2026-03-02T18:05:00Z",
                                      "2026-03-02T18:00:00Z"]  # fmt: skip
    text = bram.get(f"/c/{club}?lang=en").text
    assert "Ann cancelled round 1 after it had opened" in text and "Ann extended round 1 by 15 minutes" in text
