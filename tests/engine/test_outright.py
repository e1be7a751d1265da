"""Outright wins (docs/rules.md §7): one field, `GameState.outright`, in the record and the results; with
the same dice for everyone every seat plays the winning turn before the game ends."""

from __future__ import annotations

import pytest

from yambak.engine import IllegalAction, ManualDice, Roll, Score, new_game, replay, state_to_record, summary
from yambak.engine.dice import DuplicateDice
from yambak.engine.state import GameState, Outright
from yambak.rules import load_ruleset

GENERALA = load_ruleset("generala")


def _turn(state: GameState, seat: int, dice: tuple[int, ...], box: str) -> GameState:
    state, _ = state.apply(Roll(seat, dice=dice))
    state, _ = state.apply(Score(seat, box))
    return state


def _table(players: int = 2) -> GameState:
    """A duplicate table: every seat plays its own turns at its own pace."""
    return new_game(GENERALA, [f"P{i}" for i in range(players)], dice=ManualDice(), simultaneous=True)


def test_a_duplicate_table_waits_for_every_seat_to_play_the_winning_turn() -> None:
    state = _turn(_table(), 0, (2, 2, 2, 2, 2), "yam")  # seat 0 serves a generala on turn 1
    assert state.outright == Outright((0,), 1, "free.yam")
    assert not state.finished and state.to_act() == [1]
    with pytest.raises(IllegalAction) as info:
        state.apply(Roll(0, dice=(1, 2, 3, 4, 5)))
    assert info.value.code == "illegal/outright-wait"
    assert state.outlook(0).roll_code == "illegal/outright-wait"
    end = _turn(state, 1, (2, 2, 2, 2, 2), "twos")  # the same dice, another box: seat 0 alone won
    assert end.finished and end.winners() == [0] and end.standings() == [1, 2]
    both = _turn(state, 1, (2, 2, 2, 2, 2), "yam")  # seat 1 serves it too: they share the win
    assert both.finished and both.outright == Outright((0, 1), 1, "free.yam") and both.winners() == [0, 1]
    assert summary(both)["outright"] == {"seats": [0, 1], "turn": 1, "box": "free.yam"}


def test_a_seat_ahead_keeps_its_turns_and_the_earliest_win_counts() -> None:
    state = _table()
    for dice, box in (((1, 1, 2, 3, 4), "ones"), ((2, 2, 3, 4, 6), "twos"), ((5, 5, 5, 5, 5), "yam")):
        state = _turn(state, 1, dice, box)  # seat 1 plays three turns ahead, the third served
    assert state.outright == Outright((1,), 3, "free.yam") and not state.finished
    assert state.to_act() == [0]
    state = _turn(state, 0, (3, 3, 4, 5, 6), "threes")
    state = _turn(state, 0, (6, 6, 6, 6, 6), "yam")  # seat 0's turn 2: served, earlier than seat 1's turn 3
    assert state.outright == Outright((0,), 2, "free.yam")
    assert state.finished and state.winners() == [0] and state.total(1) == 2 + 4 + 50
    # the record lists turns round by round, not in the order they were played: the replay agrees
    record = state_to_record(state)
    assert record.to_dict()["outright"] == {"seats": [0], "turn": 2, "box": "free.yam"}
    again = replay(record.to_dict(), simultaneous=True)
    assert again.outright == state.outright and again.sheets == state.sheets and again.finished


def test_sequential_play_ends_at_once_and_old_records_still_replay() -> None:
    state = new_game(GENERALA, ["A", "B"], dice=ManualDice())
    state = _turn(state, 0, (4, 4, 4, 4, 4), "yam")
    assert state.finished and state.winners() == [0] and state.outright == Outright((0,), 1, "free.yam")
    old = state_to_record(state).to_dict()
    del old["outright"]  # a record written before the field: the turns say it all the same
    assert replay(old).outright == state.outright


@pytest.mark.parametrize(
    "bad",
    [5, {"seats": [0], "turn": 1}, {"seats": [], "turn": 1, "box": "yam"}, {"seats": [2], "turn": 1, "box": "x"}],
)
def test_a_malformed_outright_is_refused(bad: object) -> None:
    state = _turn(new_game(GENERALA, ["A", "B"], dice=ManualDice()), 0, (4, 4, 4, 4, 4), "yam")
    record = {**state_to_record(state).to_dict(), "outright": bad}
    with pytest.raises(Exception, match="outright is null or") as info:
        replay(record)
    assert getattr(info.value, "code", None) == "record/invalid"


def test_duplicate_dice_with_turns_taken_in_order_let_the_next_seat_play_the_winning_turn() -> None:
    """`yambak duel` deals the same dice to seats that take turns: the second seat gets the first seat's
    served generala too, and may share the win with it (docs/rules.md §7)."""
    state = new_game(GENERALA, ["A", "B"], dice=DuplicateDice(2053), seed=2053)  # turn 1, roll 1: 4 4 4 4 4
    state, _ = state.apply(Roll(0))
    assert state.turns[0].dice == (4, 4, 4, 4, 4)
    state, _ = state.apply(Score(0, "yam"))
    assert not state.finished and state.to_act() == [1] and state.outright == Outright((0,), 1, "free.yam")
    state, _ = state.apply(Roll(1))
    assert state.turns[1].dice == (4, 4, 4, 4, 4)  # the same dice
    shared, _ = state.apply(Score(1, "yam"))
    assert shared.finished and shared.winners() == [0, 1]
    alone, _ = state.apply(Score(1, "fours"))
    assert alone.finished and alone.winners() == [0] and alone.total(1) == 5 * 4
