"""The terminal game: people type, bots take their seats' turns."""

from __future__ import annotations

from yambak.engine import SeededDice
from yambak.rules import load_ruleset
from yambak.terminal.game import GameSession


def test_person_against_bot_to_the_end() -> None:
    rules = load_ruleset("yams")
    s = GameSession(rules, ["Ann", "Bot"], {1: "greedy"}, dice=SeededDice(3), seed=3)
    assert s.handle("chance").startswith("Refused: roll the dice")
    out = s.handle("r")
    assert "roll 1  (2 left)" in out
    assert "[" in s.handle("h 1 2")
    assert "roll 2" in s.handle("r")
    assert s.handle("k 1 2 3 4 5").startswith("Refused: every die is held")
    assert s.handle("bogus words here").startswith("Not understood")
    turns = 0
    while not s.state.finished:
        s.handle("r")
        box = next(iter(s.state.preview()))
        out = s.handle(box)
        turns += 1
        assert "(bot)" in out or s.state.finished
    assert turns == 13 and "winner:" in s.view() and s.view().count("winner") == 1
    assert s.state.sheets[1].full
