"""Undo takes back the last thing done on a kept sheet (`yambak.keeper.edits`), whoever did it: an entry,
a correction or a roll-off round, and the sheet notes what was undone. The issue: after a correction,
undo removed an earlier roll-off instead of the correction."""

from __future__ import annotations

import json
from functools import cache

import pytest

from yambak.engine import ManualDice, new_game, replay
from yambak.engine.record import GameRecord
from yambak.keeper import Refusal, apply_entry, fix_options, preview, record_dict, rolloffs_due, sheet_view, zero_boxes
from yambak.keeper.browser import call
from yambak.keeper.edits import last_action
from yambak.rules import load_ruleset


def _dice(state, d, box, roll=1):
    p = state.current
    entry = {"kind": "dice", "seat": p, "filled": state.sheets[p].turns, "dice": d, "roll": roll, "box": box}
    return apply_entry(state, entry)


@cache
def _tied_yammen():
    """A finished yammen sheet where both players scored alike everywhere: every column is rolled off."""
    s = new_game(load_ruleset("yammen"), ["Ann", "Bram"], dice=ManualDice())
    while not s.finished:
        p = s.current
        zeros = [b for b, o in zero_boxes(s)["boxes"].items() if o["legal"]]
        if zeros:
            s = apply_entry(s, {"kind": "scratch", "seat": p, "box": zeros[0]})
            continue
        for roll in (1, 2):
            legal = [b for b, o in preview(s, [1, 1, 1, 2, 2], roll)["boxes"].items() if o["legal"]]
            if legal:
                s = _dice(s, [1, 1, 1, 2, 2], legal[0], roll)
                break
    return s


def _undo(state):
    return apply_entry(state, {"kind": "undo", "count": 1})


def test_undo_after_a_correction_takes_back_the_correction_not_the_earlier_roll_off():
    s = _tied_yammen()
    assert s.history[0].box == "down.ones" and s.history[0].scratch  # Ann's first entry: a 0
    rolled = apply_entry(s, {"kind": "rolloff", "target": "free", "rolloff": {"0": [2] * 5, "1": [5] * 5}})
    assert last_action(rolled) == {"kind": "rolloff", "target": "free"}
    points = rolled.match_points()
    # Ann's first entry corrected to three ones: down and the total are hers; free's roll-off stands
    fixed = apply_entry(rolled, {"kind": "fix", "turn": 1, "box": "down.ones", "dice": [1, 1, 1, 2, 2], "roll": 1})
    assert last_action(fixed) == {"kind": "correction", "n": 1, "player": 0, "turn": 1}
    assert fixed.match_points() != points
    back = _undo(fixed)  # the correction goes, the roll-off stays
    assert back.history[0].scratch and back.rolloffs == rolled.rolloffs and back.match_points() == points
    assert last_action(back) == {"kind": "rolloff", "target": "free"}
    view = sheet_view(back)
    assert view["last"] == {"kind": "rolloff", "target": "free"}
    assert view["undone"] == [{"kind": "correction", "n": 1, "player": 0, "turn": 1, "at": len(s.history)}]
    again = _undo(back)  # then the roll-off
    assert again.rolloffs == () and rolloffs_due(again) == rolloffs_due(s)
    last = len(s.history)
    assert last_action(again) == {"kind": "entry", "n": last, "player": 1, "turn": last // 2}
    third = _undo(again)  # then the last entry
    assert len(third.history) == last - 1 and [u["kind"] for u in sheet_view(third)["undone"]] == [
        "correction",
        "rolloff",
        "entry",
    ]


def test_a_correction_that_dropped_a_roll_off_brings_it_back_when_undone():
    s = _tied_yammen()
    won = apply_entry(s, {"kind": "rolloff", "target": "down", "rolloff": {"0": [6] * 5, "1": [1] * 5}})
    fixed = apply_entry(won, {"kind": "fix", "turn": 1, "box": "down.ones", "dice": [1, 1, 1, 2, 2], "roll": 1})
    assert fixed.rolloffs == ()  # down is no longer tied: its roll-off is dropped
    back = _undo(fixed)
    assert back.rolloffs == won.rolloffs and back.match_points() == won.match_points()


def test_entries_after_a_correction_go_first_and_the_edits_survive_the_record():
    s = _dice(new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=ManualDice()), [6] * 5, "sixes")
    s = _dice(s, [1] * 5, "ones")
    fixed = apply_entry(s, {"kind": "fix", "turn": 1, "box": "yam", "dice": [6] * 5, "roll": 1})
    later = _dice(fixed, [2, 2, 2, 3, 3], "full_house")
    assert last_action(later) == {"kind": "entry", "n": 3, "player": 0, "turn": 2}
    reloaded = replay(GameRecord.from_dict(json.loads(json.dumps(record_dict(later)))))  # stored and read back
    assert last_action(reloaded) == last_action(later) and reloaded.edits == later.edits
    back = _undo(_undo(reloaded))  # the entry, then the correction
    assert back.history[0].box == "free.sixes" and len(back.history) == 2
    with pytest.raises(Refusal) as exc:
        apply_entry(back, {"kind": "undo", "count": 3})  # two entries are left: nothing is changed
    assert exc.value.code == "keeper/nothing-to-undo" and exc.value.extra["available"] == 2


def test_a_record_from_before_edits_still_undoes_its_roll_off_first():
    won = apply_entry(_tied_yammen(), {"kind": "rolloff", "target": "up", "rolloff": {"0": [6] * 5, "1": [1] * 5}})
    old = record_dict(won)
    del old["edits"]  # as stored before sheets kept their edits
    state = replay(GameRecord.from_dict(old))
    assert last_action(state) == {"kind": "rolloff", "target": "up"}
    assert _undo(state).rolloffs == ()


def test_the_phones_engine_names_the_same_last_thing():
    s = _dice(new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=ManualDice()), [6] * 5, "sixes")
    sheet = {"id": "s1", "record": record_dict(s), "v": 1}
    queue = [{"id": "q1", "kind": "fix", "turn": 1, "box": "yam", "dice": [6] * 5, "roll": 1}]
    answer = json.loads(call(json.dumps({"op": "view", "sheet": sheet, "queue": queue})))
    assert answer["view"]["last"] == {"kind": "correction", "n": 1, "player": 0, "turn": 1}
    queue.append({"id": "q2", "kind": "undo", "count": 1})
    answer = json.loads(call(json.dumps({"op": "view", "sheet": sheet, "queue": queue})))
    assert answer["view"]["history"][0]["box"] == "free.sixes" and answer["view"]["undone"][0]["kind"] == "correction"


def test_an_undo_takes_back_only_what_its_button_named():
    """Two phones show "Undo Bram's turn 1"; the first undoes it, the second's undo reaches the sheet after it.
    Naming what it meant, the second is refused and changes nothing (unnamed, it took back Ann's turn 1)."""
    s = new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=ManualDice())
    s = _dice(s, [1, 1, 1, 2, 2], "ones")
    s = _dice(s, [6, 6, 6, 2, 2], "sixes")
    named = last_action(s)
    assert named == {"kind": "entry", "n": 2, "player": 1, "turn": 1}
    first = apply_entry(s, {"kind": "undo", "count": 1, "last": named})
    assert len(first.history) == 1 and first.history[0].box == "free.ones"
    with pytest.raises(Refusal) as refused:
        apply_entry(first, {"kind": "undo", "count": 1, "last": named})
    assert refused.value.code == "stale/undo"
    assert len(_undo(first).history) == 0  # what the unnamed undo does
    fields = {"kind": "entry", "n": 2, "player": 1, "turn": 1, "target": None}  # as the phone sends it
    assert len(apply_entry(s, {"kind": "undo", "count": 1, "last": fields}).history) == 1
    with pytest.raises(Refusal):
        apply_entry(s, {"kind": "undo", "count": 1, "last": {**fields, "player": 0}})


def test_a_correction_of_a_rolled_off_sheet_is_previewed_without_its_roll_offs():
    """The roll-offs belong to the end: the sheet before entry 1 had none, and the dice give what they give."""
    s = _tied_yammen()
    rolled = apply_entry(s, {"kind": "rolloff", "target": "free", "rolloff": {"0": [2] * 5, "1": [5] * 5}})
    fix = fix_options(rolled, 1, [1, 1, 1, 2, 2], 1)
    assert fix["turn"] == 1 and fix["seat"] == 0
    assert fix["boxes"]["down.ones"] == {"legal": True, "written": 3, "gain": 3}


def test_a_roll_offs_dice_are_checked_for_every_tied_player():
    s = _tied_yammen()
    n = s.rules.rolloff_dice
    with pytest.raises(Refusal) as missing:  # Bram's dice left out
        apply_entry(s, {"kind": "rolloff", "target": "down", "rolloff": {"0": [6] * n}})
    assert (missing.value.code, missing.value.message) == (
        "input/invalid",
        "a roll-off gives the dice of every tied player",
    )
    assert missing.value.extra == {"seats": [0, 1]}
    for bram in ([6] * (n - 1), 6, [7] + [6] * (n - 1), [0] + [6] * (n - 1)):  # too few, not a list, off the die
        with pytest.raises(Refusal) as bad:
            apply_entry(s, {"kind": "rolloff", "target": "down", "rolloff": {"0": [6] * n, "1": bram}})
        assert (bad.value.code, bad.value.message) == ("input/dice", f"a roll-off is {n} dice, each 1 to 6"), bram
        assert bad.value.extra == {"n": n}


def test_an_undos_refusals_say_what_changed_and_what_is_left():
    s = new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=ManualDice())
    s = _dice(s, [1, 1, 1, 2, 2], "ones")
    s = _dice(s, [6, 6, 6, 2, 2], "sixes")
    stale = {"code": "stale/undo", "message": "the last thing done changed on another phone: nothing was undone"}
    for named in ({"kind": "entry", "n": 1}, {"kind": "entry", "player": 0}, "entry", ["entry"]):
        with pytest.raises(Refusal) as refused:
            apply_entry(s, {"kind": "undo", "count": 1, "last": named})
        assert (refused.value.to_dict(), refused.value.status) == (stale, 409), named
    empty = new_game(load_ruleset("yams"), ["Ann"], dice=ManualDice())
    with pytest.raises(Refusal) as refused:  # nothing done yet: whatever the button named is gone
        apply_entry(empty, {"kind": "undo", "count": 1, "last": {"kind": "entry", "n": 1}})
    assert refused.value.to_dict() == stale
    with pytest.raises(Refusal) as refused:
        apply_entry(s, {"kind": "undo", "count": 3})
    left = {"code": "keeper/nothing-to-undo", "message": "there are 2 entries to undo", "available": 2}
    assert (refused.value.to_dict(), refused.value.status) == (left, 422)
    both = apply_entry(s, {"kind": "undo", "count": 2, "last": {"kind": "entry", "n": 2, "player": 1}})
    assert both.history == () and both.current == 0 and both.totals() == [0, 0]


def test_roll_offs_are_due_only_for_ties_at_the_end_of_a_column_points_game_that_rolls_them_off():
    def played(ties: str, chances: list[list[int]]):  # type: ignore[no-untyped-def]
        data = {
            "rows": [{"id": "chance", "kind": "sum"}],
            "columns": [{"id": "a", "points": 2}, {"id": "b", "points": 3}],
            "match": {"kind": "column_points", "total_points": 1, "ties": ties},
        }
        s = new_game(load_ruleset(data), [f"P{i}" for i in range(len(chances))], dice=ManualDice())
        for turn in range(2):
            for seat in range(len(chances)):
                s = _dice(s, [1, 1, 1, 1, chances[seat][turn]], "ab"[turn] + ".chance")
        return s

    assert rolloffs_due(played("rolloff", [[2, 5], [2, 5]])) == {"a": [0, 1], "b": [0, 1], "total": [0, 1]}
    assert rolloffs_due(played("rolloff", [[2, 5], [2, 6], [2, 1]])) == {"a": [0, 1, 2]}  # b and the total: P1's
    assert rolloffs_due(played("rolloff", [[2, 6], [3, 5]])) == {"total": [0, 1]}
    assert rolloffs_due(played("rolloff", [[2, 5]])) == {}  # one player: nobody to roll off against
    assert rolloffs_due(played("share", [[2, 5], [2, 5]])) == {}  # shared, not rolled off
    unfinished = apply_entry(played("rolloff", [[2, 5], [2, 5]]), {"kind": "undo", "count": 1})
    assert rolloffs_due(unfinished) == {}  # not over yet
    totals = new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=ManualDice())
    for row in totals.rules.rows:
        totals = _dice(_dice(totals, [1, 2, 3, 4, 6], row.id), [1, 2, 3, 4, 6], row.id)
    assert totals.finished and totals.totals()[0] == totals.totals()[1] and rolloffs_due(totals) == {}


def test_a_roll_off_round_is_logged_in_the_records_edits():
    """docs: keeper/edits.py's log: `{"rolloff": TARGET, "at": T}`, T the turns on the sheet; an undo replaces it
    with its note."""
    s = _tied_yammen()
    turns = len(s.history)
    rolled = apply_entry(s, {"kind": "rolloff", "target": "free", "rolloff": {"0": [2] * 5, "1": [5] * 5}})
    edits = record_dict(rolled)["edits"]
    assert edits[-1] == {"rolloff": "free", "at": turns}
    after = record_dict(_undo(rolled))["edits"]
    assert after[: len(edits) - 1] == edits[:-1] and not any("rolloff" in e for e in after[len(edits) - 1 :])


def test_a_sheet_whose_corrections_cannot_be_read_refuses_an_undo_with_the_records_own_words():
    s = _dice(new_game(load_ruleset("yams"), ["Ann"], dice=ManualDice()), [6, 6, 6, 1, 2], "sixes")
    record = record_dict(s) | {"edits": [{"fix": 1, "at": 1, "was": {"box": "nope"}}]}  # a correction's old entry
    with pytest.raises(Refusal) as refused:
        apply_entry(replay(record), {"kind": "undo", "count": 1})
    assert (refused.value.to_dict(), refused.value.status) == (
        {"code": "sheet/broken", "message": "this sheet's list of corrections cannot be read"},
        422,
    )
