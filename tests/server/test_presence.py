"""People come and go: who is here, the stand-in for a player who left, and the host's open seats.

The stand-in waits `Settings.away_turn` (here 1 s) for an away player whose turn it is, or plays at once
for one who left during their turn, and `Settings.away_missed` (here 0.2 s) once it played a whole turn
for them; a seat shows as away `presence.AWAY_AFTER` after its last socket closed (here 0.3 s). Across
processes: tests/server/test_cluster.py.
"""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from yambak.engine import GameRecord, replay
from yambak.server import Settings, create_app
from yambak.server.tables import presence
from yambak.server.tables.schema import server_message

from .helpers import WS, create, legal


@pytest.fixture
def settings(tmp_path, monkeypatch) -> Settings:
    monkeypatch.setattr(presence, "AWAY_AFTER", 0.3)
    return Settings(
        database_url=f"sqlite:///{tmp_path}/test.db", bot_delay=0.0, warm_strategies=False, undo_grace=0.0,
        away_turn=1.0, away_missed=0.2,
    )  # fmt: skip


OPEN: list[Seat] = []


@pytest.fixture(autouse=True)
def _close_sockets(client):  # noqa: ARG001  (after the app starts, so before it stops)
    """Every socket closes, also after a failed assertion (an open one would hold the app's shutdown)."""
    yield
    while OPEN:
        OPEN.pop().close()


class Seat:
    """One device's socket; every message held to the protocol's models."""

    def __init__(self, client: TestClient, made: dict, *seats: str) -> None:
        self.cm = client.websocket_connect(f"/ws/{made['id']}")
        self.ws = WS(self.cm.__enter__())
        self.open = True
        OPEN.append(self)
        _, out = self.ws.hello([made["tokens"][seat] for seat in seats])
        self.view, self.v = out["view"], out["v"]

    def recv(self) -> dict:
        msg = self.ws.recv()
        server_message.validate_python(msg)
        if "view" in msg:
            self.view, self.v = msg["view"], msg["v"]
        return msg

    def until(self, test, what: str) -> dict:
        for _ in range(200):
            msg = self.recv()
            if test(msg):
                return msg
        raise AssertionError(f"never: {what}")

    def act(self, **msg) -> dict:
        """An action on the version seen; its event (past others' events and states), or its refusal."""
        self.ws.send({**msg, "v": self.v})
        mine = lambda m: m["type"] == "error" or m["type"] == "event" and m["event"]["player"] == msg["seat"]  # noqa: E731
        return self.until(mine, f"an answer to {msg['type']}")

    def turn(self, seat: int) -> None:
        rolled = self.act(type="roll", seat=seat)
        assert rolled["type"] == "event", rolled
        scored = self.act(type="score", seat=seat, box=legal(rolled["view"]["players"][seat]["turn"])[0])
        assert scored["type"] == "event", scored

    def close(self) -> None:
        if self.open:
            self.open = False
            self.cm.__exit__(None, None, None)


def _invite(client: TestClient) -> dict:
    """A quick invite: Ann's table, an open seat, the friend's link taken by Bram (no clock)."""
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}], listed=False)
    joined = client.post(f"/api/tables/{made['id']}/join", json={"name": "Bram"}).json()
    client.cookies.clear()
    return {**made, "tokens": {**made["tokens"], "1": joined["token"]}}


def test_a_friend_who_leaves_is_shown_away_played_for_and_told_on_return(client):
    made = _invite(client)
    assert client.get(f"/api/tables/{made['id']}").json()["settings"]["clock"] is None
    ann, bram = Seat(client, made, "0"), Seat(client, made, "1")
    assert ann.until(lambda m: m["type"] == "state" and m["view"]["online"] == [0, 1], "Bram here")
    ann.turn(0)
    bram.until(lambda m: m.get("v") == ann.v, "Ann's entry")
    bram.close()  # during his turn
    left = time.monotonic()
    away = ann.until(lambda m: m["view"]["online"] == [0], "Bram away")
    assert 0.25 < time.monotonic() - left < 3
    assert away["type"] == "state" and away["view"]["stand_in"] == {"1": 0.0}  # he left during his turn: at once
    scored = ann.until(lambda m: m["type"] == "event" and m["event"]["type"] == "scored", "the stand-in's entry")
    assert scored["event"]["player"] == 1 and scored["event"]["absent"] is True
    entry = {"box": scored["event"]["box"], "written": scored["event"]["written"]}
    assert scored["view"]["played_for"] == {"1": [entry]} and scored["view"]["current"] == 0
    # Bram comes back: his page says what was played for him, until he plays himself
    bram = Seat(client, made, "1")
    assert bram.view["played_for"] == {"1": [entry]} and bram.view["online"] == [0, 1]
    ann.turn(0)
    bram.until(lambda m: m.get("v") == ann.v, "Ann's entry")
    bram.turn(1)
    assert bram.view["played_for"] == {}
    assert client.app.state.manager.get(made["id"]).seats[1].assisted  # his score does not count as his own
    ann.close()
    bram.close()


def test_an_away_players_turn_waits_for_them_then_the_stand_in_plays_it(client):
    made = _invite(client)
    ann = Seat(client, made, "0")  # Bram never opened the page
    assert ann.view["online"] == [0]
    ann.turn(0)
    assert ann.view["stand_in"]["1"] == pytest.approx(1.0, abs=0.3)  # the turn waits for him, then the bot
    started = time.monotonic()
    scored = ann.until(lambda m: m["type"] == "event" and m["event"]["type"] == "scored", "the stand-in's entry")
    assert scored["event"]["player"] == 1 and time.monotonic() - started > 0.7
    ann.close()


def test_once_an_away_player_missed_a_whole_turn_their_next_ones_wait_less(client):
    """The others wait `away_turn` for an away player's first turn, then `away_missed` for each of the next
    (issue 34: every turn of an absent player cost the others about 18 s); back, the player is waited for as
    before once they played themselves."""
    made = _invite(client)
    ann = Seat(client, made, "0")  # Bram never opened the page
    ann.turn(0)
    started = time.monotonic()
    first = ann.until(lambda m: m["type"] == "event" and m["event"]["type"] == "scored", "the stand-in's first entry")
    assert first["event"]["player"] == 1 and time.monotonic() - started > 0.7
    ann.turn(0)
    assert ann.view["stand_in"]["1"] == pytest.approx(0.2, abs=0.15)  # he missed a whole turn: 0.2 s, not 1 s
    started = time.monotonic()
    ann.until(lambda m: m["type"] == "event" and m["event"]["player"] == 1, "the stand-in's first move")
    assert 0.1 < time.monotonic() - started < 0.7
    second = ann.until(lambda m: m["type"] == "event" and m["event"]["type"] == "scored", "the stand-in's second")
    assert second["event"]["player"] == 1 and second["event"]["absent"] is True
    assert len(second["view"]["played_for"]["1"]) == 2
    # the boxes the stand-in filled are marked on everybody's sheet, and kept in the record
    marked = sorted([first["view"]["players"][1]["last_box"], second["view"]["players"][1]["last_box"]])
    assert second["view"]["players"][1]["stand_in"] == marked and second["view"]["players"][0]["stand_in"] == []
    bram = Seat(client, made, "1")  # back: he plays his own turn, and is waited for in full again
    ann.turn(0)
    bram.until(lambda m: m.get("v") == ann.v, "Ann's entry")
    bram.turn(1)
    bram.close()
    table = client.app.state.manager.get(made["id"])
    ann.until(lambda m: m["type"] == "state" and m["view"]["online"] == [0], "Bram away again")
    ann.turn(0)
    assert table.played_for == {} and ann.view["stand_in"]["1"] == pytest.approx(1.0, abs=0.3)
    assert ann.view["players"][1]["stand_in"] == marked  # his own entry is not marked
    record = client.get(f"/api/tables/{made['id']}/record").json()
    assert record["stand_in"] == [[1, box] for box in marked]
    assert replay(GameRecord.from_dict(record)).stand_in == {(1, box) for box in marked}
    ann.close()


def test_nobody_stands_in_where_nobody_else_is_here(client):
    manager = client.app.state.manager
    hot = create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}])  # pass and play: one device
    Seat(client, hot, "0", "1")
    table = manager.get(hot["id"])
    assert table.seen.online == (0, 1) and manager.stand_in.waits(table) == {}
    table.seen.online = ()  # the device has gone: nobody waits
    table.seen.gone = {0: 0.0, 1: 0.0}
    assert manager.stand_in.away_in(table, 0) is None
    solo = create(client, "yams", [{"name": "Ann"}, {"kind": "bot", "bot": "greedy"}])
    table = manager.get(solo["id"])
    assert manager.stand_in.away_in(table, 0) is None


def test_the_host_removes_an_open_seat_before_the_first_roll_then_gives_one_to_a_bot(client):
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}, {"kind": "open"}, {"name": "Cy"}], listed=False)
    ann, cy = Seat(client, made, "0"), Seat(client, made, "3")
    assert ann.view["seating"] == {"host": 0, "remove": True, "bot": True}
    ann.until(lambda m: m["type"] == "state" and m["view"]["online"] == [0, 3], "Cy here")
    refused = cy.ws.act(type="close_seat", seat=3, v=cy.v, target=1, bot=False)
    assert refused["code"] == "seat/not-host"
    out = ann.ws.act(type="close_seat", seat=0, v=ann.v, target=1, bot=False)
    assert out == {"type": "welcome", "v": out["v"], "seats": [0], "protocol": 1}
    state = ann.until(lambda m: m["type"] == "state", "the table without the seat")["view"]
    assert [p["name"] for p in state["players"]] == ["Ann", "Seat 3", "Cy"] and state["online"] == [0, 2]
    assert cy.until(lambda m: m["type"] == "welcome", "Cy's seat moved")["seats"] == [2]
    ann.turn(0)  # the game starts
    cy.until(lambda m: m.get("v") == ann.v, "Ann's entry")
    assert ann.view["seating"] == {"host": 0, "remove": False, "bot": True}
    refused = ann.ws.act(type="close_seat", seat=0, v=ann.v, target=1, bot=False)
    assert refused["code"] == "seat/started"
    ann.ws.send({"type": "close_seat", "seat": 0, "v": ann.v, "target": 1, "bot": True})
    played = ann.until(lambda m: m["type"] == "event" and m["event"]["type"] == "scored", "the bot's turn")
    assert played["event"]["player"] == 1 and played["view"]["players"][1]["kind"] == "bot"
    assert played["view"]["seating"] == {"host": 0, "remove": False, "bot": False}
    cy.until(lambda m: m.get("v") == played["v"], "the bot's entry")
    cy.turn(2)  # Cy acts as seat 2 now
    ann.close()
    cy.close()
    # stored: a new server on the same database has three seats, Cy's token at seat 2
    settings = client.app.state.settings
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as again:
        view = again.get(f"/api/tables/{made['id']}").json()
        assert [p["kind"] for p in view["players"]] == ["human", "bot", "human"] and view["v"] == cy.v
        back = Seat(again, made, "3")
        assert (
            back.view["players"][2]["name"] == "Cy" and back.act(type="roll", seat=2)["code"] == "illegal/not-your-turn"
        )
        back.close()


def test_reactions_reach_everybody_at_the_table_a_few_at_a_time(client):
    made = _invite(client)
    ann, bram = Seat(client, made, "0"), Seat(client, made, "1")
    ann.ws.send({"type": "react", "seat": 0, "reaction": "luck", "ref": 1})
    got = bram.until(lambda m: m["type"] == "reaction", "Ann's reaction")
    assert got == {"type": "reaction", "seat": 0, "reaction": "luck"}
    assert ann.until(lambda m: m["type"] == "reaction", "her own, shown to her too")["seat"] == 0
    for _ in range(2):
        bram.ws.send({"type": "react", "seat": 1, "reaction": "nice"})
    for _ in range(4):  # three at once, then one every two seconds
        bram.ws.send({"type": "react", "seat": 1, "reaction": "gg", "ref": "r"})
    refused = bram.until(lambda m: m["type"] == "error", "too fast")
    assert refused["code"] == "react/too-fast" and refused["ref"] == "r"
    ann.ws.send({"type": "react", "seat": 0, "reaction": "you lose"})  # no free text: a fixed set
    assert ann.until(lambda m: m["type"] == "error", "refused")["code"] == "protocol/malformed"
    ann.ws.send({"type": "react", "seat": 1, "reaction": "wow"})
    assert ann.until(lambda m: m["type"] == "error", "refused")["code"] == "auth/not-your-seat"
    assert client.app.state.manager.get(made["id"]).version == ann.v  # no move: the version stands
