"""An outright win through the whole server (docs/rules.md §7, docs/rulesets.md "Ranking one-seat games"): a
club round of Generala whose deal serves a generala on the first roll. Ann takes it and wins at once with 50;
Bram writes the same dice in ones and plays on to a bigger total. The round ranks Ann first by the rule, not
by points; after a restart, Bram's review in the browser says he missed an outright win (never a loss of
points that counts the win as the ruleset's win_points without saying so) and names what the values count."""

from __future__ import annotations

import random
import secrets
from datetime import timedelta
from types import SimpleNamespace

from fastapi.testclient import TestClient

from yambak.engine import FairDice, Roll, new_game
from yambak.rules import load_ruleset
from yambak.server import create_app
from yambak.server.daily import clubs

from ..server.conftest import clock as clock  # the server's clock the test moves (a fixture)
from ..server.deal_helpers import CheckedWS, person, play
from ..server.helpers import legal
from ..server.profile_helpers import profile_settings
from .conftest import SCREENSHOTS, app_in_thread

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


def served_generala_seed() -> str:
    """A deal seed (drawn from a fixed source) whose first roll is five alike: a deal's dice are the same for
    every entrant (FairDice without nonces), so each of them is served it."""
    draws = random.Random(7)
    rules = load_ruleset("generala")
    while True:
        seed = draws.randbytes(32).hex()
        state, _ = new_game(rules, ["x"], dice=FairDice(seed, (), True), simultaneous=True).apply(Roll(0))
        if len(set(state.turns[0].dice)) == 1:
            return seed


def first_turn(c: TestClient, made: dict, box: str | None) -> dict:
    """Roll once and write the dice in `box` (None: the served generala's box); the view after it."""
    with c.websocket_connect(f"/ws/{made['id']}") as s:
        ws = CheckedWS(s)
        _, out = ws.hello(list(made["tokens"].values()))
        out = ws.act(type="roll", seat=0, v=out["v"])
        dice = out["view"]["players"][0]["turn"]["dice"]
        assert len(set(dice)) == 1, dice  # served five alike
        offered = legal(out["view"]["players"][0]["turn"])
        out = ws.act(type="score", seat=0, v=out["v"], box=box or "free.yam")
        assert out["type"] == "event" and (box is None or box in offered), out
        return out["view"]


def test_a_served_generala_wins_the_club_round_and_the_review_says_so(tmp_path, clock, monkeypatch, new_page):
    seed = served_generala_seed()
    drawn = SimpleNamespace(
        token_hex=lambda _n: seed, token_urlsafe=secrets.token_urlsafe, compare_digest=secrets.compare_digest
    )
    monkeypatch.setattr(clubs, "secrets", drawn)  # the round's deal: a served generala
    settings = profile_settings(tmp_path, clock, http_burst=1000)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        ann, bram = person(client, "Ann"), person(client, "Bram")
        club = ann.post("/api/clubs", json={"name": "Generala night", "preset": "generala", "rounds": 1, "window": 60})
        assert club.status_code == 201, club.text
        club_id, code = club.json()["id"], club.json()["invite"].split("invite=")[1]
        assert bram.post(f"/api/clubs/{club_id}/join", json={"invite": code}).json()["joined"] is True
        made = {n: c.post(f"/api/clubs/{club_id}/rounds/1/play").json() for n, c in (("ann", ann), ("bram", bram))}
        won = first_turn(ann, made["ann"], None)
        assert won["finished"] and won["outright"]["seats"] == [0] and won["outright"]["by_roll"] == 1
        assert won["players"][0]["total"] == 50  # the sheet's points: one box
        first_turn(bram, made["bram"], "free.ones")  # the same dice, written elsewhere: no win at once
        bram_total = play(bram, made["bram"])["players"][0]["total"]
        clock.now += timedelta(minutes=61)  # the round closes
        data = client.get(f"/api/clubs/{club_id}").json()
        assert [s["name"] for s in data["standings"]] == ["Ann", "Bram"]  # a win, whatever Bram's total
        assert {s["name"]: s["mp"] for s in data["standings"]} == {"Ann": 2, "Bram": 0}
        [deal] = data["rounds"]
        assert deal["par"]["outright"] == 1  # the bot took the served generala too: a win, not its 50
        review = client.get(f"/api/tables/{made['bram']['id']}/review").json()
        assert review["exact"] and review["win_points"] == 400
        missed = [d for d in review["players"][0]["decisions"] if d["best"].get("wins")]
        assert [d["round"] for d in missed] == [1] and not missed[0]["chosen"].get("wins")
        client.app.state.profiles.grader.wait(10)
    print(f"Ann won outright with 50; Bram's total {bram_total}")

    with app_in_thread(settings) as base:  # the same store after a restart
        for name, viewport, dark in (("phone", PHONE, False), ("laptop", LAPTOP, True)):
            page = new_page(viewport=viewport, dark=dark, touch=name == "phone")
            page.goto(f"{base}/t/{made['bram']['id']}/review")
            page.wait_for_selector("#review-summary .win-points")
            assert page.inner_text("#review-summary .win-points") == (
                "These values count an outright win as 400 points; the sheet does not."
            )
            assert "missed an outright win" in page.inner_text("body")
            width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
            assert width <= inner
            page.screenshot(path=str(SCREENSHOTS / f"outright-review-{name}.png"), full_page=True)
            page.goto(f"{base}/c/{club_id}")
            body = page.inner_text("body")
            assert body.index("Ann") < body.index("Bram") and "won outright" in page.inner_text(".par")
            page.screenshot(path=str(SCREENSHOTS / f"outright-club-{name}.png"), full_page=True)
