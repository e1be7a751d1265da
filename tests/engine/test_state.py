"""Targeted engine tests: each refusal with its code, and the rules that need a setup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import play_random
from yambak.engine import (
    Announce,
    DuplicateDice,
    Hold,
    IllegalAction,
    ManualDice,
    RecordError,
    Release,
    Roll,
    Score,
    SeededDice,
    Withdraw,
    new_game,
    play_turn,
    replay,
    state_to_record,
    summary,
    typed_turn,
)
from yambak.engine.record import GameRecord
from yambak.engine.scoresheet import Sheet, column_scores, column_winners, grand_total, settle_tie
from yambak.rules import load_ruleset

GOLDEN = Path(__file__).parent.parent / "golden" / "cases"


def manual(preset: str, players: int = 1, **options: object):  # type: ignore[no-untyped-def]
    return new_game(load_ruleset(preset, options), [f"P{i}" for i in range(players)], dice=ManualDice())


def play(state, *actions):  # type: ignore[no-untyped-def]
    for action in actions:
        state, _ = state.apply(action)
    return state


def refused(state, action, code: str) -> None:  # type: ignore[no-untyped-def]
    before = state_to_record(state).to_dict()
    with pytest.raises(IllegalAction) as info:
        state.apply(action)
    assert info.value.code == f"illegal/{code}", info.value.message
    assert info.value.message
    assert state_to_record(state).to_dict() == before


def fill(state, p, box, dice):  # type: ignore[no-untyped-def]
    return play(state, Roll(p, dice=dice), Score(p, box))


# --- turn mechanics ------------------------------------------------------------------


def test_turn_order_and_seats() -> None:
    s = manual("yams", 2)
    refused(s, Roll(1, dice=(1, 2, 3, 4, 5)), "not-your-turn")
    refused(s, Roll(2, dice=(1, 2, 3, 4, 5)), "no-such-seat")
    refused(s, Roll(True, dice=(1, 2, 3, 4, 5)), "no-such-seat")  # type: ignore[arg-type]
    s = fill(s, 0, "chance", (1, 2, 3, 4, 5))
    assert s.current == 1
    refused(s, Roll(0, dice=(1, 2, 3, 4, 5)), "not-your-turn")


def test_roll_limits() -> None:
    s = manual("yams")
    refused(s, Score(0, "chance"), "roll-first")
    refused(s, Hold(0, (0,)), "hold-before-roll")
    refused(s, Roll(0, held=(0,), dice=(1, 1, 1, 1, 1)), "hold-before-roll")
    s = play(s, Roll(0, dice=(1, 2, 3, 4, 5)))
    refused(s, Roll(0, held=(0, 1, 2, 3, 4), dice=(1, 2, 3, 4, 5)), "all-held")
    refused(s, Roll(0, held=(5,), dice=(1, 2, 3, 4, 5)), "bad-hold")
    refused(s, Roll(0, held=(1, 1), dice=(1, 2, 3, 4, 5)), "bad-hold")
    refused(s, Roll(0, dice=(1, 2, 3, 4)), "bad-dice")
    refused(s, Roll(0, dice=(1, 2, 3, 4, 7)), "bad-dice")
    refused(s, Roll(0, held=(0,), dice=(6, 2, 3, 4, 5)), "held-changed")
    s = play(s, Hold(0, (0, 1)), Release(0, (1,)))
    assert s.turn.held == frozenset({0})
    refused(s, Release(0, (1,)), "not-held")  # no version that changes nothing
    refused(s, Release(0, ()), "not-held")
    refused(s, Hold(0, (0,)), "already-held")
    assert play(s, Hold(0, (0, 3))).turn.held == frozenset({0, 3})  # one of them new: a move
    s = play(s, Roll(0, dice=(1, 6, 6, 6, 6)), Roll(0, held=(), dice=(2, 2, 2, 2, 2)))
    refused(s, Roll(0, dice=(1, 2, 3, 4, 5)), "no-rolls-left")
    assert not s.can_roll()


def test_dice_sources_are_enforced() -> None:
    live = new_game(load_ruleset("yams"), ["A"], seed=3)
    refused(live, Roll(0, dice=(6, 6, 6, 6, 6)), "dice-not-allowed")
    refused(manual("yams"), Roll(0), "dice-required")


def test_seeded_dice_are_reproducible_and_held_dice_stay() -> None:
    rules = load_ruleset("yams")
    a = play(new_game(rules, ["A"], seed=42), Roll(0))
    b = play(new_game(rules, ["A"], seed=42), Roll(0))
    assert a.dice == b.dice and all(1 <= d <= 6 for d in a.dice)
    c = play(a, Roll(0, held=(0, 2)))
    assert (c.dice[0], c.dice[2]) == (a.dice[0], a.dice[2])


def test_duplicate_dice_give_everyone_the_same_rolls() -> None:
    rules = load_ruleset("yams")
    s = new_game(rules, ["A", "B"], dice=DuplicateDice(9), simultaneous=True)
    assert s.to_act() == [0, 1]
    s = play(s, Roll(1), Roll(0))  # any order
    assert s.turns[0].dice == s.turns[1].dice
    s = play(s, Roll(0, held=(0, 1)), Roll(1, held=(0, 1)))
    assert s.turns[0].dice == s.turns[1].dice
    s = play(s, Score(1, "chance"), Roll(1))
    # B's second turn starts before A finished the first: B sees A's future second-turn dice
    s = play(s, Score(0, "chance"), Roll(0))
    assert s.turns[0].dice == s.turns[1].dice


# --- boxes ---------------------------------------------------------------------------


def test_box_refusals() -> None:
    s = manual("yammen")
    s = play(s, Roll(0, dice=(1, 1, 1, 2, 3)))
    refused(s, Score(0, "down.twos"), "box-order")
    refused(s, Score(0, "up.ones"), "box-order")
    refused(s, Score(0, "chance"), "box-unknown")  # bare row ids only on one-column sheets
    refused(s, Score(0, "free.nothing"), "box-unknown")
    refused(s, Score(0, "en_deux.ones"), "box-rolls")
    refused(s, Score(0, "free.ones", strike=True), "strike")
    s = play(s, Score(0, "down.ones"))
    s = play(s, Roll(0, dice=(2, 2, 1, 1, 1)), Roll(0, held=(0, 1), dice=(2, 2, 2, 5, 6)))
    refused(s, Score(0, "down.ones"), "box-closed")
    refused(s, Score(0, "poot.twos"), "box-rolls")
    refused(s, Score(0, "annonce.twos"), "not-announced")
    s = play(s, Score(0, "en_deux.twos"))
    assert summary(s)["players"][0]["columns"]["en_deux"]["boxes"]["twos"] == 6


def test_announce_flow() -> None:
    s = manual("yammen")
    refused(s, Announce(0, "annonce.sixes"), "announce-early")
    s = play(s, Roll(0, dice=(6, 6, 1, 2, 3)))
    refused(s, Announce(0, "free.sixes"), "announce-column")
    refused(s, Withdraw(0), "withdraw")
    s = play(s, Announce(0, "annonce.sixes"))
    refused(s, Announce(0, "annonce.fives"), "already-announced")
    refused(s, Withdraw(0), "withdraw")  # yammen announcements stand
    s = play(s, Roll(0, held=(0, 1), dice=(6, 6, 6, 2, 3)))
    refused(s, Announce(0, "annonce.fives"), "announce-late")
    refused(s, Score(0, "free.sixes"), "announced-elsewhere")
    s = play(s, Roll(0, held=(0, 1, 2), dice=(6, 6, 6, 6, 6)))
    # a yam of sixes announced as sixes is 30 in the sixes box, nothing more (seed 000)
    s = play(s, Score(0, "annonce.sixes"))
    assert summary(s)["players"][0]["columns"]["annonce"]["boxes"]["sixes"] == 30
    # announce-and-score right after roll 1, without an Announce action
    s = play(s, Roll(0, dice=(1, 2, 3, 4, 5)), Score(0, "annonce.straight"))
    assert state_to_record(s).turns[-1].box == "annonce.straight"
    s = play(s, Roll(0, dice=(1, 2, 3, 4, 6)), Roll(0, held=(0,), dice=(1, 2, 3, 4, 6)))
    refused(s, Announce(0, "annonce.ones"), "announce-late")


def test_withdraw_in_yams_de() -> None:
    s = manual("yams-de")
    s = play(s, Roll(0, dice=(6, 6, 6, 2, 3)), Announce(0, "oblige.sixes"), Withdraw(0))
    assert s.turn.announced is None
    s = play(s, Announce(0, "oblige.yam"), Roll(0, held=(0, 1, 2), dice=(6, 6, 6, 1, 1)))
    refused(s, Withdraw(0), "withdraw")
    s = play(s, Roll(0, held=(0, 1, 2), dice=(6, 6, 6, 1, 2)), Score(0, "oblige.yam"))
    assert summary(s)["players"][0]["columns"]["oblige"]["boxes"]["yam"] == 0  # announced and missed


def test_dead_ends() -> None:
    # yams-fr with four columns: fill everything but the dry column, then a second roll is a dead end
    rules = load_ruleset("yams-fr", {"columns": 4})
    s = new_game(rules, ["A"], dice=ManualDice())
    for box in range(rules.n_boxes):
        box_id = rules.box_id(box)
        if not box_id.startswith("dry.") and not box_id.startswith("up."):
            s = fill(s, 0, box_id, (1, 2, 3, 4, 6))
    for row in reversed(rules.rows):
        s = fill(s, 0, f"up.{row.id}", (1, 2, 3, 4, 6))
    s = play(s, Roll(0, dice=(1, 2, 3, 4, 6)))
    refused(s, Roll(0, held=(0,), dice=(1, 2, 3, 4, 6)), "dead-end")
    # yammen: with only annonce boxes left, a second roll needs an announcement
    rules = load_ruleset("yammen")
    s = new_game(rules, ["A"], dice=ManualDice())
    order = [b for b in range(rules.n_boxes) if not rules.box_id(b).startswith("annonce.")]
    for box in order:
        col = rules.columns[box // rules.n_rows]
        rows = list(range(rules.n_rows)) if col.order != "up" else list(reversed(range(rules.n_rows)))
        row = rows[box % rules.n_rows]
        dice = (6, 6, 6, 6, 6) if rules.rows[row].id == "plus" else (1, 2, 3, 4, 6)
        box_id = f"{col.id}.{rules.rows[row].id}"
        if col.rolls == 2:
            s = play(s, Roll(0, dice=dice), Roll(0, held=(0, 1, 2, 3), dice=dice), Score(0, box_id))
        else:
            s = fill(s, 0, box_id, dice)
    s = play(s, Roll(0, dice=(1, 2, 3, 4, 6)))
    refused(s, Roll(0, held=(0,), dice=(1, 2, 3, 4, 6)), "dead-end")
    s = play(s, Announce(0, "annonce.ones"), Roll(0, held=(0,), dice=(1, 1, 3, 4, 6)))
    assert s.can_roll()


def test_yams_joker_is_forced_and_pays_100() -> None:
    s = manual("yams")
    s = fill(s, 0, "yam", (4, 4, 4, 4, 4))
    s = play(s, Roll(0, dice=(4, 4, 4, 4, 4)))
    assert s.legal_boxes() == [load_ruleset("yams").box_index("free", "fours")]
    refused(s, Score(0, "full_house"), "joker")
    s = play(s, Score(0, "fours"))
    assert s.sheets[0].extra_bonus == 100
    s = play(s, Roll(0, dice=(4, 4, 4, 4, 4)))
    assert s.preview() == {
        "free.three_kind": 20,
        "free.four_kind": 20,
        "free.full_house": 25,
        "free.small_straight": 30,
        "free.large_straight": 40,
        "free.chance": 20,
    }
    refused(s, Score(0, "ones"), "joker")


def test_last_resort_in_yammen() -> None:
    s = manual("yammen")
    s = fill(s, 0, "free.plus", (1, 2, 3, 4, 5))  # plus 15
    s = play(s, Roll(0, dice=(6, 6, 6, 6, 6)))
    assert "free.min" not in s.preview()
    refused(s, Score(0, "free.min"), "last-resort")


def test_six_dice_picks_the_best_five_or_the_named_ones() -> None:
    rules = load_ruleset("yams", modifiers=["six_dice"])
    s = new_game(rules, ["A"], dice=ManualDice())
    refused(s, Roll(0, dice=(1, 2, 3, 4, 5)), "bad-dice")
    s = play(s, Roll(0, dice=(1, 2, 3, 4, 5, 6)))
    refused(s, Score(0, "chance", use=(1, 1, 2, 3, 4)), "use")
    t = play(s, Score(0, "chance"))
    assert t.sheets[0].written[rules.box_index("free", "chance")] == 20
    assert state_to_record(t).turns[0].use == (2, 3, 4, 5, 6)
    t = play(s, Score(0, "chance", use=(1, 2, 3, 4, 5)))
    assert t.sheets[0].written[rules.box_index("free", "chance")] == 15
    refused(manual("yams"), Score(0, "chance", use=(1, 2, 3, 4, 5)), "roll-first")


def test_middle_and_updown_orders() -> None:
    s = manual("yamb-6")
    s = play(s, Roll(0, dice=(1, 2, 3, 4, 6)))
    rules = s.rules
    legal = {rules.box_id(b) for b in s.legal_boxes()}
    assert {"middle.min", "middle.max", "updown.ones", "updown.yam", "down.ones", "up.yam"} <= legal
    assert "middle.sixes" not in legal and "updown.twos" not in legal
    s = play(s, Score(0, "middle.max"), Roll(0, dice=(1, 2, 3, 4, 6)))
    legal = {rules.box_id(b) for b in s.legal_boxes()}
    assert {"middle.min", "middle.two_pairs"} <= legal and "middle.sixes" not in legal


def test_game_over_refuses_everything() -> None:
    s = manual("yams")
    for row in load_ruleset("yams").rows:
        s = fill(s, 0, row.id, (1, 2, 3, 4, 6))
    assert s.finished and s.legal_actions() == []
    refused(s, Roll(0, dice=(1, 2, 3, 4, 6)), "game-over")


# --- match results -------------------------------------------------------------------


def test_live_rolloff_settles_a_tied_column() -> None:
    case = json.loads((GOLDEN / "yammen--full-game-two-players.json").read_text())
    record = case["record"]
    last = record["turns"][-1]
    short = {**record, "turns": record["turns"][:-1]}
    s = replay(short)
    for i, dice in enumerate(last["rolls"]):
        if i == 1 and last.get("announce"):
            s = play(s, Announce(1, last["announce"]))
        s = play(s, Roll(1, held=() if i else None, dice=tuple(dice)))
    s = s.with_dice(SeededDice(5))
    s = play(s, Score(1, last["box"]))
    assert s.finished
    ((target, rounds),) = s.rolloffs  # only poot is tied (138-138)
    assert target == "poot" and rounds
    final = dict(rounds[-1])
    winner = max(final, key=lambda seat: sum(final[seat]))
    points = s.match_points()
    assert points is not None and sum(points) == 25
    expected = [15.5 - 1.5, 9.5 - 1.5]
    expected[winner] += 3
    assert points == expected
    # the roll-offs travel in the record and replay to the same points
    again = replay(state_to_record(s).to_dict())
    assert again.match_points() == points
    assert summary(again)["players"][winner]["match_points"] == expected[winner]


def test_shared_ties_without_recorded_rolloffs() -> None:
    case = json.loads((GOLDEN / "yammen--full-game-two-players.json").read_text())
    state = replay(case["record"])
    assert state.match_points() == [15.5, 9.5]
    assert state.winners() == [0]


# --- records -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mutate, turn",
    [
        (lambda r: r.update(format="other"), None),
        (lambda r: r.update(players=[]), None),
        (lambda r: r.update(rules="nope"), None),
        (lambda r: r.update(rules={"preset": "yams", "options": {"x": 1}}), None),
        (lambda r: r.update(turns="x"), None),
        (lambda r: r.update(extra=1), None),
        (lambda r: r["turns"].append("x"), 2),
        (lambda r: r["turns"].append({"rolls": [], "box": "chance"}), 2),
        (lambda r: r["turns"].append({"rolls": [[1, 2, 3, 4, 5]]}), 2),
        (lambda r: r["turns"].append({"rolls": [[1, 2, 3, 4, 5]], "box": 3}), 2),
        (lambda r: r["turns"].append({"rolls": [["a", 2, 3, 4, 5]], "box": "chance"}), 2),
        (lambda r: r["turns"].append({"rolls": [[1, 2, 3, 4, 5]], "box": "chance", "odd": 1}), 2),
        (lambda r: r["turns"].append({"rolls": [[1, 2, 3, 4, 5]], "box": "chance", "strike": "yes"}), 2),
    ],
)
def test_malformed_records_are_refused(mutate, turn) -> None:  # type: ignore[no-untyped-def]
    record = {
        "format": "yambak-game/1",
        "rules": "yams",
        "players": ["A"],
        "seed": None,
        "turns": [{"rolls": [[1, 1, 2, 2, 3]], "box": "ones"}],
    }
    mutate(record)
    from yambak.engine import RecordError

    with pytest.raises(RecordError) as info:
        replay(record)
    assert info.value.turn == turn
    assert str(info.value).startswith(f"turn {turn}:" if turn else "record:")


def test_record_round_trip_is_exact() -> None:
    for path in sorted(GOLDEN.glob("*.json")):
        case = json.loads(path.read_text())
        if "error" in case:
            continue
        state = replay(case["record"])
        dumped = state_to_record(state).to_dict()
        assert GameRecord.loads(json.dumps(dumped)).to_dict() == dumped
        assert replay(dumped).sheets == state.sheets
        assert dumped["rules"] == case["record"]["rules"]


def test_pending_turn_resumes_mid_turn() -> None:
    rules = load_ruleset("yamb")
    s = new_game(rules, ["A", "B"], seed=11)
    s = play(s, Roll(0), Announce(0, "announce.yam"), Roll(0, held=(0,)), Hold(0, (1,)))
    record = state_to_record(s).to_dict()
    assert record["pending"][0]["announce"] == "announce.yam"
    back = replay(record, dice=SeededDice(11))
    assert back.turns == s.turns and back.serial == s.serial
    assert play(back, Roll(0)).dice == play(s, Roll(0)).dice


def test_unfinished_duplicate_games_replay_with_seats_at_their_own_pace() -> None:
    rules = load_ruleset("yams")
    s = new_game(rules, ["A", "B", "C"], dice=DuplicateDice(4), simultaneous=True)
    for seat, turns in ((2, 3), (0, 1), (1, 2)):
        for _ in range(turns):
            s = play(s, Roll(seat))
            s = play(s, Score(seat, rules.box_id(s.legal_boxes(seat)[0])))
    record = state_to_record(s).to_dict()
    with pytest.raises(RecordError):
        replay(record)  # seat order cannot explain seat C being two turns ahead
    back = replay(record, dice=DuplicateDice(4), simultaneous=True)
    assert back.sheets == s.sheets and back.to_act() == [0, 1, 2]
    assert play(back, Roll(0)).turns[0].dice == play(s, Roll(0)).turns[0].dice


def test_announceable_boxes() -> None:
    s = manual("yammen")
    assert s.announceable() == []
    s = play(s, Roll(0, dice=(6, 6, 1, 2, 3)))
    assert len(s.announceable()) == 11 and all(b.startswith("annonce.") for b in s.announceable())
    s = play(s, Announce(0, "annonce.yam"))
    assert s.announceable() == []


def test_column_winners_follow_roll_offs() -> None:
    case = json.loads((GOLDEN / "yammen--rolloff-poot-seat1-second-round.json").read_text())
    state = replay(case["record"])
    winners = state.column_winners()
    assert winners["poot"] == [1] and winners["total"] == [0]
    shared = replay({**case["record"], "rolloffs": {}}).column_winners()
    assert shared["poot"] == [0, 1]


@pytest.mark.parametrize(
    "rolloffs, reason",
    [
        (
            {"poot": [{"0": [1, 1, 1, 1, 1], "1": [2, 2, 2, 2, 2]}, {"0": [6, 6, 6, 6, 6], "1": [1, 1, 1, 1, 1]}]},
            "round 2",
        ),
        ({"down": [{"0": [1, 1, 1, 1, 1], "1": [2, 2, 2, 2, 2]}]}, "expected no round"),
        ({"poot": [{"0": [1, 1, 1, 1, 1]}]}, "two or more seats"),
        ({"poot": [{"0": [1, 1, 1, 1, 1], "2": [6, 6, 6, 6, 6]}]}, "no seat"),
        ({"nowhere": [{"0": [1, 1, 1, 1, 1], "1": [2, 2, 2, 2, 2]}]}, "not a column id"),
    ],
)
def test_bad_rolloffs_are_refused_not_crashed_on(rolloffs, reason) -> None:  # type: ignore[no-untyped-def]
    from yambak.engine import RecordError

    case = json.loads((GOLDEN / "yammen--full-game-two-players.json").read_text())
    with pytest.raises(RecordError) as info:
        replay({**case["record"], "rolloffs": rolloffs})
    assert info.value.turn is None and reason in str(info.value)


def test_a_rolloff_round_must_be_rolled_by_the_tied_seats_only() -> None:
    from yambak.engine import RecordError

    # three players where two tie: a round naming the third is refused
    rules = load_ruleset("yammen")
    s = new_game(rules, ["A", "B", "C"], dice=ManualDice())
    record = state_to_record(s).to_dict()
    with pytest.raises(RecordError, match="finished column-points games only"):
        replay({**record, "rolloffs": {"total": [{"0": [1, 1, 1, 1, 1], "2": [6, 6, 6, 6, 6]}]}})


@pytest.mark.parametrize("preset", ["yams", "yammen", "yams-fr"])
def test_standings_place_every_seat_as_the_winners_are_chosen(preset):
    for seed in range(12):
        state = play_random(load_ruleset(preset), 3, seed)
        places = state.standings()
        assert {s for s, p in enumerate(places) if p == 1} == set(state.winners())
        keys = [((state.match_points() or [0] * 3)[s], state.total(s)) for s in range(3)]
        for a in range(3):
            for b in range(3):  # a better key, a better place; the same key, the same place
                assert (places[a] < places[b]) == (keys[a] > keys[b])
        assert sorted(places)[0] == 1 and all(p == 1 + sum(q < p for q in places) for p in places)


@pytest.mark.parametrize("preset", ["yams", "yammen"])
def test_the_ranking_lists_seats_by_place_and_turns_follow_seat_order(preset):
    for seed in range(6):
        state = play_random(load_ruleset(preset), 3, seed)
        places, ranking = state.standings(), state.ranking()
        assert sorted(ranking) == [0, 1, 2] and [places[s] for s in ranking] == sorted(places)
        assert [state.next_seat(s) for s in range(3)] == [1, 2, 0]
    state = new_game(load_ruleset("yams"), ["A", "B", "C"], dice=ManualDice())
    for seat, box in ((0, "chance"), (1, "chance"), (2, "chance"), (0, "sixes")):  # the next seat plays next
        assert state.current == seat
        state = play_turn(state, typed_turn(state, (1, 2, 3, 4, 6), 1, box))
        assert state.current == state.next_seat(seat)


def test_a_record_says_the_seat_of_every_turn():
    """A turn's seat is its `player` where the record says it, else seat order (a duplicate record's rounds too)."""
    state = play_random(load_ruleset("yams"), 3, seed=4, steps=40)
    record = state_to_record(state)
    bare = GameRecord.from_dict({**record.to_dict(), "turns": [
        {k: v for k, v in t.items() if k != "player"} for t in record.to_dict()["turns"]
    ]})  # fmt: skip
    seats = [t.player for t in state.history]
    assert [record.seat(n) for n in range(1, len(record.turns) + 1)] == seats
    assert [bare.seat(n) for n in range(1, len(bare.turns) + 1)] == seats
    # the round of a turn: its seat's how-manieth turn, as the players count it
    rounds = [seats[:n].count(seats[n - 1]) for n in range(1, len(seats) + 1)]
    assert [record.round(n) for n in range(1, len(record.turns) + 1)] == rounds
    assert rounds[:6] == [1, 1, 1, 2, 2, 2] and record.round(len(seats)) == state.sheets[seats[-1]].turns


def test_the_free_joker_scores_the_fixed_boxes_once_the_face_is_filled() -> None:
    """Yams with `joker = free` (docs/rules.md §6): a further yam may go in any open box, and the full house
    and the straights pay 25, 30 and 40 only once the upper box of that face is filled; +100 each time
    while the yam box holds 50."""
    s = manual("yams", joker="free")
    s = fill(s, 0, "yam", (4, 4, 4, 4, 4))  # 50
    s = play(s, Roll(0, dice=(4, 4, 4, 4, 4)))
    fours_open = s.preview()
    assert len(fours_open) == 12  # every open box is legal
    assert fours_open["free.ones"] == 0 and fours_open["free.fours"] == 20 and fours_open["free.chance"] == 20
    assert fours_open["free.full_house"] == fours_open["free.large_straight"] == 0  # five alike, fours open
    s = play(s, Score(0, "chance"))
    assert s.sheets[0].extra_bonus == 100
    s = fill(s, 0, "fours", (4, 4, 4, 4, 4))  # fours filled: the fixed boxes now pay
    assert s.sheets[0].extra_bonus == 200
    s = play(s, Roll(0, dice=(4, 4, 4, 4, 4)))
    fours_filled = s.preview()
    assert fours_filled["free.full_house"] == 25
    assert fours_filled["free.small_straight"] == 30 and fours_filled["free.large_straight"] == 40
    # a yam of another face whose upper box is open still scores them 0
    s = play(s, Score(0, "threes"))  # 0: threes filled with fours
    s = play(s, Roll(0, dice=(2, 2, 2, 2, 2)))
    assert s.preview()["free.full_house"] == 0 and s.preview()["free.small_straight"] == 0


def test_face_open_reads_the_one_columns_upper_box_of_that_face() -> None:
    rules = load_ruleset("yams", {"joker": "free"})
    written: list[int | None] = [None] * rules.n_boxes
    for row, value in (("twos", 4), ("fives", 0), ("three_kind", 17), ("chance", 22)):
        written[rules.box_index("free", row)] = value
    sheet = Sheet(written=tuple(written))
    assert [sheet.face_open(rules, face) for face in range(1, 7)] == [True, False, True, True, False, True]
    assert not any(Sheet(written=(0,) * rules.n_boxes).face_open(rules, face) for face in range(1, 7))
    assert all(Sheet.empty(rules).face_open(rules, face) for face in range(1, 7))


def test_the_extra_bonus_needs_a_yam_in_the_yam_box() -> None:
    """+100 for a further yam only while the yam box holds points: not while it is open, not after a 0 there,
    and never where the ruleset has no joker."""
    yams = load_ruleset("yams")
    yam = yams.box_index("free", "yam")
    written: list[int | None] = [None] * yams.n_boxes
    assert Sheet(written=tuple(written)).joker_extra(yams) == 0
    written[yam] = 0
    assert Sheet(written=tuple(written)).joker_extra(yams) == 0
    written[yam] = 50
    assert Sheet(written=tuple(written)).joker_extra(yams) == 100
    assert Sheet(written=tuple(written), voided=frozenset({yam})).joker_extra(yams) == 0
    yatzy = load_ruleset("yatzy")
    assert Sheet(written=(50,) * yatzy.n_boxes).joker_extra(yatzy) == 0
    # in play: a 0 in the yam box leaves the joker but pays nothing
    s = manual("yams")
    s = fill(s, 0, "yam", (1, 2, 3, 4, 6))
    s = fill(s, 0, "fives", (5, 5, 5, 5, 5))
    assert s.sheets[0].extra_bonus == 0 and s.total(0) == 25


# --- the sheet's arithmetic (engine/scoresheet.py, docs/rules.md §4-§6) ---------------


def sheet_of(rules, **boxes: int) -> Sheet:  # type: ignore[no-untyped-def]
    """A sheet with the named boxes ("column.row") written."""
    written: list[int | None] = [None] * rules.n_boxes
    for box, value in boxes.items():
        column, row = box.split("__")
        written[rules.box_index(column, row)] = value
    return Sheet(written=tuple(written))


def test_sums_the_upper_bonus_and_a_zeroed_entry_column_by_column() -> None:
    """yams-de: 20 bonus at 60. A min written 27 after a max of 25 was zeroed at entry (min < max): it keeps
    its written value and scores 0."""
    rules = load_ruleset("yams-de")
    base = sheet_of(
        rules, normal__ones=3, normal__twos=8, normal__threes=12, normal__fours=16, normal__fives=15,
        normal__sixes=6, normal__max=25, normal__min=27, down__fours=12,
    )  # fmt: skip
    min_box = rules.box_index("normal", "min")
    sheet = Sheet(written=base.written, voided=frozenset({min_box}))
    assert sheet.entry_score(min_box) == 0 and base.entry_score(min_box) == 27
    assert sheet.entry_score(rules.box_index("normal", "max")) == 25
    assert sheet.entry_score(rules.box_index("up", "max")) is None
    normal, down, up, oblige = column_scores(rules, sheet)
    assert (normal.upper, normal.bonus, normal.bonus_to_go) == (60, 20, 0)
    assert normal.boxes["min"] == 0 and normal.boxes["max"] == 25
    assert normal.total == 60 + 20 + 25 and normal.minimax is None and normal.folded == frozenset()
    assert (down.upper, down.bonus, down.bonus_to_go, down.total) == (12, 0, 48, 12)
    assert (up.bonus_to_go, up.total) == (oblige.bonus_to_go, oblige.total) == (60, 0)
    assert grand_total(rules, sheet) == 105 + 12
    assert grand_total(rules, base) == 105 + 27 + 12


def test_the_minimax_line_and_its_json() -> None:
    """yamb (30 bonus at 63): once ones, max and min of a column are filled it gains (max - min) x ones, which
    may be negative; max and min score nothing themselves, filled or not."""
    rules = load_ruleset("yamb")
    sheet = sheet_of(
        rules, down__ones=3, down__max=28, down__min=9, up__max=25, free__ones=2, free__max=12, free__min=20,
        announce__min=10,
    )  # fmt: skip
    down, up, free, announce = column_scores(rules, sheet)
    open_boxes: dict[str, int | None] = {row.id: None for row in rules.rows}
    assert down.boxes == open_boxes | {"ones": 3, "max": 0, "min": 0}
    assert (down.upper, down.bonus, down.bonus_to_go, down.minimax, down.total) == (3, 0, 60, 57, 3 + 57)
    assert down.folded == frozenset({"max", "min"})
    assert up.boxes == open_boxes | {"max": 0} and (up.minimax, up.total) == (None, 0)
    assert announce.boxes == open_boxes | {"min": 0} and (announce.minimax, announce.total) == (None, 0)
    assert (free.minimax, free.total) == ((12 - 20) * 2, 2 - 16)
    assert grand_total(rules, sheet) == 60 + 0 - 14 + 0
    assert down.to_dict(with_minimax=True) == {
        "boxes": open_boxes | {"ones": 3, "max": 0, "min": 0},
        "upper": 3,
        "bonus": 0,
        "minimax": 57,
        "total": 60,
    }
    assert down.to_dict(with_minimax=False) == {
        "boxes": open_boxes | {"ones": 3, "max": 0, "min": 0},
        "upper": 3,
        "bonus": 0,
        "total": 60,
    }
    assert up.to_dict(with_minimax=True)["minimax"] is None
    (yams,) = column_scores(load_ruleset("yams"), Sheet.empty(load_ruleset("yams")))
    assert yams.minimax is None and yams.folded == frozenset()


def test_one_sheet_totalled_under_two_rulesets_gets_each_ones_total() -> None:
    """The totals kept in a sheet's memo belong to the ruleset they were worked out under."""
    rows = [{"id": "sixes", "kind": "upper", "face": 6}, {"id": "chance", "kind": "sum"}]
    plain = load_ruleset({"rows": rows, "columns": [{"id": "a"}]})
    bonus = load_ruleset({"rows": rows, "columns": [{"id": "a"}], "upper_bonus": {"threshold": 24, "points": 10}})
    sheet = sheet_of(plain, a__sixes=24, a__chance=20)
    assert grand_total(plain, sheet) == 44
    assert grand_total(bonus, sheet) == 54
    assert grand_total(plain, sheet) == 44


def test_a_row_that_needs_another_scores_only_while_that_one_holds_points() -> None:
    """Generala's double generala needs the generala box to hold points."""
    rules = load_ruleset("generala")
    double = rules.box_index("free", "double_yam")
    chance_like = rules.box_index("free", "full_house")
    assert not Sheet.empty(rules).needed_scored(rules, double)
    assert not sheet_of(rules, free__yam=0).needed_scored(rules, double)
    assert sheet_of(rules, free__yam=50).needed_scored(rules, double)
    assert Sheet.empty(rules).needed_scored(rules, chance_like)


def test_the_extra_bonus_counts_in_the_match_total() -> None:
    """The extra bonus belongs to no column but counts in the grand total the total's points go to."""
    rules = load_ruleset("yammen")
    ahead = sheet_of(rules, down__ones=4)
    extra = Sheet(written=Sheet.empty(rules).written, extra_bonus=5)
    winners = column_winners(rules, [ahead, extra])
    assert winners["down"] == [0] and winners["free"] == [0, 1] and winners["total"] == [1]


def test_rolloff_rounds_after_the_tie_is_settled_change_nothing() -> None:
    assert settle_tie([0, 2], [{0: (6,), 2: (3,)}, {0: (1,)}]) == [0]
    assert settle_tie([1], [{1: (2,)}]) == [1]
    assert settle_tie([0, 1, 2], [{0: (5,), 1: (5,), 2: (4,)}]) == [0, 1]
