"""A record keeps the boxes a stand-in filled for a person (docs/rules.md §11 `stand_in`, issue 34): read back
exactly, named as the engine names boxes, and refused when they are not boxes that seat filled."""

from __future__ import annotations

import pytest

from yambak.engine import GameRecord, ManualDice, RecordError, Roll, Score, new_game, replay, state_to_record
from yambak.rules import load_ruleset
from yambak.server.tables.kind import apply_event


def _played():
    """Ann's ones, then Bram's twos: the stand-in's move for Bram marked as the live table logs it."""
    s = new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=ManualDice())
    for seat, dice, box, by_stand_in in ((0, (1, 1, 1, 2, 3), "ones", False), (1, (2, 2, 4, 5, 6), "twos", True)):
        s, _ = s.apply(Roll(seat, dice=dice))
        after, event = s.apply(Score(seat, box))
        data = event.to_dict()
        if by_stand_in:
            data["stand_in"] = True
        s = apply_event(s, data)  # the log applied again: a reload, or another process's copy
        assert s.history == after.history
    return s


def test_a_stand_in_entry_is_marked_and_kept_in_the_record():
    s = _played()
    assert s.stand_in == {(1, "free.twos")}
    record = state_to_record(s).to_dict()
    assert record["stand_in"] == [[1, "free.twos"]]
    assert replay(GameRecord.from_dict(record)).stand_in == s.stand_in
    record["stand_in"] = [[1, "twos"]]  # a one-column sheet's bare row id, as a record may name it
    assert replay(GameRecord.from_dict(record)).stand_in == s.stand_in


@pytest.mark.parametrize(
    "marks",
    [[[0, "free.twos"]], [[1, "free.sixes"]], [[1, "nope"]], [[2, "free.twos"]], [[True, "free.twos"]], [[1]], "x"],
)
def test_a_mark_that_is_not_a_box_that_seat_filled_is_refused(marks):
    record = state_to_record(_played()).to_dict()
    record["stand_in"] = marks
    with pytest.raises(RecordError):
        replay(GameRecord.from_dict(record))
