"""An open deal's games are their players' own until the deal closes (SQLite and PostgreSQL).

Duplicate dice do not depend on holds: one finished game of a deal shows the dice everyone else still
has to play. Every route of the app that takes a table, result or profile id is walked here as a
cheater would try it (no cookie at all, another profile, a player of the same deal with his own seat
token, a spectator's socket) against a finished game and the par's game of today's deal and a finished
game of an open club round; a route this
test does not know fails it; the aggregate of graded decisions counts none of them. Once the deal closes,
the same routes serve everything, as any table's."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings

from .deal_helpers import person, play, routes
from .helpers import WS, browser

# What each route with a game's id does for someone who is not its player while the deal is open.
COVERED = {
    ("/api/tables/{table_id}", "GET"): "sealed",
    ("/api/tables/{table_id}/review", "GET"): "sealed",
    ("/api/tables/{table_id}/frames/{n}", "GET"): "sealed",
    ("/api/tables/{table_id}/record", "GET"): "sealed",
    ("/api/tables/{table_id}/join", "POST"): "refused",
    ("/api/tables/{table_id}/rematch", "POST"): "refused",
    ("/t/{table_id}", "GET"): "sealed",
    ("/t/{table_id}/review", "GET"): "sealed",
    ("/t/{table_id}/record.json", "GET"): "sealed",
    ("/t/{table_id}/join", "POST"): "refused",
    ("/t/{table_id}/rematch", "POST"): "refused",
    ("/t/{table_id}/rules", "GET"): "no-dice",  # how to play the table's rules
    ("/t/{table_id}/qr.svg", "GET"): "no-dice",  # the invite link as a picture
    ("/ws/{table_id}", "WS"): "socket",
    ("/api/me/tables/{table_id}", "GET"): "refused",  # the asking profile's own result only
    ("/api/results/{result_id}/frames/{n}", "GET"): "sealed",
    ("/api/results/{result_id}/review", "GET"): "sealed",
    ("/api/results/{result_id}/record", "GET"): "sealed",
    ("/replay/{result_id}", "GET"): "sealed",
    ("/api/ranked/tables/{table_id}", "GET"): "refused",  # a ranked game's ratings: a deal's is none
    ("/api/ranked/tables/{table_id}/join", "POST"): "refused",
    ("/ranked/join/{table_id}", "POST"): "refused",
    ("/p/{profile_id}", "GET"): "listing",  # a shared profile's games: without the open deal's
    ("/p/{profile_id}/stats", "GET"): "listing",
}
IDS = ("{table_id}", "{result_id}", "{profile_id}")


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def _call(c: TestClient, path: str, method: str) -> Any:
    if method == "GET":
        return c.get(path, follow_redirects=False)
    if path.startswith("/api/"):
        return c.post(path, json={"name": "Mallory"})
    return c.post(path, data={"name": "Mallory"}, follow_redirects=False)


def _hello(c: TestClient, table: str, tokens: list[str]) -> dict:
    with c.websocket_connect(f"/ws/{table}") as s:
        ws = WS(s)
        ws.send({"type": "hello", "tokens": tokens})
        return ws.recv()


def test_every_route_keeps_an_open_deals_games_to_their_players(client, clock) -> None:
    ann, bram, cy = person(client, "Ann"), person(client, "Bram"), person(client, "Cy")
    clock.now += timedelta(days=1)  # their profiles are a day old: ranked
    assert ann.patch("/api/me", json={"shared": True}).json()["profile"]["shared"]  # Ann shares her games
    ann_made = ann.post("/api/daily/yams/play", json={}).json()
    play(ann, ann_made)
    bram_made = bram.post("/api/daily/yams/play", json={}).json()
    play(bram, bram_made, turns=3)  # Bram is still playing the same dice
    # a club round too: Ann organises, both join, Ann finishes round 1, Bram is still playing it
    club = ann.post("/api/clubs", json={"name": "Club", "preset": "yams", "rounds": 1, "window": 60}).json()
    code = club["invite"].split("invite=")[1]
    for c in (ann, bram):
        assert c.post(f"/api/clubs/{club['id']}/join", json={"invite": code}).json()["status"] == "player"
    ann_round = ann.post(f"/api/clubs/{club['id']}/rounds/1/play").json()
    play(ann, ann_round)
    bram_round = bram.post(f"/api/clubs/{club['id']}/rounds/1/play").json()
    play(bram, bram_round, turns=3)
    games = {g["ref"]: g["id"] for g in ann.get("/api/me/games").json()["games"]}
    result, round_result = games[ann_made["id"]], games[ann_round["id"]]
    ann_id = ann.get("/api/me").json()["profile"]["id"]
    par = client.app.state.deals.daily(clock.now.date(), "yams").par_table
    # (table, its result if Ann has one, the seat tokens of another player of the same deal)
    cases = [
        (ann_made["id"], result, bram_made["tokens"]),
        (par, result, bram_made["tokens"]),
        (ann_round["id"], round_result, bram_round["tokens"]),
    ]
    anonymous = browser(client)

    # every route with a game's id is known here: a new one must say what it does for an open deal
    walked = {(p, m) for p, ms in routes(client.app) for m in ms if any(k in p for k in IDS)}
    assert walked == set(COVERED), walked ^ set(COVERED)

    def url(path: str, table: str, result: str = result) -> str:
        return (
            path.replace("{table_id}", table)
            .replace("{result_id}", result)
            .replace("{n}", "1")
            .replace("{profile_id}", ann_id)
        )

    for (path, method), kind in COVERED.items():
        for who, c in (("anonymous", anonymous), ("another profile", cy), ("a player of the deal", bram)):
            for table, its_result, tokens in cases:
                if kind == "socket":
                    answer = _hello(c, table, list(tokens.values()) if c is bram else [])
                    assert answer["type"] == "error" and answer["code"] == "deal/sealed", (who, answer)
                    continue
                r = _call(c, url(path, table, its_result), method)
                where = (path, method, who, table)
                assert '"rolls"' not in r.text and "rolls" not in r.headers.get("location", ""), where
                if kind == "sealed":
                    assert r.status_code in (403, 404), (where, r.status_code)
                elif kind == "refused":
                    assert 400 <= r.status_code < 500, (where, r.status_code)
                elif kind == "no-dice":
                    assert r.status_code == 200, where
                elif kind == "listing":
                    assert r.status_code == 200 and its_result not in r.text and table not in r.text, where
    # the boards name no one's table, and not the par's, while the deal is open
    for c in (anonymous, bram):
        board = c.get(f"/api/daily/{clock.now.date().isoformat()}/yams").text
        assert ann_made["id"] not in board and par not in board
        standings = c.get(f"/api/clubs/{club['id']}").text
        assert ann_round["id"] not in standings and round_result not in standings

    # where players lose points: nothing of the open deals counts, for anyone (graded, the rows are stored)
    assert client.app.state.profiles.grader.wait()
    store = client.app.state.store
    deal = client.app.state.deals.daily(clock.now.date(), "yams").id
    assert {d["deal_id"] for d in store.graded_decisions(store.result_by_public_id(result).id)} == {deal}
    for c in (anonymous, ann, bram):
        assert c.get("/api/strategy/yams/losses").json()["games"] == 0
    assert store.decision_losses("yams", clock.now, min_games=1).kinds == ()

    # the player herself sees all of it
    assert ann.get(f"/t/{ann_made['id']}/record.json").json()["turns"]
    assert ann.get(f"/api/results/{result}/frames/1").json()["turn"]["rolls"]
    assert ann.get(f"/replay/{result}").status_code == 200 and ann.get(f"/t/{ann_made['id']}/review").status_code == 200
    assert result in ann.get("/me").text

    # the deal and the round close: everything is public, as any table's
    clock.now += timedelta(days=1)
    for path, method in COVERED:
        if COVERED[(path, method)] == "sealed":
            for table, its_result, _ in cases:
                if "{result_id}" not in path or table != par:
                    r = anonymous.get(url(path, table, its_result))
                    assert r.status_code == 200, (path, table, r.status_code, r.text[:200])
    assert result in anonymous.get(f"/p/{ann_id}").text
    assert anonymous.get("/api/strategy/yams/losses").json()["games"] == 2  # Ann's deal and round, closed
    assert store.decision_losses("yams", clock.now, min_games=1).kinds != ()
    welcome = _hello(anonymous, bram_made["id"], [])  # an unfinished game of a closed deal can be watched
    assert welcome["type"] == "welcome" and welcome["seats"] == []
