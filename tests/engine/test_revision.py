"""Score-keeping corrections: undo, and changing a past entry re-checks what follows."""

from __future__ import annotations

import pytest

from yambak.engine import GameRecord, RecordError, replay, revise, summary
from yambak.engine.revision import undo

D = [1, 1, 2, 3, 4]


def kept_game() -> GameRecord:
    turns = [
        {"player": 0, "rolls": [D], "box": "down.ones"},  # 1
        {"player": 1, "rolls": [D], "box": "free.ones"},  # 2
        {"player": 0, "rolls": [[2, 2, 2, 5, 6]], "box": "down.twos"},  # 3
        {"player": 1, "rolls": [D], "box": "free.twos"},  # 4
        {"player": 0, "rolls": [[6, 6, 6, 1, 2]], "box": "free.sixes"},  # 5
        {"player": 1, "rolls": [D], "box": "free.threes"},  # 6
        {"player": 0, "rolls": [[3, 3, 1, 2, 4]], "box": "down.threes"},  # 7
        {"player": 1, "rolls": [D], "box": "free.fours"},  # 8
    ]
    return GameRecord.from_dict(
        {"format": "yambak-game/1", "rules": "yammen", "players": ["Ann", "Bram"], "seed": None, "turns": turns}
    )


def boxes(state, player: int, column: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return summary(state)["players"][player]["columns"][column]["boxes"]


def test_correcting_dice_rescores_everything_after() -> None:
    record = kept_game()
    rev = revise(record, 1, {"rolls": [[1, 1, 1, 3, 4]], "box": "down.ones"})
    assert rev.ok and rev.invalid == ()
    assert boxes(rev.state, 0, "down")["ones"] == 3
    assert rev.state.total(0) == replay(record).total(0) + 1
    assert rev.record.turns[0].rolls == ((1, 1, 1, 3, 4),) and rev.record.turns[1:] == record.turns[1:]


def test_correction_reports_exactly_the_entries_it_broke() -> None:
    record = kept_game()
    rev = revise(record, 1, {"rolls": [D], "box": "free.ones"})  # Ann's first entry moves out of `down`
    assert [(e.turn, e.code) for e in rev.invalid] == [(3, "illegal/box-order"), (7, "illegal/box-order")]
    # the sheet shows what is still legal: Ann's free.sixes stands, Bram is untouched
    assert boxes(rev.state, 0, "free")["sixes"] == 18 and boxes(rev.state, 0, "free")["ones"] == 2
    assert boxes(rev.state, 0, "down")["twos"] is None
    assert summary(rev.state)["players"][1] == summary(replay(record))["players"][1]
    # fixing the broken entries in turn makes the record whole again
    rev2 = revise(rev.record, 3, {"rolls": [[2, 2, 2, 5, 6]], "box": "down.ones"})
    assert [e.turn for e in rev2.invalid] == [7]
    rev3 = revise(rev2.record, 7, {"rolls": [[3, 3, 1, 2, 4]], "box": "down.twos"})
    assert rev3.ok and boxes(rev3.state, 0, "down")["twos"] == 2


def test_an_illegal_correction_changes_nothing() -> None:
    record = kept_game()
    with pytest.raises(RecordError) as info:
        revise(record, 3, {"rolls": [[2, 2, 2, 5, 6]], "box": "down.threes"})
    assert (info.value.turn, info.value.code) == (3, "illegal/box-order")
    with pytest.raises(RecordError):
        revise(record, 9, {"rolls": [D], "box": "free.fives"})
    with pytest.raises(RecordError) as info:
        revise(record, 2, {"player": 0, "rolls": [D], "box": "free.fives"})
    assert info.value.code == "illegal/not-your-turn"
    assert replay(record).sheets == replay(kept_game()).sheets


def test_undo_last_entries() -> None:
    record = kept_game()
    shorter = undo(record, 2)
    assert len(shorter.turns) == 6 and replay(shorter).current == 0
    with pytest.raises(RecordError):
        undo(record, 9)
