"""A table's own settings: hints, the turn clock (a bot plays a turn whose clock ran out), undo
where everyone sits at one device, and idle tables leaving the lobby."""

from __future__ import annotations

from dataclasses import fields

import pytest

from yambak.server.tables.settings import TableSettings, choose

from .helpers import create, legal


@pytest.mark.parametrize(
    "kinds,listed,duplicate,asked,expected",
    [
        (["human", "bot"], True, False, {}, (True, None, True)),  # solo: hints, no clock, undo
        (["human", "human"], False, False, {}, (True, None, True)),  # pass and play
        (["human", "open"], True, False, {}, (True, 90, False)),  # strangers may join: a clock, no undo
        (["human", "open"], False, False, {}, (True, None, False)),  # friends by link: no clock
        (["human", "open"], True, True, {}, (False, 90, False)),  # duplicate: no hints by default
        (["human", "open"], False, False, {"hints": False, "clock": 30, "undo": True}, (False, 30, False)),
        (["human", "bot"], False, False, {"hints": False, "clock": 5}, (True, 15, True)),  # alone: hints stay
        (["human", "open"], True, False, {"clock": 0}, (True, None, False)),  # 0: no clock
    ],
)
def test_defaults_and_choices(kinds, listed, duplicate, asked, expected):
    s = choose(kinds, listed, duplicate, asked)
    assert (s.hints, s.clock, s.undo) == expected


def test_settings_are_stored_and_shown(client):
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}], hints=False, clock=45)
    view = client.get(f"/api/tables/{made['id']}").json()
    assert view["settings"] == {"hints": False, "clock": 45, "undo": False, "asynchronous": False}
    assert (
        client.post(
            "/api/tables", json={"name": "t", "preset": "yams", "seats": [{"name": "A"}], "clock": 9000}
        ).json()["code"]
        == "input/invalid"
    )


def test_undo_before_the_next_roll_at_a_pass_and_play_table(client, connect_table):
    made = create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}])
    ws = connect_table(made, ("0", "1"))
    out = ws.act(type="roll", seat=0, v=0)
    dice = out["event"]["dice"]
    box = legal(out["view"]["players"][0]["turn"])[0]
    out = ws.act(type="score", seat=0, v=1, box=box)
    assert out["view"]["can_undo"] == [0]
    out = ws.act(type="undo", seat=0, v=2)
    assert out["event"]["type"] == "undone" and out["view"]["current"] == 0
    turn = out["view"]["players"][0]["turn"]
    assert turn["dice"] == dice and turn["rolls_left"] == 2
    assert out["view"]["players"][0]["columns"]["free"]["boxes"][box.split(".")[1]]["score"] is None
    out = ws.act(type="score", seat=0, v=3, box="free.chance")
    ws.act(type="roll", seat=1, v=4)
    assert ws.act(type="undo", seat=0, v=5)["code"] == "illegal/no-undo"  # Bram has rolled


def test_no_undo_where_players_sit_at_other_devices(client, connect_table):
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}], undo=True)
    ws = connect_table(made, ("0",))
    out = ws.act(type="roll", seat=0, v=0)
    ws.act(type="score", seat=0, v=1, box=legal(out["view"]["players"][0]["turn"])[0])
    assert ws.act(type="undo", seat=0, v=2)["code"] == "table/no-undo"


def test_a_bot_plays_the_turn_of_a_player_whose_clock_ran_out(client, connect_table):
    made = create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}], clock=30)
    ws = connect_table(made, ("0",))
    manager = client.app.state.manager
    table = manager.get(made["id"])
    assert 29 < float(client.get(f"/api/tables/{made['id']}").json()["clocks"]["0"]) <= 30
    table.turn_started[0] = manager.turn_clock.now() - 31  # Ann is slow
    manager.loop.call_soon_threadsafe(manager.tick)
    seen = []
    while not seen or seen[-1]["event"]["type"] != "scored":
        seen.append(ws.recv())
    assert all(m["event"]["player"] == 0 for m in seen)  # the stand-in finished Ann's turn
    view = seen[-1]["view"]
    assert view["current"] == 1 and view["players"][0]["turns_done"] == 1 and 29 < view["clocks"]["1"] <= 30
    # Ann is back: her next turn is hers again (the clock starts afresh)
    assert manager.stand_in.due(table, 0) is False


def test_idle_tables_leave_the_lobby_but_stay_reachable(client):
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}])
    assert [t["id"] for t in client.get("/api/tables").json()["tables"]] == [made["id"]]
    client.app.state.manager.get(made["id"]).last_action -= 3600
    assert client.get("/api/tables").json()["tables"] == []
    assert client.get(f"/t/{made['id']}").status_code == 200


def test_idle_tables_leave_the_lobby_read_from_the_store(client):
    """With several processes the lobby is the store's: the last stored action says a table is idle."""
    from datetime import datetime

    from sqlalchemy import update

    from yambak.store.models import Event, GameSession

    manager = client.app.state.manager
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}])
    live = manager.sessions.pop(made["id"])  # owned elsewhere: this process knows it from the store only
    manager.cluster, manager._listing = object(), (0.0, [])  # the lobby of a process among several
    try:
        from_store = manager.listed()
        assert [t["id"] for t in from_store] == [made["id"]]
        assert from_store[0]["players"] == ["Ann"] and from_store[0]["open_seats"] == 1  # as a live one's
        with manager.store.engine.begin() as conn:  # a long time without an action
            conn.execute(update(Event).values(created_at=datetime(2026, 1, 1)))
            conn.execute(update(GameSession).values(created_at=datetime(2026, 1, 1)))
        manager._listing = (0.0, [])
        assert manager.listed() == []
        manager.sessions[made["id"]] = live  # live here with somebody connected: listed again
        live.conns.add(object())  # type: ignore[arg-type]
        manager._listing = (0.0, [])
        assert [t["id"] for t in manager.listed()] == [made["id"]]
    finally:
        manager.cluster = None
        manager.sessions[made["id"]] = live
        live.conns.clear()


def test_settings_round_trip_through_their_dict() -> None:
    """Every field is in the dict a view carries (written by hand: it is made at every event) and read back."""
    full = TableSettings(hints=False, clock=3600, undo=True, deal="daily:2026-03-03:yams", ranked="yams")
    assert set(full.to_dict()) == {f.name for f in fields(TableSettings)}
    assert TableSettings.from_dict(full.to_dict()) == full
    assert TableSettings().to_dict() == {"hints": True, "clock": None, "undo": False}
