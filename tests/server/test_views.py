"""What a viewer sees: the engine's outlook of every box, and duplicate-table masking."""

from __future__ import annotations

import pytest

from yambak.engine import Announce, DuplicateDice, IllegalAction, ManualDice, Roll, Score, SeededDice, new_game
from yambak.rules import load_ruleset
from yambak.server.tables.manager import LiveTable
from yambak.server.tables.view import public_event, table_view
from yambak.store import SeatRow

from .helpers import WS, create, legal


def _table(state):
    seats = [SeatRow(i, "human", n) for i, n in enumerate(state.players)]
    return LiveTable("t", "T", state, listed=True, seats=seats, seat_version=[0] * len(seats))


def _play(state, *actions):
    for a in actions:
        state, _ = state.apply(a)
    return state


def test_boxes_are_the_engines_outlook_and_poot_says_it_closes():
    state = _play(new_game(load_ruleset("yammen"), ["Ann"], dice=SeededDice(1)), Roll(0))
    turn = table_view(_table(state), frozenset({0}))["players"][0]["turn"]
    assert {b: o["written"] for b, o in turn["boxes"].items() if o["legal"]} == state.preview(0)
    assert turn["boxes"]["down.twos"] == {"legal": False, "code": "illegal/box-order"}
    assert turn["closing"] == ["poot"]
    state = _play(state, Roll(0))
    turn = table_view(_table(state), frozenset({0}))["players"][0]["turn"]
    assert turn["closing"] == ["en_deux"] and turn["boxes"]["poot.ones"]["code"] == "illegal/box-rolls"
    assert turn["rolls_left"] == 1 and turn["announce"] == []


def test_only_announce_boxes_left_is_said():
    rules = load_ruleset("yams-de")
    state = new_game(rules, ["Ann"], dice=ManualDice())
    order = []
    for column in rules.columns:
        if column.announce:
            continue
        rows = [r.id for r in rules.rows]
        order += [f"{column.id}.{r}" for r in (reversed(rows) if column.order == "up" else rows)]
    for box_id in order:  # every box but the oblige column, one turn each (scratches are fine)
        state = _play(state, Roll(0, dice=(1, 2, 3, 4, 6)), Score(0, box_id))
    state = _play(state, Roll(0, dice=(2, 2, 3, 4, 6)))
    turn = table_view(_table(state), frozenset({0}))["players"][0]["turn"]
    assert turn["must_announce"] and turn["roll_code"] == "illegal/dead-end"
    assert turn["announce"] and not turn["can_roll"]


def test_zeroing_pair_is_flagged_on_the_box_in_yams_fr():
    rules = load_ruleset("yams-fr", {"columns": 1})
    state = new_game(rules, ["Ann"], dice=SeededDice(2))
    state = _play(state, Roll(0), Score(0, "free.max"))
    state = _play(state, Roll(0))
    turn = table_view(_table(state), frozenset({0}))["players"][0]["turn"]
    max_value = state.sheets[0].written[rules.box_index("free", "max")]
    zeroing = state.preview(0)["free.min"] >= max_value
    assert turn["boxes"]["free.min"].get("zeroes_pair", False) == zeroing


def test_strict_yams_de_flags_the_entry_it_voids():
    """Regression: the view's old copy of the rule missed yams-de `strict` (a min above a max of
    another column scores 0 at entry, and the page said nothing)."""
    rules = load_ruleset("yams-de", {"strict": True})
    state = new_game(rules, ["Ann"], dice=ManualDice())
    state = _play(state, Roll(0, dice=(1, 1, 2, 2, 3)), Score(0, "normal.max"))  # max 9 in the normal column
    state = _play(state, Roll(0, dice=(6, 6, 5, 5, 4)))  # 26 in the oblige column's min: above that max
    turn = table_view(_table(state), frozenset({0}))["players"][0]["turn"]
    assert turn["boxes"]["oblige.min"]["voids_entry"] and turn["boxes"]["oblige.min"]["gain"] == 0
    assert turn["boxes"]["normal.min"]["voids_entry"]
    after, event = state.apply(Score(0, "oblige.min"))
    assert after.column_scores(0)[3].boxes["min"] == 0 and event.written == 26  # the engine agrees
    lenient = _play(
        new_game(load_ruleset("yams-de"), ["Ann"], dice=ManualDice()),
        *[Roll(0, dice=(1, 1, 2, 2, 3)), Score(0, "normal.max"), Roll(0, dice=(6, 6, 5, 5, 4))],
    )
    assert "voids_entry" not in table_view(_table(lenient), frozenset({0}))["players"][0]["turn"]["boxes"]["oblige.min"]


def test_duplicate_masking_hides_what_would_reveal_your_dice():
    rules = load_ruleset("yams")
    state = new_game(rules, ["Ann", "Bram"], dice=DuplicateDice("s"), simultaneous=True)
    state, event = state.apply(Roll(0))
    state, _ = state.apply(Score(0, "chance"))
    view_bram = table_view(_table(state), frozenset({1}))
    assert view_bram["players"][0]["columns"]["free"]["boxes"]["chance"] == {"hidden": True}
    assert view_bram["players"][0]["total"] is None
    view_ann = table_view(_table(state), frozenset({0}))
    assert view_ann["players"][0]["columns"]["free"]["boxes"]["chance"]["score"] == sum(event.dice)
    assert "dice" not in public_event(event.to_dict(), state, frozenset({1}))
    assert public_event(event.to_dict(), state, frozenset({0}))["dice"] == list(event.dice)


def test_announce_shown_for_yamb():
    state = _play(new_game(load_ruleset("yamb"), ["Ann"], dice=SeededDice(3)), Roll(0))
    turn = table_view(_table(state), frozenset({0}))["players"][0]["turn"]
    assert "announce.ones" in turn["announce"]
    state = _play(state, Announce(0, "announce.ones"))
    turn = table_view(_table(state), frozenset({0}))["players"][0]["turn"]
    assert turn["announced"] == "announce.ones" and legal(turn) == ["announce.ones"]


def test_a_table_on_postgresql(pg_url):
    from fastapi.testclient import TestClient

    from yambak.server import Settings, create_app

    settings = Settings(database_url=pg_url, bot_delay=0)
    with TestClient(create_app(settings)) as client:
        made = create(client, "yams", [{"name": "Ann"}, {"kind": "bot"}])
        with client.websocket_connect(f"/ws/{made['id']}") as s:
            ws = WS(s)
            ws.hello([made["tokens"]["0"]])
            out = ws.act(type="roll", seat=0, v=0)
            out = ws.act(type="score", seat=0, v=1, box=legal(out["view"]["players"][0]["turn"])[0])
            assert out["type"] == "event"
            while out["view"]["current"] != 0:
                out = ws.recv()
        assert client.get(f"/api/tables/{made['id']}").json()["players"][1]["turns_done"] == 1
    with TestClient(create_app(settings)) as client:  # a new app on the same database resumes the table
        view = client.get(f"/api/tables/{made['id']}").json()
        assert view["players"][0]["turns_done"] == 1 and view["current"] == 0


def test_a_served_generala_on_a_duplicate_table_waits_for_the_others_and_stays_hidden_from_them():
    """docs/rules.md §7: the winner waits (coded refusal), the other seat plays the same dice of that turn
    and only then sees the win; the view says it as a win with its box and roll."""
    state = new_game(load_ruleset("generala"), ["Ann", "Bram"], dice=DuplicateDice(2053), simultaneous=True)
    state, event = state.apply(Roll(0))
    assert event.dice == (4, 4, 4, 4, 4)  # turn 1, roll 1 of seed 2053: a generala, served
    state, _ = state.apply(Score(0, "yam"))
    ann, bram = (table_view(_table(state), frozenset({s})) for s in (0, 1))
    assert ann["to_act"] == [1] and not ann["finished"] and ann["outright"]["seats"] == [0]
    assert "outright" not in bram and bram["players"][0]["total"] is None  # nothing tells Bram his dice
    with pytest.raises(IllegalAction) as refused:
        state.apply(Roll(0))
    assert refused.value.code == "illegal/outright-wait"
    state, event = state.apply(Roll(1))
    assert event.dice == (4, 4, 4, 4, 4)
    state, _ = state.apply(Score(1, "fours"))
    bram = table_view(_table(state), frozenset({1}))
    assert bram["finished"] and bram["winners"] == [0]
    assert bram["outright"] == {"seats": [0], "turn": 1, "box": "free.yam", "by_roll": 1}
