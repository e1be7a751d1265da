"""A deleted profile's name leaves everything (SQLite and PostgreSQL): every string and JSON column of
every table, read from the models' metadata, holds neither the name nor the profile id afterwards, while
the places it had on closed boards stay, with every matchpoint as it was. Tables made in one click store
no name: their pages say whose table it is from the seat's name of now."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import JSON, String, Text, select

from yambak.server import Settings
from yambak.store.models import Base, GradedDecision, Result

from .deal_helpers import ORIGIN, person, play, play_ranked, seat_ranked
from .profile_helpers import play_out

NAME = "Hugoberta"


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def scan(store, needles: list[str]) -> set[str]:
    """`table.column` of every string, text or JSON value in the database that contains a needle (any case)."""
    found = set()
    with store.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            columns = [c for c in table.columns if isinstance(c.type, (String, Text, JSON))]
            for row in conn.execute(select(*columns)):
                for column, value in zip(columns, row, strict=True):
                    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                    if any(n.casefold() in text.casefold() for n in needles):
                        found.add(f"{table.name}.{column.name}")
    return found


def _kept(names: list[str]) -> dict:
    """A finished one-column sheet of real dice, typed (every player takes the first box offered)."""
    from yambak.engine import ManualDice, Roll, Score, new_game, state_to_record
    from yambak.rules import load_ruleset

    state = new_game(load_ruleset("yams"), names, dice=ManualDice())
    while not state.finished:
        p = state.current
        state, _ = state.apply(Roll(p, dice=(6, 6, 6, 5, 5)))
        state, _ = state.apply(Score(p, next(b.box for b in state.outlook(p).boxes if b.legal)))
    return state_to_record(state).to_dict()


def test_a_deleted_name_leaves_everything_and_closed_places_stay(client, clock) -> None:
    hugo, ann = person(client, NAME), person(client, "Ann")
    hugo_id = hugo.get("/api/me").json()["profile"]["id"]
    hugo.patch("/api/me", json={"shared": True}, headers=ORIGIN)
    clock.now += timedelta(days=1)
    # a table made in one click (no name stored), and one named the old way, listed, with Ann at it
    solo = hugo.post("/api/tables", json={"preset": "yams", "seats": [{"name": NAME}], "listed": False}).json()
    play_out(hugo, solo["id"], [solo["tokens"]["0"]])
    assert client.app.state.store.get_session(solo["id"]).name == ""
    assert f"{NAME}&#39;s table" in hugo.get(f"/t/{solo['id']}").text  # the page says whose table it is
    named = hugo.post(
        "/api/tables", json={"name": f"{NAME}'s table", "preset": "yams", "seats": [{"name": NAME}, {"kind": "open"}]}
    ).json()
    ann.post(f"/api/tables/{named['id']}/join", json={"name": "Ann"})
    # the day's deal, a club he organises, a sheet of real dice they kept together
    made = {n: c.post("/api/daily/yams/play", json={}).json() for n, c in (("hugo", hugo), ("ann", ann))}
    play(hugo, made["hugo"])
    play(ann, made["ann"], last=True)
    club = hugo.post("/api/clubs", json={"name": f"{NAME}'s club", "preset": "yams", "rounds": 2, "window": 60}).json()
    ann.post(f"/api/clubs/{club['id']}/join", json={"invite": club["invite"].split("invite=")[1]})
    for c, last in ((hugo, False), (ann, True)):
        play(c, c.post(f"/api/clubs/{club['id']}/rounds/1/play").json(), last=last)
    sheet = ann.post("/api/keep", json={"name": f"Ann and {NAME}", "preset": "yams", "players": ["Ann", NAME]}).json()
    record = _kept(["Ann", NAME])
    for c, seat in ((ann, 0), (hugo, 1)):
        assert c.post("/api/me/kept", json={"sheet": sheet["id"], "record": record, "seat": seat}).status_code == 200
    family = ann.post("/api/keep/groups", json={"name": f"{NAME}'s family"}).json()  # a group the sheet is filed in
    filed = {"sheet": sheet["id"], "token": sheet["token"]}
    assert (
        ann.post(
            f"/api/keep/groups/{family['id']}/sheets",
            json=filed,
            headers={"authorization": f"Bearer {family['token']}"},
        ).status_code
        == 200
    )
    ranked = {"hugo": seat_ranked(hugo), "ann": seat_ranked(ann)}  # a ranked game: ratings, their changes
    play_ranked({"hugo": hugo, "ann": ann}, ranked)
    clock.now += timedelta(days=1)  # the deal and round 1 have closed
    store = client.app.state.store
    assert client.app.state.profiles.grader.wait()  # his games' decisions graded and stored
    before = scan(store, [NAME, hugo_id])
    where = {"profiles.name", "seats.name", "game_tables.name", "game_tables.record", "tournaments.name",
             "results.record", "seats.profile_id", "deal_entries.profile_id",
             "ratings.profile_id", "rating_changes.profile_id", "graded_decisions.profile_id"}  # fmt: skip
    assert where <= before
    board = client.get("/api/daily/2026-03-03/yams").json()["rows"]
    standings = client.get(f"/api/clubs/{club['id']}").json()["standings"]

    with store.engine.connect() as conn:
        graded = conn.execute(select(GradedDecision.result_id).distinct()).scalars().all()
    assert hugo.delete("/api/me", headers=ORIGIN).status_code == 204
    assert scan(store, [NAME, hugo_id]) == set()
    with store.engine.connect() as conn:  # his decisions went, those of results a stand-in keeps too; Ann's stay
        kept = set(conn.execute(select(GradedDecision.result_id).distinct()).scalars())
        owners = set(conn.execute(select(Result.profile_id).where(Result.id.in_(kept))).scalars())
    assert kept and kept < set(graded) and owners == {ann.get("/api/me").json()["profile"]["id"]}
    # places on closed boards stay, every matchpoint as it was
    after = client.get("/api/daily/2026-03-03/yams").json()["rows"]
    assert [(r["rank"], r["score"], r["mp"]) for r in after] == [(r["rank"], r["score"], r["mp"]) for r in board]
    assert sorted(r["name"] for r in after) == ["A withdrawn player", "Ann"]
    later = client.get(f"/api/clubs/{club['id']}").json()
    assert [(s["mp"], s["max"]) for s in later["standings"]] == [(s["mp"], s["max"]) for s in standings]
    assert "A withdrawn player" in [s["name"] for s in later["standings"]]
    # pages name tables after who sits there now; nothing shows the name
    for page in (f"/t/{solo['id']}", f"/t/{named['id']}", "/", f"/c/{club['id']}", f"/p/{hugo_id}", "/daily"):
        assert NAME not in ann.get(page).text, page
    assert "Player 1&#39;s table" in ann.get(f"/t/{solo['id']}").text
    assert ann.get(f"/p/{hugo_id}").status_code == 404
    assert NAME not in json.dumps(ann.get("/api/me/games").json())
