"""The record's optional `held` (docs/rules.md §11): what a player kept before each reroll."""

from __future__ import annotations

import pytest

from yambak.engine import Hold, RecordError, Roll, Score, new_game, replay, state_to_record
from yambak.rules import load_ruleset


def _live_turn():
    state = new_game(load_ruleset("yams"), ["Ann"], seed=5)
    state, first = state.apply(Roll(0))
    state, _ = state.apply(Hold(0, (0, 2)))
    state, second = state.apply(Roll(0))
    state, third = state.apply(Roll(0, held=(1,)))
    state, _ = state.apply(Score(0, "chance"))
    return state, first.dice, second.dice


def test_live_play_records_the_values_kept_before_each_reroll():
    state, first, second = _live_turn()
    turn = state_to_record(state).to_dict()["turns"][0]
    assert turn["held"] == [sorted([first[0], first[2]]), [second[1]]]
    again = replay(state_to_record(state).to_dict())
    assert state_to_record(again).to_dict() == state_to_record(state).to_dict()


def test_records_without_held_stay_without_it():
    record = {
        "format": "yambak-game/1",
        "rules": "yams",
        "players": ["A"],
        "turns": [{"rolls": [[1, 2, 3, 4, 6], [1, 2, 3, 4, 5]], "box": "large_straight"}],
    }
    assert "held" not in state_to_record(replay(record)).to_dict()["turns"][0]


def _record(rolls, held):
    return {
        "format": "yambak-game/1",
        "rules": "yams",
        "players": ["A"],
        "turns": [{"rolls": rolls, "held": held, "box": "chance"}],
    }


def test_kept_dice_may_be_listed_anywhere_in_the_next_roll():
    state = replay(_record([[6, 1, 6, 2, 3], [1, 1, 6, 6, 4]], [[6, 6]]))
    assert state_to_record(state).to_dict()["turns"][0]["held"] == [[6, 6]]
    assert state.total(0) == 18


@pytest.mark.parametrize(
    "rolls,held,code",
    [
        ([[6, 1, 6, 2, 3], [6, 6, 1, 1, 4]], [[5]], "illegal/held-changed"),  # 5 was not rolled
        ([[6, 1, 6, 2, 3], [1, 1, 2, 4, 3]], [[6]], "illegal/held-changed"),  # the kept 6 is gone
        ([[6, 1, 6, 2, 3], [6, 1, 6, 2, 3]], [[6, 6, 1, 2, 3]], "illegal/all-held"),  # nothing rolled
        ([[6, 1, 6, 2, 3], [6, 6, 1, 1, 4]], [], "record/invalid"),  # one list per reroll
        ([[6, 1, 6, 2, 3], [6, 6, 1, 1, 4]], [["6"]], "record/invalid"),
    ],
)
def test_held_that_does_not_fit_the_rolls_is_refused(rolls, held, code):
    with pytest.raises(RecordError) as info:
        replay(_record(rolls, held))
    assert info.value.code == code and info.value.turn == 1
