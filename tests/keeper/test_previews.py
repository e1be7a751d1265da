"""The kept sheet's previews are the engine's outlook (issue 31). On random positions of every preset, every
box the phone previews for typed dice, or for a 0 without dice, says exactly what the engine's outlook says of
that entry in the position the entry is made in, reached here by the engine's own actions; and the outlook's
answer is held to the engine applying the entry: the value written, the change of the total, a pair zeroed
(both rows of a max/min pair then score 0), the entry voided, the joker's extra. The phone asks through
`keeper.browser.call` (JSON in, JSON out, as Pyodide does); the server's preview route returns these same
functions' answers (server/routes/keeper.py, tests/server/test_keeper.py)."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from yambak.engine import Announce, GameState, IllegalAction, ManualDice, Roll, TurnRecord, entry_boxes, new_game
from yambak.engine.outlook import BoxOutlook
from yambak.keeper import apply_entry, preview, record_dict, zero_boxes
from yambak.keeper.browser import call
from yambak.keeper.entries import zero_turn
from yambak.rules import load_ruleset, preset_ids

POSITIONS = 6  # per preset, spread over a game: a few seconds in all


def _position(state: GameState, rolls: tuple[tuple[int, ...], ...], announce: str | None) -> GameState:
    """The position an entry is made in, by the engine's actions: each typed roll rolled, an announce box
    announced after roll 1 (at the table, before rolling on)."""
    p = state.current
    for i, dice in enumerate(rolls):
        if i == 1 and announce is not None:
            state, _ = state.apply(Announce(p, announce))
        state, _ = state.apply(Roll(p, dice=dice))
    return state


def _typed(state: GameState, dice: list[int], roll: int, box: str) -> TurnRecord:
    rules = state.rules
    index = rules.parse_box(box)
    assert index is not None
    announce = box if rules.columns[index // rules.n_rows].announce and roll > 1 else None
    return TurnRecord(state.current, (tuple(dice),) * roll, box, announce)


def _pair_zeroed(state: GameState, after: GameState, box: str) -> bool:
    """Whether the entry left both rows of a max/min pair (max_gt_min) scoring 0, its partner filled before."""
    rules, p = state.rules, state.current
    index = rules.parse_box(box)
    assert index is not None
    ci, ri = divmod(index, rules.n_rows)
    row = rules.rows[ri].id
    scores = after.column_scores(p)[ci].boxes
    for rel in rules.relations:
        if rel.kind == "max_gt_min" and row in (rel.high, rel.low):
            partner = rel.low if row == rel.high else rel.high
            filled = state.sheets[p].written[ci * rules.n_rows + rules.row_index[partner]] is not None
            if filled and scores[row] == 0 and scores[partner] == 0:
                return True
    return False


def _expected(o: BoxOutlook, *, struck: bool = False) -> dict[str, Any]:
    """What the phone should show of a legal entry, read off the engine's outlook of its position."""
    out: dict[str, Any] = {"legal": True}
    if struck:
        out.update(written=0, gain=o.strike_gain, strike=True)
        zeroes, voids = o.zeroes_pair_at(0), o.voids_entry_at(0)
    else:
        out.update(written=o.written, gain=o.gain)
        if o.strike:
            out.update(strike=True, strike_gain=o.strike_gain)
        zeroes, voids = o.zeroes_pair, o.voids_entry
    if zeroes:
        out["zeroes_pair"] = True
    if voids:
        out["voids_entry"] = True
    if o.extra_bonus:
        out["extra_bonus"] = o.extra_bonus
    return out


def _held_to_the_engine(state: GameState, shown: dict[str, Any], box: str, after: GameState) -> None:
    """The numbers and warnings shown, against the entry the engine applied."""
    rules, p = state.rules, state.current
    index = rules.parse_box(box)
    assert index is not None
    assert shown["written"] == after.sheets[p].written[index], box
    assert shown["gain"] == after.total(p) - state.total(p), box
    assert shown.get("extra_bonus", 0) == after.sheets[p].extra_bonus - state.sheets[p].extra_bonus, box
    assert shown.get("voids_entry", False) == (index in after.sheets[p].voided), box
    assert shown.get("zeroes_pair", False) == _pair_zeroed(state, after, box), box


def _check_dice(state: GameState, dice: list[int], roll: int) -> dict[str, Any]:
    shown = preview(state, dice, roll)
    p = state.current
    open_boxes = [state.rules.box_id(b) for b, w in enumerate(state.sheets[p].written) if w is None]
    assert shown["seat"] == p and sorted(shown["boxes"]) == sorted(open_boxes)
    outlooks, refused = {}, None  # every box but an announced one is scored in the same position
    try:
        outlooks = {b.box: b for b in _position(state, (tuple(dice),) * roll, None).outlook(p).boxes}
    except IllegalAction as exc:
        refused = exc.code
    for box, o in shown["boxes"].items():
        turn = _typed(state, dice, roll, box)
        try:
            if turn.announce is None and refused is not None:
                raise IllegalAction(refused, "")
            position = _position(state, turn.rolls, turn.announce) if turn.announce else None
        except IllegalAction as exc:
            assert o == {"legal": False, "code": exc.code}, box
            continue
        expected = position.outlook(p).box(box) if position is not None else outlooks[box]
        if not expected.legal:
            assert o == {"legal": False, "code": expected.code}, box
            continue
        assert o == _expected(expected), box
        after = apply_entry(state, {"kind": "dice", "seat": p, "filled": state.sheets[p].turns, "dice": dice,
                                    "roll": roll, "box": box})  # fmt: skip
        _held_to_the_engine(state, o, box, after)
        if o.get("strike"):
            struck = apply_entry(state, {"kind": "dice", "seat": p, "filled": state.sheets[p].turns, "dice": dice,
                                         "roll": roll, "box": box, "strike": True})  # fmt: skip
            assert o["strike_gain"] == struck.total(p) - state.total(p), box
    return shown


def _check_zeros(state: GameState) -> dict[str, Any]:
    shown = zero_boxes(state)
    rules, p = state.rules, state.current
    open_boxes = [rules.box_id(b) for b, w in enumerate(state.sheets[p].written) if w is None]
    assert shown["seat"] == p and sorted(shown["boxes"]) == sorted(open_boxes)  # refused ones too
    fillable = {rules.box_id(b) for r in range(1, rules.rolls_per_turn + 1) for b in entry_boxes(state, r, p)}
    for box, o in shown["boxes"].items():
        if box not in fillable:
            assert o == {"legal": False, "code": "illegal/box-order"}, box
            continue
        try:
            turn = zero_turn(state, box)  # the stand-in dice of a 0 (a scratch, or a strike where nothing scores 0)
            expected = _position(state, turn.rolls, turn.announce).outlook(p).box(box)
        except IllegalAction as exc:
            assert o == {"legal": False, "code": exc.code}, box
            continue
        if not expected.legal:
            assert o == {"legal": False, "code": expected.code}, box
            continue
        assert o == _expected(expected, struck=turn.strike), box
        after = apply_entry(state, {"kind": "scratch", "seat": p, "box": box})
        _held_to_the_engine(state, o, box, after)
    return shown


def _as_the_phone_asks(state: GameState, op: str, **extra: Any) -> dict[str, Any]:
    answer = json.loads(call(json.dumps({"op": op, "sheet": {"id": "s", "record": record_dict(state)}, **extra})))
    assert answer.pop("ok") is True, answer
    return dict(answer)


def _dice(rng: random.Random, n: int) -> list[int]:
    """Dice that often make something: a yam, a run, a full house, or any dice."""
    kind = rng.randrange(5)
    if kind == 0:
        return [rng.randint(1, 6)] * n
    if kind == 1:
        return rng.sample(range(1, 7), n)
    if kind == 2:
        return [rng.randint(1, 6)] * 3 + [rng.randint(1, 6)] * (n - 3)
    return [rng.randint(1, 6) for _ in range(n)]


@pytest.mark.parametrize("preset", sorted(preset_ids()))
def test_every_box_preview_is_the_engines_outlook(preset: str) -> None:
    rules = load_ruleset(preset)
    rng = random.Random(f"previews {preset}")
    every = max(1, 2 * rules.n_boxes // POSITIONS)  # entries between two checked positions
    checked = entries = 0
    state = new_game(rules, ["Ann", "Bram"], dice=ManualDice())
    while checked < POSITIONS:
        if state.finished:  # a game won outright (Generala) ends early: another one
            state = new_game(rules, ["Ann", "Bram"], dice=ManualDice())
        p = state.current
        dice, roll = _dice(rng, rules.rolled_dice), rng.randint(1, state.rolls_allowed())
        if entries % every == 0:
            shown = _check_dice(state, dice, roll)
            assert _as_the_phone_asks(state, "preview", dice=dice, roll=roll) == shown
            zeros = _check_zeros(state)
            assert _as_the_phone_asks(state, "zero") == zeros
            checked += 1
        else:
            shown = preview(state, dice, roll)
        legal = [b for b, o in shown["boxes"].items() if o["legal"]]
        if legal and rng.random() < 0.85:
            entry = {"kind": "dice", "seat": p, "filled": state.sheets[p].turns, "dice": dice, "roll": roll}
            state = apply_entry(state, {**entry, "box": rng.choice(legal)})
        else:
            blanks = [b for b, o in zero_boxes(state)["boxes"].items() if o["legal"]]
            if not blanks:
                continue  # neither these dice nor a 0 fit (a roll number the boxes left refuse): other dice
            state = apply_entry(state, {"kind": "scratch", "seat": p, "box": rng.choice(blanks)})
        entries += 1


def _enter(state: GameState, dice: list[int], box: str) -> GameState:
    p = state.current
    return apply_entry(state, {"kind": "dice", "seat": p, "filled": state.sheets[p].turns, "dice": dice, "box": box})


def test_the_jokers_extra_shows_on_the_boxes_it_opens() -> None:
    state = _enter(new_game(load_ruleset("yams"), ["Ann"], dice=ManualDice()), [6] * 5, "yam")
    shown = _check_dice(state, [3] * 5, 1)["boxes"]  # a further yam, the yam box holding one
    assert shown["free.threes"] == {"legal": True, "written": 15, "gain": 15 + 100, "extra_bonus": 100}
    assert [b for b, o in shown.items() if o["legal"]] == ["free.threes"]  # the joker sends it to the upper box


def test_a_struck_zero_warns_that_it_zeroes_the_pair() -> None:
    """French Yams: a 0 without dice in max, min filled with 9, strikes max and zeroes both (min's 9 is lost)."""
    state = _enter(new_game(load_ruleset("yams-fr"), ["Ann"], dice=ManualDice()), [1, 1, 2, 2, 3], "free.min")
    zeros = _check_zeros(state)["boxes"]
    assert zeros["free.max"] == {"legal": True, "written": 0, "gain": -9, "strike": True, "zeroes_pair": True}
    typed = _check_dice(state, [1, 1, 1, 2, 3], 1)["boxes"]["free.max"]  # 8 in max, under min's 9
    assert typed["zeroes_pair"] and typed["gain"] == -9 and typed["strike_gain"] == -9


def test_a_struck_zero_against_a_struck_partner_zeroes_the_pair() -> None:
    """Min struck for 0, then max struck for 0 too: max is not above min (0 <= 0), so the pair is zeroed; the
    warning is the outlook's for a 0, not for any other value (a 1 in max would be above min's 0)."""
    state = new_game(load_ruleset("yams-fr"), ["Ann"], dice=ManualDice())
    state = apply_entry(state, {"kind": "scratch", "seat": 0, "box": "free.min"})
    zeros = _check_zeros(state)["boxes"]
    assert zeros["free.max"] == {"legal": True, "written": 0, "gain": 0, "strike": True, "zeroes_pair": True}


def test_a_struck_zero_under_min_warns_that_it_is_voided() -> None:
    """German Yams with a house rule that lets any box be struck: max struck for 0 with min at 1+1+2+2+3 = 9
    is not above min, so the entry is voided (it scores 0 either way, and the phone says why)."""
    rules = dataclasses.replace(load_ruleset("yams-de"), strike_any=True)
    state = _enter(new_game(rules, ["Ann"], dice=ManualDice()), [1, 1, 2, 2, 3], "normal.min")
    zeros = _check_zeros(state)["boxes"]
    assert zeros["normal.max"] == {"legal": True, "written": 0, "gain": 0, "strike": True, "voids_entry": True}
