"""Taking back the last entry before the next roll (tables that allow it)."""

from __future__ import annotations

import pytest

from yambak.engine import Event, IllegalAction, Roll, Score, Undo, new_game, replay, state_to_record
from yambak.rules import load_ruleset


def _scored():
    state = new_game(load_ruleset("yams"), ["Ann", "Bram"], seed=3)
    state, _ = state.apply(Roll(0))
    state, _ = state.apply(Roll(0, held=(0, 1)))
    before = state
    state, _ = state.apply(Score(0, "chance"))
    return before, state


def test_undo_restores_the_turn_as_it_was():
    before, after = _scored()
    back, event = after.apply(Undo(0))
    assert back == before and back.turns[0].dice == before.turns[0].dice and back.current == 0
    assert event.type == "undone" and event.box == "free.chance" and event.to_action() == Undo(0)
    again, _ = back.apply(Score(0, "sixes"))
    assert state_to_record(again).to_dict()["turns"][0]["box"] == "free.sixes"
    assert replay(state_to_record(again).to_dict()).sheets == again.sheets


@pytest.mark.parametrize("who", [1])
def test_only_the_player_who_wrote_it_before_the_next_roll(who):
    _, after = _scored()
    with pytest.raises(IllegalAction) as info:
        after.apply(Undo(who))
    assert info.value.code == "illegal/no-undo"
    rolled, _ = after.apply(Roll(1))
    assert not rolled.can_undo(0)
    with pytest.raises(IllegalAction):
        rolled.apply(Undo(0))
    fresh = new_game(load_ruleset("yams"), ["Ann"])
    assert not fresh.can_undo(0)


def test_an_undo_event_replays_through_its_action():
    _, after = _scored()
    back, event = after.apply(Undo(0))
    assert Event.from_dict(event.to_dict()) == event
    replayed, _ = after.apply(Event.from_dict(event.to_dict()).to_action())
    assert replayed == back
