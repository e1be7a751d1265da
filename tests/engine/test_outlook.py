"""The outlook says exactly what `apply` would do: over random positions of every ruleset variant,
each box's legality and refusal code, what it writes and adds, its pair effects and the turn's
roll/announce/withdraw answers are checked against the engine applying the action itself."""

from __future__ import annotations

import random

import pytest

from tests.conftest import RULE_VARIANTS, play_random, variant_id
from yambak.engine import Action, Announce, GameState, IllegalAction, ManualDice, Roll, Score, Withdraw, new_game
from yambak.rules import load_ruleset


def _attempt(state, action):  # type: ignore[no-untyped-def]
    try:
        return state.apply(action), None
    except IllegalAction as exc:
        return None, exc.code


def _check(state, p):  # type: ignore[no-untyped-def]
    outlook = state.outlook(p)
    total = state.total(p)
    for b in outlook.boxes:
        assert state.box_outlook(b.box, p) == b  # one box alone, as a score-keeper asks
        applied, code = _attempt(state, Score(p, b.box))
        assert b.legal == (applied is not None), (b.box, code)
        if not b.legal:
            assert b.code == code and b.written is None and b.gain is None
            continue
        after, event = applied
        assert b.written == event.written and b.gain == after.total(p) - total
        # the gain scores only the box's column again: the whole sheet's columns, summed, say the same
        assert after.total(p) == sum(c.total for c in after.column_scores(p)) + after.sheets[p].extra_bonus
        assert b.extra_bonus == event.extra_bonus == after.sheets[p].extra_bonus - state.sheets[p].extra_bonus
        box = state.rules.parse_box(b.box)
        assert b.voids_entry == (box in after.sheets[p].voided) == b.voids_entry_at(event.written)
        assert b.zeroes_pair == b.zeroes_pair_at(event.written)
        assert b.strike == (state.rules.strike_any and event.written > 0)
        if b.strike:
            struck, _ = state.apply(Score(p, b.box, strike=True))
            assert b.strike_gain == struck.total(p) - total
            assert b.voids_entry_at(0) == (box in struck.sheets[p].voided)
        ci, ri = divmod(box, state.rules.n_rows)
        if b.zeroes_pair:  # both rows of the pair score 0 after the entry
            high, low = b.pair
            scores = after.column_scores(p)[ci].boxes
            assert scores[high] == 0 and scores[low] == 0
    rolled, code = _attempt(state, Roll(p))
    assert outlook.can_roll == (rolled is not None) and outlook.roll_code == code
    for b in outlook.boxes:
        assert b.announce == (_attempt(state, Announce(p, b.box))[0] is not None), b.box
    assert outlook.can_withdraw == (_attempt(state, Withdraw(p))[0] is not None)
    if outlook.must_announce:
        assert code == "illegal/dead-end" and any(b.announce for b in outlook.boxes)


@pytest.mark.parametrize("variant", RULE_VARIANTS, ids=variant_id)
def test_outlook_matches_apply_on_random_positions(variant) -> None:  # type: ignore[no-untyped-def]
    preset, options = variant
    rules = load_ruleset(preset, options)
    rng = random.Random(variant_id(variant))
    checked = 0
    for seed in range(4):
        state = play_random(rules, 2, seed=seed, steps=rng.randrange(0, 5 * rules.n_boxes))
        if state.finished:
            continue
        for p in range(2):  # the seat to act, and the other (refused with its code)
            _check(state, p)
        checked += 1
    assert checked >= 2


def test_joker_and_extra_bonus_show_on_the_boxes() -> None:
    rules = load_ruleset("yams")
    state = new_game(rules, ["Ann"], dice=ManualDice())
    for dice, box in (((6, 6, 6, 6, 6), "yam"), ((2, 3, 3, 3, 3), "threes")):
        state, _ = state.apply(Roll(0, dice=dice))
        state, _ = state.apply(Score(0, box))
    state, _ = state.apply(Roll(0, dice=(3, 3, 3, 3, 3)))  # threes is filled: the joker opens the lower boxes
    outlook = state.outlook(0)
    legal = {b.box.split(".")[1]: b for b in outlook.legal}
    assert "ones" not in legal and legal["full_house"].written == 25 and legal["large_straight"].written == 40
    assert all(b.joker for b in legal.values()) and legal["chance"].gain == 15 + 100
    assert all(b.extra_bonus == 100 for b in legal.values()) and legal["chance"].to_dict()["gain"] == 115
    refused = outlook.box("free.ones")
    assert refused.code == "illegal/joker" and refused.reason and "joker" in refused.reason


def test_roll_matters_where_the_column_or_row_says() -> None:
    yammen = load_ruleset("yammen")
    outlook = new_game(yammen, ["Ann"]).outlook(0)
    matters = {b.box.split(".")[0] for b in outlook.boxes if b.roll_matters}
    assert matters == {"poot", "en_deux", "annonce"} and yammen.roll_matters
    yamb = new_game(load_ruleset("yamb"), ["Ann"]).outlook(0)
    assert {b.box for b in yamb.boxes if b.roll_matters and not b.box.startswith("announce.")} == {
        "down.straight",
        "up.straight",
        "free.straight",
    }
    assert not load_ruleset("yams").roll_matters


def _refusal(state: GameState, action: Action) -> tuple[str, str]:
    """The code and message the engine refuses `action` with."""
    with pytest.raises(IllegalAction) as refused:
        state.apply(action)
    return refused.value.code, refused.value.message


def _yams_fr_with_min(dice: tuple[int, ...]) -> GameState:
    """French Yams, one player: min (free column) written with 1+1+2+2+3 = 9, then `dice` rolled."""
    state = new_game(load_ruleset("yams-fr"), ["Ann"], dice=ManualDice())
    state, _ = state.apply(Roll(0, dice=(1, 1, 2, 2, 3)))
    state, _ = state.apply(Score(0, "free.min"))
    state, _ = state.apply(Roll(0, dice=dice))
    return state


def test_a_max_equal_to_min_zeroes_the_pair_and_one_above_does_not() -> None:
    """docs/rules.md §5: max must be higher than min. 9 in max against min's 9 scores both 0 (the 9 of min is
    lost: -9); 10 is higher and adds 10. The boundary is where a `<` for `<=` would hide the warning."""
    level = _yams_fr_with_min((1, 1, 2, 2, 3)).outlook(0).box("free.max")
    assert level.legal and level.written == 9 and level.gain == -9
    assert level.zeroes_pair and level.pair == ("max", "min")
    assert level.zeroes_pair_at(9) and not level.zeroes_pair_at(10)
    above = _yams_fr_with_min((1, 1, 2, 3, 3)).outlook(0).box("free.max")
    assert above.legal and above.written == 10 and above.gain == 10
    assert not above.zeroes_pair and above.pair is None


def test_a_min_equal_to_max_zeroes_the_pair_and_one_below_does_not() -> None:
    """The same pair from the other side: max written first with 1+1+2+2+3 = 9, then min: 9 zeroes both, 8 not."""
    for dice, written, zeroes in (((1, 1, 2, 2, 3), 9, True), ((1, 1, 1, 2, 3), 8, False)):
        state = new_game(load_ruleset("yams-fr"), ["Ann"], dice=ManualDice())
        state, _ = state.apply(Roll(0, dice=(1, 1, 2, 2, 3)))
        state, _ = state.apply(Score(0, "free.max"))
        state, _ = state.apply(Roll(0, dice=dice))
        low = state.box_outlook("free.min", 0)
        assert low.written == written and low.zeroes_pair is zeroes
        assert low.gain == (-9 if zeroes else written)
        assert low.zeroes_pair_at(9) and not low.zeroes_pair_at(8)


def test_the_outlook_as_json_says_what_each_box_would_do() -> None:
    """What the server and the phone send (`to_dict`): a legal box with its value, gain, strike, pair and bounds;
    a box refused with the engine's own code and message; a filled box, neither legal nor explained."""
    state = _yams_fr_with_min((1, 1, 2, 2, 3))
    outlook = state.outlook(0)
    assert outlook.box("free.max").to_dict() == {
        "open": True,
        "legal": True,
        "written": 9,
        "gain": -9,
        "strike_gain": -9,  # struck for 0: still not above min's 9
        "pair": ["max", "min"],
        "zeroes_pair": True,
        "strike": True,
        "bounds": [
            {
                "effect": "zeroes-pair",
                "below": True,
                "limit": 9,
                "relation": "max_gt_min",
                "last_resort": False,
                "pair": ["max", "min"],
            }
        ],
    }
    code, reason = _refusal(state, Score(0, "down.twos"))  # the down column fills from the top
    assert outlook.box("down.twos").to_dict() == {"open": True, "legal": False, "code": code, "reason": reason}
    assert outlook.box("free.min").to_dict() == {"open": False, "legal": False}
    with pytest.raises(KeyError, match="free.nothing"):
        outlook.box("free.nothing")


def test_a_fresh_turns_outlook_as_json() -> None:
    state = new_game(load_ruleset("yams-fr"), ["Ann", "Bram"], dice=ManualDice())
    outlook = state.outlook(1)  # Bram waits for Ann
    withdraw = _attempt(state, Withdraw(1))[0] is not None
    roll_code, roll_reason = _refusal(state, Roll(1))
    as_json = outlook.to_dict()
    assert roll_code == "illegal/not-your-turn" and as_json == {
        "player": 1,
        "to_act": False,
        "rolls": 0,
        "rolls_left": 3,
        "can_roll": False,
        "roll_code": roll_code,
        "roll_reason": roll_reason,
        "must_announce": False,
        "closing": [],
        "can_withdraw": withdraw,
        "announced": None,
        "boxes": {b.box: b.to_dict() for b in outlook.boxes},
    }
    boxes = as_json["boxes"]
    assert isinstance(boxes, dict) and list(boxes) == [state.rules.box_id(b) for b in range(state.rules.n_boxes)]
