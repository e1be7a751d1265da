"""The daily challenge, its leaderboards and club tournaments over the API: the same dice for every
entrant, the seed's hash published before the day and the seed after it, one counted attempt, profiles
made that day kept off the board, matchpoints, and a tournament's standings."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import timedelta
from types import SimpleNamespace

import pytest

from yambak.cli import main as cli_main
from yambak.server import Settings
from yambak.server.daily import manager as daily_manager
from yambak.server.daily.matchpoints import matchpoints, percent, ranks, top

from .deal_helpers import person, play
from .helpers import browser
from .profile_helpers import profile_settings


@pytest.fixture
def settings(tmp_path, clock) -> Settings:
    return profile_settings(tmp_path, clock, http_burst=1000)


def test_matchpoints_with_ties() -> None:
    mp = matchpoints({"a": 250, "b": 230, "c": 230, "d": 180, "e": 250})
    assert mp == {"a": 7, "e": 7, "b": 3, "c": 3, "d": 0}
    assert sum(mp.values()) == 5 * top(5) // 2  # every pair shares 2 points
    assert matchpoints({"alone": 100}) == {"alone": 0} and top(1) == 0 and percent(0, 0) is None
    assert percent(7, 8) == 87.5 and ranks([250, 250, 230, 230, 180]) == [1, 1, 3, 3, 5]


def test_the_daily_challenge(client, clock, tmp_path, capsys, monkeypatch) -> None:
    # the day's seeds drawn from a fixed source: Ann's and Bram's ways of playing the same dice then end
    # apart (with a secret seed they tie now and then, and the board's order is a coin toss)
    draws = random.Random(2026)
    monkeypatch.setattr(daily_manager, "secrets", SimpleNamespace(token_hex=lambda n: draws.randbytes(n).hex()))
    ann, bram = person(client, "Ann"), person(client, "Bram")
    clock.now += timedelta(days=1)  # 2026-03-03: Ann and Bram's profiles are a day old
    cy = person(client, "Cy")  # made today: plays, but is not ranked today

    listing = client.get("/api/daily").json()
    assert listing["day"] == "2026-03-03" and [d["preset"] for d in listing["deals"]] == [
        "yams",
        "yatzy",
        "yammen",
        "yamb",
    ]
    deal = listing["deals"][0]
    assert deal["seed"] is None and len(deal["commitment"]) == 64  # the hash is published before anyone plays

    made = {n: c.post("/api/daily/yams/play", json={}).json() for n, c in (("ann", ann), ("bram", bram), ("cy", cy))}
    assert all(m["counted"] for m in made.values())
    # Ann goes on from her phone (her profile moved there): the same table, a new token for her seat
    phone = browser(client)
    phone.cookies.set("yambak_profile", ann.cookies.get("yambak_profile"))
    moved = phone.post("/api/daily/yams/play", json={}).json()
    assert (moved["id"], moved["counted"]) == (made["ann"]["id"], True) and moved["tokens"]["0"] != made["ann"][
        "tokens"
    ]["0"]
    made["ann"] = moved
    views = {"ann": play(phone, made["ann"]), "bram": play(bram, made["bram"], last=True), "cy": play(cy, made["cy"])}
    scores = {n: v["players"][0]["total"] for n, v in views.items()}
    assert scores["ann"] != scores["bram"]
    # the same dice for every entrant: Ann's and Cy's games, played the same way, are the same game
    assert scores["ann"] == scores["cy"]
    ann_dice = [t["rolls"] for t in ann.get(f"/api/tables/{made['ann']['id']}/record").json()["turns"]]
    bram_dice = [t["rolls"][0] for t in bram.get(f"/api/tables/{made['bram']['id']}/record").json()["turns"]]
    assert [r[0] for r in ann_dice] == bram_dice

    # a finished game's record keeps the seed sealed until the day is over (others still play these dice)
    rec = ann.get(f"/t/{made['ann']['id']}/record.json").json()
    assert rec["fairness"]["seed"] is None and rec["fairness"]["commitment"] == deal["commitment"]
    (tmp_path / "sealed.json").write_text(json.dumps(rec))
    assert cli_main(["verify", str(tmp_path / "sealed.json")]) == 3  # not revealed yet: not "tampered" (1)
    assert "NOT VERIFIABLE YET" in capsys.readouterr().out

    # a second attempt is practice: it does not count, and the board keeps the first
    again = ann.post("/api/daily/yams/play", json={}).json()
    assert again["counted"] is False and again["id"] != made["ann"]["id"]
    play(ann, again, last=True)
    assert ann.get(f"/api/me/tables/{again['id']}").json()["counted"] is False  # she knew the dice: no best score

    board = ann.get("/api/daily/2026-03-03/yams").json()
    assert [(r["name"], r["score"]) for r in board["rows"]] == sorted(
        [("Ann", scores["ann"]), ("Bram", scores["bram"])], key=lambda x: -x[1]
    )
    winner = board["rows"][0]
    assert (winner["mp"], winner["pct"], board["rows"][1]["mp"]) == (2, 100.0, 0)
    assert all(r["table"] is None for r in board["rows"]) and board["seed"] is None  # no replays before the end
    assert board["me"]["status"] == "ranked" and board["par"]["bot"] == "optimal"  # Ann finished: she sees par
    assert cy.get("/api/daily/2026-03-03/yams").json()["me"]["status"] == "unranked"
    page = cy.get("/daily?preset=yams").text
    assert "Ann" in page and "Bram" in page and "Cy" not in page.split("<table")[1].split("</table>")[0]
    assert "casual ranking" in page

    # the next day: the seed is revealed, each game can be replayed, the challenge record verifies
    clock.now += timedelta(days=1)
    closed = client.get("/api/daily?day=2026-03-03").json()["deals"][0]
    assert hashlib.sha256(bytes.fromhex(closed["seed"])).hexdigest() == deal["commitment"]
    board = client.get("/api/daily/2026-03-03/yams").json()
    assert board["rows"][0]["table"] in (made["ann"]["id"], made["bram"]["id"]) and board["par"]["table"]
    assert client.get(f"/t/{board['rows'][0]['table']}/review").status_code == 200
    for url in (closed["record"], f"/t/{made['bram']['id']}/record.json"):
        path = tmp_path / "challenge.json"
        path.write_text(json.dumps(client.get(url).json()))
        assert cli_main(["verify", str(path)]) == 0
        assert "verified" in capsys.readouterr().out
    assert ann.post("/api/daily/yams/play", json={}).json()["counted"]  # today's deal is another one
    week = client.get("/api/leaderboard/yams?period=week&day=2026-03-03").json()["rows"]
    assert [(r["name"], r["mp"], r["deals"]) for r in week] == [
        (winner["name"], 2, 1),
        (board["rows"][1]["name"], 0, 1),
    ]
    assert client.get("/api/leaderboard/yams?period=all").json()["rows"] == week
    solo = {r["name"]: r["score"] for r in client.get("/api/leaderboard/yams?period=solo").json()["rows"]}
    assert solo == {"Ann": scores["ann"], "Bram": scores["bram"], "Cy": scores["cy"]}  # not Ann's practice game
    page = client.get("/daily?preset=yams&day=2026-03-03").text  # yesterday's board: replays, the record
    assert f"/t/{made['bram']['id']}/review" in page and closed["record"] in page and closed["seed"] in page


def test_refusals(client) -> None:
    assert client.post("/api/daily/yams/play", json={}).json()["code"] == "profile/none"
    assert client.post("/api/daily/yams/play", json={"name": "\u200b"}).json()["code"] == "input/name"
    assert client.post("/api/daily/chess/play", json={}).status_code == 404
    assert client.get("/api/daily/2026-13-01/yams").status_code == 422
    assert client.get("/api/daily/2027-01-01/yams").status_code == 404
    assert client.get("/api/daily/2026-03-02/yams/record").json()["code"] == "deal/open"
    assert client.get("/api/leaderboard/yams?period=year").status_code == 422
    assert client.get("/daily?preset=nope&period=nope&day=zz").status_code == 200


def test_a_club_tournament_with_two_rounds(client, clock) -> None:
    ann = person(client, "Ann")
    for wrong in ({"rounds": 21}, {"window": 14}, {"preset": "chess"}, {"name": " "}, {"rounds": True}):
        body = {"name": "Club night", "preset": "yatzy", "rounds": 2, "window": 60, **wrong}
        assert ann.post("/api/clubs", json=body).status_code in (400, 422), wrong
    r = ann.post("/api/clubs", json={"name": "Club night", "preset": "yatzy", "rounds": 2, "window": 60})
    assert r.status_code == 201, r.text
    club = r.json()
    code = club["invite"].split("invite=")[1]
    assert code in ann.get(f"/c/{club['id']}").text  # the organiser sees the invite link
    bram, cy = person(client, "Bram"), person(client, "Cy")
    assert bram.post(f"/api/clubs/{club['id']}/join", json={"invite": "wrong-code"}).status_code == 403
    for c in (bram, cy):
        assert c.post(f"/api/clubs/{club['id']}/join", json={"invite": code}).json() == {
            "joined": True,
            "status": "player",
        }
    stranger = person(client, "Dee")
    assert stranger.post(f"/api/clubs/{club['id']}/rounds/1/play").json()["code"] == "deal/not-invited"
    assert ann.post(f"/api/clubs/{club['id']}/rounds/2/play").json()["code"] == "deal/not-open"

    def round_of(n: int, pick: dict[str, bool]) -> dict[str, int]:
        out = {}
        for name, c in (("Ann", ann), ("Bram", bram), ("Cy", cy)):
            if name in pick:
                made = c.post(f"/api/clubs/{club['id']}/rounds/{n}/play").json()
                out[name] = play(c, made, last=pick[name])["players"][0]["total"]
        return out

    one = round_of(1, {"Ann": False, "Bram": True, "Cy": False})  # Ann and Cy tie: the same dice, the same play
    clock.now += timedelta(minutes=61)
    two = round_of(2, {"Ann": True, "Bram": False})  # Cy misses round 2
    clock.now += timedelta(minutes=61)

    expected: dict[str, int] = {}
    for scores in (one, two):
        for name, mp in matchpoints(scores).items():
            expected[name] = expected.get(name, 0) + mp
    data = client.get(f"/api/clubs/{club['id']}").json()
    assert {s["name"]: s["mp"] for s in data["standings"]} == expected
    assert [s["mp"] for s in data["standings"]] == sorted(expected.values(), reverse=True)
    assert one["Ann"] == one["Cy"] and data["over"] and all(r["seed"] for r in data["rounds"])
    page = client.get(f"/c/{club['id']}").text  # the shareable results page: names only
    assert "Club night" in page and all(n in page for n in ("Ann", "Bram", "Cy")) and code not in page
    assert code not in ann.get(f"/c/{club['id']}").text  # over: no invite link any more
    assert f"/c/{club['id']}" in bram.get("/clubs/new").text  # a player finds their tournaments again


def test_the_days_deals_are_made_with_their_pars(client) -> None:
    made = client.app.state.deals.prepare()  # what a running server does in the first minute of a day
    assert [d.preset for d in made] == ["yams", "yatzy", "yammen", "yamb"]
    assert [d.par_bot for d in made] == ["optimal", "optimal", "strong", "strong"] and all(d.par_score for d in made)
    listed = client.get("/api/daily").json()["deals"]
    assert [d["commitment"] for d in listed] == [d.commitment for d in made]  # made once: the same commitments


def test_the_days_pars_made_in_the_background_are_played_at_the_lowest_priority(client) -> None:
    """A running server's own making of the day's deals (`keep_dealing`) plays the pars where the grades
    are computed (the coach's process that runs only on an idle core), not in the advice's: nobody waits."""
    deals, played = client.app.state.deals, []

    def background(*args):
        played.append(args[0].__name__)
        return client.app.state.profiles.grader.run(*args)  # here a thread: tests grade in one

    deals.background = background
    made = deals.prepare(background=True)
    assert played == ["par_actions"] * 4 and all(d.par_score for d in made)
    assert client.app.state.manager.coach._executor is None  # the advice's pool was never started


def test_a_par_being_played_is_not_played_again(client) -> None:
    """A request that needs a deal while its par is being played (by the background, say) is answered
    with the deal as it is, without a second par game; once played, the par is there for everyone."""
    deals = client.app.state.deals
    deal = deals.store.get_deal(daily_manager.daily_id(deals.today(), "yams"))
    assert deal is None
    deals._playing.add(daily_manager.daily_id(deals.today(), "yams"))  # as while another thread plays it
    waiting = deals.daily(deals.today(), "yams")
    assert waiting is not None and waiting.par_table is None and waiting.par_score is None
    assert client.get("/api/daily").status_code == 200  # the day's page meanwhile: no par yet, no error
    deals._playing.clear()
    played = deals.daily(deals.today(), "yams")
    assert played.par_table is not None and deals.play_par(waiting).par_table == played.par_table  # not twice


def test_the_par_bot_thinks_in_the_coachs_process(tmp_path, clock) -> None:
    """The par game is played in the coach's process (not on the players' interpreter lock) and replayed
    here on the same dice: the stored par table is the bot's game, its total the par."""
    from fastapi.testclient import TestClient

    from yambak.engine import replay
    from yambak.server import create_app
    from yambak.server.daily.manager import daily_id

    with TestClient(create_app(profile_settings(tmp_path, clock, coach_process=True))) as c:
        deals = c.app.state.deals
        deal = deals.daily(deals.today(), "yams")
        assert deal.par_bot == "optimal" and deal.par_score is not None and deal.id == daily_id(deals.today(), "yams")
        row, _, _ = c.app.state.manager.store.load_session(deal.par_table)
        assert row.finished and len(row.record["turns"]) == 13
        game = replay(row.record, simultaneous=True)
        assert game.finished and game.total(0) == deal.par_score
        assert c.app.state.manager.coach._executor is not None  # the process was used
