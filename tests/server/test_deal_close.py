"""A deal's results freeze at its close (SQLite and PostgreSQL): a game left open across the close is
refused from then on, kept unfinished and counted nowhere, and the closed boards stay byte for byte what
they were; a deleted player's places stay, under one translated name, with every matchpoint as it was.
The same for a club tournament's round."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings
from yambak.server.live import RequestError

from .deal_helpers import ORIGIN, CheckedWS, person, play
from .helpers import browser

DAY = "2026-03-03"


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def _boards(c: TestClient) -> list[bytes]:
    """Everything that shows the day's results: the board, the week's and all time's, best solo, the page."""
    return [
        c.get(f"/api/daily/{DAY}/yams").content,
        c.get(f"/api/leaderboard/yams?period=week&day={DAY}").content,
        c.get("/api/leaderboard/yams?period=all").content,
        c.get("/api/leaderboard/yams?period=solo").content,
        c.get(f"/daily?preset=yams&day={DAY}").content,
    ]


def _roll_after_close(c: TestClient, made: dict) -> dict:
    """The stale seat token after the close: the table says so, and refuses the roll."""
    with c.websocket_connect(f"/ws/{made['id']}") as s:
        ws = CheckedWS(s)
        _, out = ws.hello(list(made["tokens"].values()))
        assert out["view"]["deal"]["closed"] is True and not out["view"]["finished"]
        return ws.act(type="roll", seat=0, v=out["v"])


def test_a_closed_days_board_never_changes(client, clock) -> None:
    ann, bram, cy = person(client, "Ann"), person(client, "Bram"), person(client, "Cy")
    clock.now = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)  # a day old: ranked
    made = {n: c.post("/api/daily/yams/play", json={}).json() for n, c in (("ann", ann), ("bram", bram), ("cy", cy))}
    play(ann, made["ann"])
    play(cy, made["cy"], last=True)
    play(bram, made["bram"], turns=5)  # Bram leaves after five turns
    anonymous = browser(client)
    assert anonymous.get(f"/api/daily/{DAY}/yams").json()["playing"] == 1

    clock.now = datetime(2026, 3, 4, 0, 0, 1, tzinfo=UTC)  # the deal closed a second ago; its seed is public
    before = _boards(anonymous)
    board = anonymous.get(f"/api/daily/{DAY}/yams").json()
    assert (board["playing"], board["unfinished"], len(board["rows"])) == (0, 1, 2)
    refused = _roll_after_close(bram, made["bram"])
    assert refused["type"] == "error" and refused["code"] == "deal/closed", refused
    assert _boards(anonymous) == before  # byte for byte
    assert bram.get("/api/me/games").json()["total"] == 0  # his game is kept unfinished, counted nowhere
    assert "Unfinished at the close: 1" in anonymous.get(f"/daily?preset=yams&day={DAY}").text

    # Ann deletes her profile: her places stay, nameless; nobody's matchpoints move
    rows = [(r["rank"], r["name"], r["score"], r["mp"]) for r in board["rows"]]
    week = [
        (r["rank"], r["name"], r["mp"])
        for r in anonymous.get("/api/leaderboard/yams?period=week&day=" + DAY).json()["rows"]
    ]
    assert ann.delete("/api/me", headers=ORIGIN).status_code == 204

    def renamed(xs: list[tuple]) -> list[tuple]:
        return [tuple("A withdrawn player" if v == "Ann" else v for v in x) for x in xs]

    after = anonymous.get(f"/api/daily/{DAY}/yams").json()
    assert [(r["rank"], r["name"], r["score"], r["mp"]) for r in after["rows"]] == renamed(rows)
    week_after = anonymous.get("/api/leaderboard/yams?period=week&day=" + DAY).json()["rows"]
    assert [(r["rank"], r["name"], r["mp"]) for r in week_after] == renamed(week)
    solo = anonymous.get("/api/leaderboard/yams?period=solo").json()["rows"]
    assert "Ann" not in str(solo) and "A withdrawn player" in [r["name"] for r in solo]
    assert "Un joueur retiré" in anonymous.get(f"/api/daily/{DAY}/yams?lang=fr").text  # in the reader's language


def test_the_fence_checks_again_in_the_transaction_that_stores_the_action(client, clock) -> None:
    """A roll accepted just before the close but committed after it is not stored: the deal is read in
    the action's own transaction, with the server's clock then."""
    ann = person(client, "Ann")
    made = ann.post("/api/daily/yams/play", json={}).json()
    manager, deals = client.app.state.manager, client.app.state.deals
    fence = deals.admit(manager.get(made["id"]))
    assert fence is not None and deals.admit(manager.get(deals.daily(clock.now.date(), "yams").par_table)) is not None
    deals.store._sync(fence)  # still open: passes
    clock.now = datetime(2026, 3, 3, 0, 0, tzinfo=UTC)  # the close comes before the commit
    with pytest.raises(RequestError) as refused:
        deals.store._sync(fence)
    assert refused.value.code == "deal/closed"


def test_a_club_round_finished_after_its_close_changes_nothing(client, clock) -> None:
    ann, bram = person(client, "Ann"), person(client, "Bram")
    club = ann.post("/api/clubs", json={"name": "Club night", "preset": "yatzy", "rounds": 2, "window": 15}).json()
    bram.post(f"/api/clubs/{club['id']}/join", json={"invite": club["invite"].split("invite=")[1]})
    made = {n: c.post(f"/api/clubs/{club['id']}/rounds/1/play").json() for n, c in (("ann", ann), ("bram", bram))}
    play(ann, made["ann"])
    play(bram, made["bram"], turns=3)
    clock.now += timedelta(minutes=15)  # round 1 closes, round 2 opens
    standings = client.get(f"/api/clubs/{club['id']}").content
    refused = _roll_after_close(bram, made["bram"])
    assert refused["code"] == "deal/closed"
    assert client.get(f"/api/clubs/{club['id']}").content == standings
    data = client.get(f"/api/clubs/{club['id']}").json()
    assert data["rounds"][0]["unfinished"] == 1 and [s["name"] for s in data["standings"]] == ["Ann"]
    assert bram.post(f"/api/clubs/{club['id']}/rounds/1/play").json()["code"] == "deal/closed"
