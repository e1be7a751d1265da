"""Kept turns: final dice plus roll number score and check like the real turn."""

from __future__ import annotations

import pytest

from yambak.engine import (
    IllegalAction,
    ManualDice,
    RecordError,
    entry_boxes,
    entry_turn,
    new_game,
    play_turn,
    replay,
    scratch_turn,
    state_to_record,
    summary,
    typed_turn,
)
from yambak.rules import load_ruleset


def game(preset: str, players: int = 1):  # type: ignore[no-untyped-def]
    return new_game(load_ruleset(preset), [f"P{i}" for i in range(players)], dice=ManualDice())


def test_roll_number_matters_where_the_ruleset_cares() -> None:
    s = game("yamb")
    s = play_turn(s, typed_turn(s, (1, 2, 3, 4, 5), 2, "free.straight"))
    assert summary(s)["players"][0]["columns"]["free"]["boxes"]["straight"] == 56
    with pytest.raises(IllegalAction) as info:
        play_turn(s, typed_turn(s, (1, 2, 3, 4, 5), 2, "down.twos"))
    assert info.value.code == "illegal/box-order"
    y = game("yammen")
    with pytest.raises(IllegalAction) as info:
        play_turn(y, typed_turn(y, (1, 2, 3, 4, 5), 3, "poot.straight"))
    assert info.value.code == "illegal/box-rolls"
    y = play_turn(y, typed_turn(y, (6, 6, 6, 6, 2), 3, "annonce.sixes"))  # announced at the table
    assert y.history[-1].announce == "annonce.sixes" and y.total(0) == 24


def test_scratch_finds_dice_that_score_nothing() -> None:
    s = game("yams")
    turn = scratch_turn(s, "yam")
    s2 = play_turn(s, turn)
    assert s2.sheets[0].written[s.rules.box_index("free", "yam")] == 0
    # the record says the dice stand in for a scratch, and replays to the same sheet
    record = state_to_record(s2).to_dict()
    assert record["turns"][0]["scratch"] is True and replay(record).sheets == s2.sheets
    bad = {**record, "turns": [{**record["turns"][0], "rolls": [[6, 6, 6, 6, 6]]}]}
    with pytest.raises(RecordError) as info:
        replay(bad)  # five sixes score 50 in yam: not a scratch
    assert info.value.code == "illegal/no-scratch"
    with pytest.raises(IllegalAction) as info:
        scratch_turn(s, "chance")  # every roll scores in chance
    assert info.value.code == "illegal/no-scratch"
    y = game("yammen")
    assert (
        scratch_turn(y, "en_deux.full_house").rolls[0] != () and len(scratch_turn(y, "en_deux.full_house").rolls) == 2
    )


def test_bad_roll_numbers() -> None:
    s = game("yams")
    for bad in (0, 4, "2", True):
        with pytest.raises(IllegalAction):
            typed_turn(s, (1, 2, 3, 4, 5), bad, "chance")  # type: ignore[arg-type]


def test_fillable_boxes_by_roll_number() -> None:
    s = game("yammen")
    after1, after2, after3 = ({s.rules.box_id(b) for b in entry_boxes(s, r)} for r in (1, 2, 3))
    assert {"down.ones", "up.yam", "poot.sixes", "annonce.plus"} <= after1
    assert "en_deux.ones" not in after1 and "en_deux.ones" in after2 and "en_deux.ones" not in after3
    assert "poot.ones" not in after3 and "annonce.ones" in after3 and "down.twos" not in after3
    assert entry_boxes(s, 4) == [] and entry_boxes(s, 0) == []
    assert not {s.rules.box_id(b) for b in s.fillable(3)} & {b for b in after3 if b.startswith("annonce.")}
    # every box offered for a roll number takes a kept turn on some dice
    for roll, boxes in ((1, after1), (2, after2), (3, after3)):
        for box in boxes:
            play_turn(s, typed_turn(s, (1, 2, 3, 4, 6), roll, box))


def test_an_entry_turn_writes_the_value_asked_or_is_refused():
    state = new_game(load_ruleset("yamb"), ["A"], dice=ManualDice())
    for box, value in [("down.ones", 4), ("free.max", 28), ("free.straight", 56), ("announce.yam", 0)]:
        after = play_turn(state, entry_turn(state, box, value))
        assert after.sheets[0].written[state.rules.parse_box(box)] == value
    for box, value, why in [
        ("down.ones", 6, "no dice write 6"),
        ("down.twos", 2, "not next"),
        ("up.ones", 1, "not next"),
    ]:
        with pytest.raises(IllegalAction, match=why):
            entry_turn(state, box, value)
