"""The WebSocket protocol: play, every refusal (coded, nothing changes), resync, bots, duplicate tables."""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

from yambak.server import Settings, create_app

from .helpers import WS, create, legal


def _version(client, table_id):
    return client.get(f"/api/tables/{table_id}").json()["v"]


@pytest.fixture
def table(client):
    return create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}])


@pytest.fixture
def connect(connect_table):
    return connect_table


@pytest.mark.usefixtures("client")
def test_a_turn_is_rolled_on_the_server_and_broadcast(connect, table):
    ws = connect(table, ("0", "1"))
    watcher = connect(table, hello=False)
    _, state = watcher.hello()
    assert state["type"] == "state" and state["v"] == 0
    out = ws.act(type="roll", seat=0, v=0)
    assert out["type"] == "event" and out["v"] == 1
    dice = out["event"]["dice"]
    assert len(dice) == 5 and all(1 <= d <= 6 for d in dice)
    seen = watcher.recv()
    assert seen["v"] == 1 and seen["event"]["dice"] == dice
    assert legal(seen["view"]["players"][0]["turn"]) == legal(out["view"]["players"][0]["turn"])
    out = ws.act(type="hold", seat=0, v=1, dice=[0, 1])
    assert out["event"]["held"] == [0, 1]
    out = ws.act(type="roll", seat=0, v=2)
    assert out["event"]["dice"][:2] == dice[:2] and out["event"]["roll"] == 2
    out = ws.act(type="score", seat=0, v=3, box="chance")
    assert out["event"]["written"] == sum(out["event"]["dice"])
    assert out["view"]["current"] == 1


def test_a_hold_or_release_that_changes_nothing_is_refused(client, connect, table):
    ws = connect(table, ("0",))
    assert ws.act(type="roll", seat=0, v=0)["v"] == 1
    for msg, code in [
        ({"type": "release", "dice": [2]}, "illegal/not-held"),  # was committed as a version that changed nothing
        ({"type": "release", "dice": []}, "illegal/not-held"),
    ]:
        out = ws.act(seat=0, v=1, **msg)
        assert out["type"] == "error" and out["code"] == code, out
    assert ws.act(type="hold", seat=0, v=1, dice=[2])["v"] == 2
    out = ws.act(type="hold", seat=0, v=2, dice=[2])
    assert out["type"] == "error" and out["code"] == "illegal/already-held", out
    assert _version(client, table["id"]) == 2


REFUSALS = [
    # (message, code): each refused with a code, the table unchanged
    ({"type": "roll", "seat": 1, "v": 0}, "auth/not-your-seat"),  # no token for seat 1
    ({"type": "roll", "seat": 7, "v": 0}, "auth/not-your-seat"),  # no such seat
    ({"type": "score", "seat": 0, "v": 0, "box": "chance"}, "illegal/roll-first"),
    ({"type": "hold", "seat": 0, "v": 0, "dice": [0]}, "illegal/hold-before-roll"),
    ({"type": "roll", "seat": 0, "v": 5}, "stale/version"),  # from the future
    ({"type": "roll", "seat": 0, "v": 0, "dice": [6, 6, 6, 6, 6]}, "protocol/malformed"),  # dice values
    ({"type": "roll", "seat": 0, "v": 0, "held": [9]}, "protocol/malformed"),
    ({"type": "roll", "seat": "0", "v": 0, "extra": 1}, "protocol/malformed"),
    ({"type": "roll", "v": 0}, "protocol/malformed"),
    ({"type": "announce", "seat": 0, "v": 0, "box": "x" * 100}, "protocol/malformed"),
    ({"type": "score", "seat": 0, "v": -1, "box": "chance"}, "protocol/malformed"),
    # strict fields: a seat is a number, never "0" or true (regression: both were taken as seat 0)
    ({"type": "roll", "seat": "0", "v": 0}, "protocol/malformed"),
    ({"type": "roll", "seat": True, "v": 0}, "protocol/malformed"),
    ({"type": "roll", "seat": 0.0, "v": 0}, "protocol/malformed"),
    ({"type": "roll", "seat": 0, "v": "0"}, "protocol/malformed"),
    ({"type": "score", "seat": 0, "v": 0, "box": "chance", "strike": 1}, "protocol/malformed"),
    ({"type": "hold", "seat": 0, "v": 0, "dice": ["0"]}, "protocol/malformed"),
    ({"type": "hello", "since": "3"}, "protocol/malformed"),
]


@pytest.mark.parametrize("message,code", REFUSALS)
def test_refusals_are_coded_and_change_nothing(client, connect, table, message, code):
    ws = connect(table)
    out = ws.act(**message)
    assert out["type"] == "error" and out["code"] == code, out
    assert _version(client, table["id"]) == 0
    # the socket stays open and usable
    assert ws.act(type="ping") == {"type": "pong"}


def test_out_of_turn_stale_and_illegal_mid_game(client, connect, table):
    ws = connect(table, ("0", "1"))
    ws.act(type="roll", seat=0, v=0)
    out = ws.act(type="roll", seat=1, v=1)
    assert out["code"] == "illegal/not-your-turn"
    out = ws.act(type="roll", seat=0, v=0)  # acted on an old view
    assert out["code"] == "stale/version"
    ws.act(type="score", seat=0, v=1, box="chance")
    ws.act(type="roll", seat=1, v=2)
    ws.act(type="score", seat=1, v=3, box="ones")
    ws.act(type="roll", seat=0, v=4)
    out = ws.act(type="score", seat=0, v=5, box="chance")
    assert out["code"] == "illegal/box-closed"
    assert ws.act(type="score", seat=0, v=5, box="nope")["code"] == "illegal/box-unknown"
    ws.act(type="roll", seat=0, v=5)
    ws.act(type="roll", seat=0, v=6)
    out = ws.act(type="roll", seat=0, v=7)
    assert out["code"] == "illegal/no-rolls-left"
    out = ws.act(type="hold", seat=0, v=7, dice=[0, 1, 2, 3, 4])
    assert out["type"] == "event"  # holding after the last roll is harmless
    assert _version(client, table["id"]) == 8


@pytest.mark.usefixtures("client")
def test_wrong_token_gives_no_seat(connect, table):
    ws = connect(table, hello=False)
    welcome, _ = ws.hello(["A" * 32])
    assert welcome["seats"] == []
    assert ws.act(type="roll", seat=0, v=0)["code"] == "auth/not-your-seat"


def test_actions_before_hello_are_refused(client, table):
    with client.websocket_connect(f"/ws/{table['id']}") as s:
        s.send_json({"type": "roll", "seat": 0, "v": 0})
        assert s.receive_json()["code"] == "protocol/hello-first"


def test_bad_json_is_refused(client, table):
    with client.websocket_connect(f"/ws/{table['id']}") as s:
        s.send_text("{not json")
        assert s.receive_json()["code"] == "protocol/bad-json"
        s.send_text("[1, 2]")
        out = s.receive_json()
        assert out["code"] == "protocol/unknown-type"


@pytest.mark.parametrize("kind", [["roll"], {"x": 1}, None, 3, True, "", "ROLL", "x" * 5000, "hello\u0000"], ids=repr)
def test_a_type_that_is_not_a_known_name_closes_the_socket_with_a_refusal(client, table, kind):
    """Regression: a list or object as `type` raised `TypeError: unhashable type` (a traceback
    per connection, from any anonymous client)."""
    with client.websocket_connect(f"/ws/{table['id']}") as s:
        s.send_json({"type": kind, "seat": 0, "v": 0})
        out = s.receive_json()
        assert out["type"] == "error" and out["code"] in ("protocol/unknown-type", "protocol/too-large")
        with pytest.raises(WebSocketDisconnect) as exc:
            s.receive_json()
        assert exc.value.code in (4400, 1009)
    assert _version(client, table["id"]) == 0


def test_unknown_message_type_closes_the_socket(client, table):
    with client.websocket_connect(f"/ws/{table['id']}") as s:
        s.send_json({"type": "teleport", "seat": 0})
        assert s.receive_json()["code"] == "protocol/unknown-type"
        with pytest.raises(WebSocketDisconnect) as exc:
            s.receive_json()
        assert exc.value.code == 4400


def test_oversized_message_closes_the_socket(client, table):
    with client.websocket_connect(f"/ws/{table['id']}") as s:
        s.send_text(json.dumps({"type": "ping", "pad": "x" * 5000}))
        assert s.receive_json()["code"] == "protocol/too-large"
        with pytest.raises(WebSocketDisconnect) as exc:
            s.receive_json()
        assert exc.value.code == 1009


def test_unknown_table_closes_the_socket(client):
    with client.websocket_connect("/ws/nope") as s:
        assert s.receive_json()["code"] == "table/unknown"
        with pytest.raises(WebSocketDisconnect) as exc:
            s.receive_json()
        assert exc.value.code == 4404


def test_rate_limit_per_connection(tmp_path):
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/r.db", bot_delay=0, rate_per_second=0.001, rate_burst=5, rate_strikes=3
    )
    from fastapi.testclient import TestClient

    with TestClient(create_app(settings)) as client:
        made = create(client)
        with client.websocket_connect(f"/ws/{made['id']}") as s:
            for _ in range(5):
                s.send_json({"type": "ping"})
                assert s.receive_json() == {"type": "pong"}
            refused = []
            for i in range(3):  # a refused message's ref comes back, so its sender can wait and resend it
                s.send_json({"type": "ping", "ref": f"r{i}"})
                refused.append(s.receive_json())
            assert [(m["code"], m["ref"]) for m in refused] == [("rate/limited", f"r{i}") for i in range(3)]
            with pytest.raises(WebSocketDisconnect) as exc:
                s.receive_json()
            assert exc.value.code == 4429


def test_game_over_refuses_further_actions(client, connect):
    made = create(client, "yams", [{"name": "Solo"}])
    ws = connect(made)
    v = 0
    rows = [
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "three_kind",
        "four_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "yam",
        "chance",
    ]
    for row in rows:
        ws.act(type="roll", seat=0, v=v)
        out = ws.act(type="score", seat=0, v=v + 1, box=row)
        assert out["type"] == "event", out
        v += 2
    assert out["event"]["game_over"] and out["view"]["finished"] and out["view"]["winners"] == [0]
    assert ws.act(type="roll", seat=0, v=v)["code"] == "illegal/game-over"


def test_reconnect_gets_missed_events_or_a_full_resync(tmp_path):
    from fastapi.testclient import TestClient

    settings = Settings(database_url=f"sqlite:///{tmp_path}/s.db", bot_delay=0, history=3)
    with TestClient(create_app(settings)) as client:
        made = create(client, keep_cookies=True)
        with client.websocket_connect(f"/ws/{made['id']}") as s:  # the creator's cookie holds both seats
            assert WS(s).hello()[0]["seats"] == [0, 1]
        client.cookies.clear()
        with client.websocket_connect(f"/ws/{made['id']}") as first:
            ws = WS(first)
            ws.hello([made["tokens"]["0"], made["tokens"]["1"]])
            ws.act(type="roll", seat=0, v=0)
            # a second device of the same players goes away at version 1 ...
            ws.act(type="hold", seat=0, v=1, dice=[2])
            ws.act(type="roll", seat=0, v=2)
            # ... and comes back: it gets the two events it missed, then the view
            with client.websocket_connect(f"/ws/{made['id']}") as s:
                back = WS(s)
                welcome, missed = back.hello([made["tokens"]["0"]], since=1)
                assert welcome["seats"] == [0]
                assert missed["type"] == "events" and [e["v"] for e in missed["events"]] == [2, 3]
                assert missed["events"][1]["event"]["type"] == "rolled"
                assert missed["view"]["players"][0]["turn"]["held"] == [2]
                assert back.act(type="score", seat=0, v=3, box="chance")["v"] == 4
            assert ws.recv()["v"] == 4  # the first device saw that score too
        # too far behind the kept history (3 events): a full resync
        with client.websocket_connect(f"/ws/{made['id']}") as s:
            _, full = WS(s).hello(since=0)
            assert full["type"] == "state" and full["v"] == 4
            assert full["view"]["players"][0]["columns"]["free"]["boxes"]["chance"]["score"] is not None
        with client.websocket_connect(f"/ws/{made['id']}") as s:
            _, same = WS(s).hello(since=4)
            assert same["type"] == "events" and same["events"] == []


def test_a_ref_sent_again_is_answered_with_the_event_it_made(tmp_path):
    """Refs are stored with a table's events: an action sent again under its ref (its answer lost, the
    socket reconnected, long after) gets an `ack` with the event it made; it is never applied twice, and
    never refused although it was done. A ref another seat's action took is refused, nothing applied."""
    from fastapi.testclient import TestClient

    settings = Settings(database_url=f"sqlite:///{tmp_path}/r.db", bot_delay=0, history=3)
    with TestClient(create_app(settings)) as client:
        made = create(client)
        tokens = [made["tokens"]["0"]]
        with client.websocket_connect(f"/ws/{made['id']}") as s:
            ws = WS(s)
            ws.hello(tokens)
            rolled = ws.act(type="roll", seat=0, v=0, ref="page1-1")
            assert rolled["type"] == "event" and rolled["ref"] == "page1-1"
            again = ws.act(type="roll", seat=0, v=0, ref="page1-1")  # its answer was lost: the same again
            assert again == {"type": "ack", "ref": "page1-1", "v": 1, "event": rolled["event"]}, again
            assert ws.act(type="hold", seat=0, v=1, dice=[0], ref=7)["v"] == 2
            assert ws.act(type="hold", seat=0, v=1, dice=[0], ref=7)["type"] == "ack"  # a number is a ref too
        with client.websocket_connect(f"/ws/{made['id']}") as s:  # a reconnect, then the ref once more
            ws = WS(s)
            ws.hello(tokens, since=1)
            again = ws.act(type="roll", seat=0, v=0, ref="page1-1")
            assert again["type"] == "ack" and again["v"] == 1 and again["event"]["dice"] == rolled["event"]["dice"]
            for v in (2, 3, 4):  # the ref leaves the table's recent events (3): the log still knows it
                ws.act(type="roll" if v % 2 == 0 else "hold", seat=0, v=v, **({"dice": [1]} if v % 2 else {}))
            assert ws.act(type="roll", seat=0, v=0, ref="page1-1")["event"] == rolled["event"]
            with client.websocket_connect(f"/ws/{made['id']}") as other:
                bram = WS(other)
                bram.hello([made["tokens"]["1"]])
                out = ws.act(type="score", seat=0, v=5, box="chance")
                assert out["type"] == "event"
                bram.recv()
                taken = bram.act(type="roll", seat=1, v=6, ref="page1-1")  # Ann's ref: not Bram's action
                assert taken["type"] == "error" and taken["code"] == "protocol/ref-taken", taken
        assert _version(client, made["id"]) == 6
        events = client.app.state.store.events(made["id"])
        assert [e.ref for e in events] == ["page1-1", "7", None, None, None, None]


def test_solo_game_against_a_bot(client, connect):
    made = create(client, "yams", [{"name": "Ann"}, {"kind": "bot"}])
    ws = connect(made)
    v = 0
    for _ in range(13):
        out = ws.act(type="roll", seat=0, v=v)
        box = legal(out["view"]["players"][0]["turn"])[0]
        out = ws.act(type="score", seat=0, v=out["v"], box=box)
        assert out["type"] == "event", out
        # the bot plays its whole turn; wait until it is ours again (or the game is over)
        while not out["view"]["finished"] and out["view"]["current"] != 0:
            out = ws.recv()
            assert out["type"] == "event" and out["event"]["player"] == 1
        v = out["v"]
    assert out["view"]["finished"]
    assert out["view"]["players"][1]["turns_done"] == 13


def test_duplicate_table_same_dice_hidden_until_the_round_is_done(client, connect):
    made = create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}], duplicate=True)
    ann = connect(made, ("0",))
    bram = connect(made, ("1",))
    a = ann.act(type="roll", seat=0, v=0)
    seen_by_bram = bram.recv()
    assert "dice" not in seen_by_bram["event"]
    assert seen_by_bram["view"]["players"][0]["turn"] == {"rolls": 1, "hidden": True}
    b = bram.act(type="roll", seat=1, v=0)  # all at once: Bram need not wait for Ann
    assert b["type"] == "event", b
    ann.recv()
    assert a["event"]["dice"] == b["event"]["dice"]  # the same dice for everyone
    a = ann.act(type="score", seat=0, v=1, box="chance")
    assert a["type"] == "event", a
    bram.recv()
    view_b = client.get(f"/api/tables/{made['id']}").json()  # a spectator sees no unfinished round
    assert view_b["players"][0]["columns"]["free"]["boxes"]["chance"] == {"hidden": True}
    assert ann.act(type="roll", seat=0, v=3)["type"] == "event"  # Ann goes on to round 2
    bram.recv()
    b = bram.act(type="score", seat=1, v=2, box="ones")
    assert b["type"] == "event", b
    rounds = b["view"]["rounds"]
    assert rounds[0]["round"] == 1 and [p["box"] for p in rounds[0]["players"]] == ["free.chance", "free.ones"]
    assert rounds[0]["players"][0]["rolls"] == rounds[0]["players"][1]["rolls"]
    assert b["view"]["players"][0]["turn"] == {"rolls": 1, "hidden": True}  # Ann's round-2 dice stay hidden
    assert client.get(f"/t/{made['id']}/record.json").json()["code"] == "record/after-game"


def test_announce_and_withdraw_over_the_wire(client, connect):
    made = create(client, "yams-de", [{"name": "Ann"}])
    ws = connect(made)
    out = ws.act(type="roll", seat=0, v=0)
    assert "oblige.ones" in out["view"]["players"][0]["turn"]["announce"]
    out = ws.act(type="announce", seat=0, v=1, box="oblige.ones")
    assert out["event"]["type"] == "announced" and out["view"]["players"][0]["turn"]["can_withdraw"]
    out = ws.act(type="withdraw", seat=0, v=2)
    assert out["event"]["type"] == "withdrawn"
    out = ws.act(type="announce", seat=0, v=3, box="down.ones")
    assert out["code"] == "illegal/announce-column"


def test_rematch_keeps_the_seats(client, connect):
    made = create(client, "yams", [{"name": "Solo"}], options={}, keep_cookies=True)
    client2 = type(client)(client.app)  # a stranger without the seat cookie
    assert client2.post(f"/api/tables/{made['id']}/rematch").json()["code"] == "auth/not-seated"
    assert client.post(f"/api/tables/{made['id']}/rematch").json()["code"] == "table/not-finished"
    ws = connect(made)
    v = 0
    for row in [
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "three_kind",
        "four_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "yam",
        "chance",
    ]:
        ws.act(type="roll", seat=0, v=v)
        ws.act(type="score", seat=0, v=v + 1, box=row)
        v += 2
    r = client.post(f"/api/tables/{made['id']}/rematch")
    assert r.status_code == 200, r.text
    assert ws.recv() == {"type": "rematch", "table": r.json()["id"]}
    again = client.post(f"/api/tables/{made['id']}/rematch").json()
    assert again["id"] == r.json()["id"]
    with client.websocket_connect(f"/ws/{again['id']}") as s:
        welcome, _ = WS(s).hello([made["tokens"]["0"]])
        assert welcome["seats"] == [0]  # the same token plays the rematch


def test_a_page_of_another_site_cannot_use_the_seat_cookie(client):
    client = type(client)(client.app)  # host "testserver", so its cookies go with the socket too
    made = create(client, keep_cookies=True)
    with client.websocket_connect(f"/ws/{made['id']}", headers={"origin": "http://evil.example"}) as s:
        assert s.receive_json()["code"] == "auth/origin"
        with pytest.raises(WebSocketDisconnect) as exc:
            s.receive_json()
        assert exc.value.code == 4403
    with client.websocket_connect(f"/ws/{made['id']}", headers={"origin": "http://testserver"}) as s:  # the test host
        assert WS(s).hello()[0]["seats"] == [0, 1]  # the same site: the cookie's seats
