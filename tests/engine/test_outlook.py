"""The outlook says exactly what `apply` would do: over random positions of every ruleset variant,
each box's legality and refusal code, what it writes and adds, its pair effects and the turn's
roll/announce/withdraw answers are checked against the engine applying the action itself."""

from __future__ import annotations

import random

import pytest

from tests.conftest import RULE_VARIANTS, play_random, variant_id
from yambak.engine import Announce, IllegalAction, ManualDice, Roll, Score, Withdraw, new_game
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
