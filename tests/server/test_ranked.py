"""Ranked tables (SQLite and PostgreSQL): "Play ranked" seats profiles at one table of the size they
asked for, the game starts once it is full, and its end rates every player with OpenSkill by the
engine's standings; a player away when the turn clock ran out twice is placed last; a pair of profiles
rates three times a day, a profile from its second day. Ratings survive a restart, and two games of one
profile ending at once on two servers both count."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce

from yambak.server import Settings, create_app
from yambak.server.live import RequestError
from yambak.store import Store

from .deal_helpers import CheckedWS, person, play_ranked, seat_ranked, seat_ranked_together
from .helpers import browser, legal


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def test_three_profiles_are_seated_together_and_rated_by_their_places(client, clock) -> None:
    ann, bram, cy = person(client, "Ann"), person(client, "Bram"), person(client, "Cy")
    clock.now += timedelta(days=1)  # a profile's games rate from its second day
    assert browser(client).post("/api/ranked/yams/play", json={"players": 3}).status_code == 401
    made = {"ann": seat_ranked(ann, 3)}
    # the game starts when every seat is taken; no one without a profile takes a seat
    with ann.websocket_connect(f"/ws/{made['ann']['id']}") as s:
        ws = CheckedWS(s)
        _, out = ws.hello(list(made["ann"]["tokens"].values()))
        assert ws.act(type="roll", seat=0, v=out["v"])["code"] == "ranked/waiting"
    manager = client.app.state.manager
    table = manager.get(made["ann"]["id"])
    for profile in (None, ann.get("/api/me").json()["profile"]["id"]):  # a guest; Ann at a second seat
        with pytest.raises(RequestError) as refused:
            client.portal.call(manager.join, table, "Guest", None, profile)
        assert refused.value.code == "ranked/profile"
    assert seat_ranked(ann, 2)["id"] != made["ann"]["id"]  # another size: another table (Ann already sits here)
    made["bram"], made["cy"] = seat_ranked(bram, 3), seat_ranked(cy, 3)
    assert made["bram"]["id"] == made["cy"]["id"] == made["ann"]["id"]
    view = play_ranked({"ann": ann, "bram": bram, "cy": cy}, made)
    data = client.get(f"/api/ranked/tables/{made['ann']['id']}").json()
    changes = {c["name"]: c for c in data["changes"]}
    totals = {p["name"]: p["total"] for p in view["players"]}
    assert all(c["rated"] and c["before"] == 0.0 for c in changes.values())
    # what OpenSkill's Plackett-Luce makes of these places, from the default rating
    order = sorted(totals, key=lambda n: -totals[n])
    places = {n: 1 + sum(totals[o] > totals[n] for o in totals) for n in totals}
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in order], ranks=[places[n] for n in order])
    for name, team in zip(order, expected, strict=True):
        assert changes[name]["place"] == places[name]
        assert changes[name]["after"] == round(team[0].mu - 3 * team[0].sigma, 1)
    board = client.get("/api/ranked/yams").json()
    assert board["ladder"] == []  # nobody has 10 rated games: all provisional, listed apart
    ladder = board["provisional"]
    assert [r["name"] for r in ladder] == sorted(totals, key=lambda n: -changes[n]["after"])
    assert all(r["games"] == 1 and r["provisional"] and r["rank"] is None for r in ladder)
    # ratings survive a restart
    app = create_app(client.app.state.settings)
    with TestClient(app) as again:
        assert again.get("/api/ranked/yams").json()["provisional"] == ladder
    mine = next(r for r in ladder if r["name"] == "Ann")
    page = ann.get("/me/stats").text  # on her profile: her rating, its games, provisional
    assert 'data-preset="yams"' in page and f"{mine['rating']:.1f}</strong>" in page and "1 rated game" in page


def test_pairs_rate_three_times_a_day_and_new_profiles_from_tomorrow(client, clock) -> None:
    ann, bram = person(client, "Ann"), person(client, "Bram")
    clock.now += timedelta(days=1)
    why = []
    for _ in range(4):
        made = seat_ranked_together(clock, {"ann": ann, "bram": bram})
        play_ranked({"ann": ann, "bram": bram}, made)
        why.append(
            {
                c["name"]: (c["rated"], c["why"])
                for c in client.get(f"/api/ranked/tables/{made['ann']['id']}").json()["changes"]
            }
        )
    assert why[:3] == [{"Ann": (True, None), "Bram": (True, None)}] * 3
    assert why[3] == {"Ann": (False, "pair"), "Bram": (False, "pair")}  # a fourth game together today
    cy = person(client, "Cy")  # made today
    made = seat_ranked_together(clock, {"ann": ann, "cy": cy})
    play_ranked({"ann": ann, "cy": cy}, made)
    rows = {
        c["name"]: (c["rated"], c["why"])
        for c in client.get(f"/api/ranked/tables/{made['ann']['id']}").json()["changes"]
    }
    assert rows == {"Ann": (False, "alone"), "Cy": (False, "new")}
    clock.now += timedelta(days=1)  # a new day: the pair rates again
    made = seat_ranked_together(clock, {"ann": ann, "bram": bram})
    play_ranked({"ann": ann, "bram": bram}, made)
    assert all(c["rated"] for c in client.get(f"/api/ranked/tables/{made['ann']['id']}").json()["changes"])
    board = client.get("/api/ranked/yams").json()["provisional"]
    assert {r["name"]: r["games"] for r in board} == {"Ann": 4, "Bram": 4}


def test_a_player_away_when_the_clock_runs_out_twice_has_left_and_is_placed_last(client, clock, monkeypatch) -> None:
    import yambak.server.ranked.fairplay as fairplay

    monkeypatch.setattr(fairplay, "thrown", lambda *_: False)  # Ann's quick play is not on trial here
    ann, bram = person(client, "Ann"), person(client, "Bram")
    clock.now += timedelta(days=1)
    made = {"ann": seat_ranked(ann), "bram": seat_ranked(bram)}
    manager = client.app.state.manager
    table = manager.get(made["ann"]["id"])
    with ann.websocket_connect(f"/ws/{made['ann']['id']}") as s:  # Bram never comes: Ann plays, a stand-in for him
        ws = CheckedWS(s)
        _, out = ws.hello(list(made["ann"]["tokens"].values()))
        view, v = out["view"], out["v"]
        while not view["finished"]:
            if view["current"] == 1:
                table.turn_started[1] = manager.turn_clock.now() - 10_000  # his turn's clock ran out long ago
                client.portal.call(manager.tick)
                while table.state.current == 1 and not table.state.finished:
                    time.sleep(0.02)
                v = table.version
                while (msg := ws.recv()).get("v") != v:  # the stand-in's events reach Ann's socket
                    pass
                view = msg["view"]
                continue
            rolled = ws.act(type="roll", seat=0, v=v)
            scored = ws.act(type="score", seat=0, v=rolled["v"], box=legal(rolled["view"]["players"][0]["turn"])[0])
            assert scored["type"] == "event", scored
            view, v = scored["view"], scored["v"]
    changes = {c["name"]: c for c in client.get(f"/api/ranked/tables/{table.id}").json()["changes"]}
    totals = {p["name"]: p["total"] for p in view["players"]}
    assert changes["Bram"]["left"] and changes["Bram"]["place"] == 2 and changes["Ann"]["place"] == 1
    assert totals["Bram"] > totals["Ann"]  # the stand-in outscored Ann: leaving still placed him last
    assert changes["Ann"]["after"] > changes["Bram"]["after"]


def test_two_games_of_one_profile_ending_at_once_on_two_servers_both_count(client, clock, monkeypatch) -> None:
    """Ann, rated already, ends a ranked game on each of two servers over one database at the same moment:
    her rating row is locked by the first transaction and read by the second once the first is done (both
    games count, one after the other)."""
    ann, bram, cy, dee = (person(client, n) for n in ("Ann", "Bram", "Cy", "Dee"))
    clock.now += timedelta(days=1)
    first = {
        "ann": seat_ranked(ann),
        "dee": seat_ranked(dee),
    }  # Ann has a rating already: the rows exist, both games lock it
    play_ranked({"ann": ann, "dee": dee}, first)
    ann_id = ann.get("/api/me").json()["profile"]["id"]
    (start,) = client.app.state.store.ratings_of([ann_id], "yams")
    other = create_app(client.app.state.settings)  # a second server process on the same database
    with TestClient(other, base_url="http://127.0.0.1") as second:
        there = {  # each from an address of their own (profiles sharing one never rate each other)
            n: TestClient(other, base_url="http://127.0.0.1", cookies=c.cookies, client=(f"10.9.0.{i}", 50000))
            for i, (n, c) in enumerate((("ann", ann), ("cy", cy)))
        }
        one = {"ann": seat_ranked(ann), "bram": seat_ranked(bram)}
        two = {"ann": seat_ranked(there["ann"]), "cy": seat_ranked(there["cy"])}
        assert one["ann"]["id"] != two["ann"]["id"]
        finals = [
            play_ranked({"ann": ann, "bram": bram}, one, until_last=True),
            play_ranked(there, two, until_last=True),
        ]
        # hold the locks a while: the other game's transaction must wait
        answers = finish_at_once(finals, monkeypatch, "lock_ratings")
        assert [a["type"] for a in answers] == ["event", "event"], answers
        assert second.get("/api/me").status_code == 200
    ladder = {r["name"]: r["games"] for r in client.get("/api/ranked/yams").json()["provisional"]}
    assert ladder == {"Ann": 3, "Bram": 1, "Cy": 1, "Dee": 1}
    (mine,) = client.app.state.store.ratings_of([ann_id], "yams")
    assert mine.games == 3
    # her rating is both games' in turn (whichever came first), not one game's from where both began
    model = PlackettLuce()
    places = [
        [c["place"] for c in client.get(f"/api/ranked/tables/{g['ann']['id']}").json()["changes"]] for g in (one, two)
    ]  # Ann sits at seat 0 of both

    def after(start, ranks):
        (a,), _ = model.rate([[start], [model.rating()]], ranks=ranks)
        return a

    begun = model.rating(mu=start.mu, sigma=start.sigma)
    both = [after(after(begun, places[i]), places[1 - i]) for i in (0, 1)]
    assert any(abs(mine.mu - b.mu) < 1e-6 and abs(mine.sigma - b.sigma) < 1e-6 for b in both), (mine, both)


def test_a_pair_ending_two_games_at_once_on_two_servers_rates_within_its_daily_limit(
    client, clock, monkeypatch
) -> None:
    """Ann and Bram, with one rated game left for the pair today, end two games at the same moment on two
    servers over one database: the second transaction counts the pair's games after the first has
    stored its own (their profiles are locked first), so exactly one of the two is rated."""
    import yambak.server.ranked.manager as ranked_manager

    monkeypatch.setattr(ranked_manager, "PAIR_LIMIT", 1)
    ann, bram = person(client, "Ann"), person(client, "Bram")
    clock.now += timedelta(days=1)
    other = create_app(client.app.state.settings)  # a second server process on the same database
    with TestClient(other, base_url="http://127.0.0.1") as second:
        there = {
            n: TestClient(other, base_url="http://127.0.0.1", cookies=c.cookies, client=(f"10.9.0.{i}", 50000))
            for i, (n, c) in enumerate((("ann", ann), ("bram", bram)))
        }
        one = {"ann": seat_ranked(ann), "bram": seat_ranked(bram)}
        two = {"ann": seat_ranked(there["ann"]), "bram": seat_ranked(there["bram"])}
        assert one["ann"]["id"] != two["ann"]["id"]
        finals = [
            play_ranked({"ann": ann, "bram": bram}, one, until_last=True),
            play_ranked(there, two, until_last=True),
        ]
        # both counts would read 0 if nothing held the second one back
        answers = finish_at_once(finals, monkeypatch, "rated_together")
        assert [a["type"] for a in answers] == ["event", "event"], answers
        assert second.get("/api/me").status_code == 200
    why = sorted(
        tuple(
            sorted(
                (c["name"], c["rated"], c["why"])
                for c in client.get(f"/api/ranked/tables/{g['ann']['id']}").json()["changes"]
            )
        )
        for g in (one, two)
    )
    assert why == [(("Ann", False, "pair"), ("Bram", False, "pair")), (("Ann", True, None), ("Bram", True, None))]
    board = client.get("/api/ranked/yams").json()["provisional"]
    assert {r["name"]: r["games"] for r in board} == {"Ann": 1, "Bram": 1}


def finish_at_once(finals: list[dict], monkeypatch: pytest.MonkeyPatch, slowed: str) -> list[dict]:
    """Both games' last actions at the same moment, each from a thread of its own, with `Store.<slowed>`
    taking 0.4 s longer (so the two transactions overlap there); the answers."""
    step = getattr(Store, slowed)

    def slow(*args, **kwargs):
        out = step(*args, **kwargs)
        time.sleep(0.4)
        return out

    monkeypatch.setattr(Store, slowed, staticmethod(slow))
    answers: list[dict] = []
    go = threading.Barrier(len(finals))

    def finish(f: dict) -> None:
        go.wait()
        answers.append(f["ws"].act(v=f["v"], **f["act"]))

    threads = [threading.Thread(target=finish, args=(f,)) for f in finals]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for f in finals:
        for s in f["socks"].values():
            s.__exit__(None, None, None)
    return answers


def test_alternate_profiles_who_throw_their_games_lift_nobody(client, clock) -> None:
    """The ladder farmed with alternate profiles (issue 33): two day-old alts fill the box that writes least every turn
    against the farmer. Once graded, those games are thrown (the alts lost more a decision than the easy
    bot's median game): the farmer's wins count for nothing (the alts' losses stand), the farmer's honest
    game after them is rated from where the farmer stood before them, and the honest players (medium-bot
    play) are never caught."""
    from yambak.server.ranked.fairplay import thresholds

    names = ("Farmer", "Alt1", "Alt2", "Ann")
    people = {n: person(client, n) for n in names}
    ids = {n: c.get("/api/me").json()["profile"]["id"] for n, c in people.items()}
    clock.now += timedelta(days=1)
    tables = []
    for alt, opponent in (("Alt1", "Farmer"), ("Alt2", "Farmer"), ("Ann", "Farmer")):
        pair = {opponent: people[opponent], alt: people[alt]}
        made = seat_ranked_together(clock, pair)  # ratings apart by more than the window: seated after a wait
        view = play_ranked(pair, made, thrown=(alt,) if alt != "Ann" else ())
        tables.append((made[opponent]["id"], {p["name"]: p["total"] for p in view["players"]}))
    assert client.app.state.profiles.grader.wait(120)

    store, line = client.app.state.store, thresholds()["yams"]
    for table_id, _ in tables:
        for c in client.get(f"/api/ranked/tables/{table_id}").json()["changes"]:
            accuracy = store.result_for(ids[c["name"]], table_id).accuracy
            assert (accuracy >= line) == c["name"].startswith("Alt"), (c["name"], accuracy, line)
    # what OpenSkill makes of a game of two players from the default rating, by their totals
    model = PlackettLuce()

    def first_game(totals: dict[str, int]) -> dict[str, float]:
        order = sorted(totals, key=lambda n: -totals[n])
        ranks = [1 + sum(totals[o] > totals[n] for o in totals) for n in order]
        rated = model.rate([[model.rating()] for _ in order], ranks=ranks)
        return {n: t[0].mu - 3 * t[0].sigma for n, t in zip(order, rated, strict=True)}

    for table_id, totals in tables[:2]:  # thrown: the farmer's rise taken back, the alt's fall stands
        alt = next(n for n in totals if n != "Farmer")
        assert totals["Farmer"] > totals[alt]
        changes = {c["name"]: c for c in client.get(f"/api/ranked/tables/{table_id}").json()["changes"]}
        assert (changes["Farmer"]["rated"], changes["Farmer"]["why"], changes["Farmer"]["after"]) == (
            False, "review", None,
        )  # fmt: skip
        assert (changes[alt]["rated"], changes[alt]["before"]) == (True, 0.0)
        assert changes[alt]["after"] == pytest.approx(first_game(totals)[alt], abs=0.05) and changes[alt]["after"] < 0
    # the honest game, independently: both players from the default rating, by their places
    expected = first_game(tables[2][1])
    board = client.get("/api/ranked/yams").json()  # one rated game each: all provisional
    ladder = {r["name"]: (r["rating"], r["games"]) for r in board["ladder"] + board["provisional"]}
    assert {n: ladder[n] for n in ("Farmer", "Ann")} == {
        n: (pytest.approx(v, abs=0.05), 1) for n, v in expected.items()
    }
    assert ladder["Alt1"][1] == ladder["Alt2"][1] == 1
    changes = {c["name"]: c for c in client.get(f"/api/ranked/tables/{tables[2][0]}").json()["changes"]}
    assert all(c["rated"] and c["before"] == 0.0 for c in changes.values())
    assert {n: c["after"] for n, c in changes.items()} == {n: ladder[n][0] for n in changes}
