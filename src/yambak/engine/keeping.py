"""Score-keeping for real dice: whole turns typed after the fact.

At a real table nobody types every roll. A kept turn is the final dice, the roll
number they came on (where the ruleset cares: poot, dry, en deux, hand, yamb
straights, announcements) and the box. The record stores such a turn as the
final dice repeated once per roll: only the final dice and the number of rolls
can change a score, so the record scores and checks exactly like the real turn.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations, combinations_with_replacement

from ..rules.model import Column, Row, Ruleset
from ..rules.scoring import row_score
from .errors import IllegalAction, shown
from .record import play_turn
from .state import GameState, TurnRecord

__all__ = ["entry_boxes", "typed_turn", "scratch_turn", "entry_turn", "play_turn"]


def entry_boxes(state: GameState, roll: int, player: int | None = None) -> list[int]:
    """The boxes a kept entry after roll `roll` could fill, before the dice are known: what the sheet
    could take right after that roll, and after a later roll an announce column's boxes too (such an
    entry was announced at the table after roll 1, as `typed_turn` reads it). The dice may still rule
    some out."""
    rules = state.rules
    if not 1 <= roll <= rules.rolls_per_turn:
        return []
    boxes = set(state.fillable(roll, player))
    if roll > 1:
        boxes.update(b for b in state.fillable(1, player) if rules.columns[b // rules.n_rows].announce)
    return sorted(boxes)


def typed_turn(
    state: GameState, dice: tuple[int, ...] | list[int], roll: object, box: str, strike: bool = False
) -> TurnRecord:
    """The current player's turn ending in `box` with `dice` on roll `roll`."""
    rules = state.rules
    last = state.rolls_allowed()  # saved rolls (Maxi Yatzy) allow more
    if not isinstance(roll, int) or isinstance(roll, bool) or not 1 <= roll <= last:
        raise IllegalAction("illegal/no-rolls-left", f"the roll number is 1 to {last}, not {shown(roll)}")
    index = rules.parse_box(box)
    if index is None:
        raise IllegalAction("illegal/box-unknown", f"there is no box {shown(box)} on this sheet")
    column = rules.columns[index // rules.n_rows]
    # An announce box filled after roll 1 was announced at the table.
    announce = rules.box_id(index) if column.announce and roll > 1 else None
    rolls = tuple(tuple(dice) for _ in range(roll))
    return TurnRecord(state.current, rolls, rules.box_id(index), announce, strike)


def _box(rules: Ruleset, box: str) -> tuple[int, Column, Row]:
    """A box named on the sheet: its index, column and row (refused when there is no such box)."""
    index = rules.parse_box(box)
    if index is None:
        raise IllegalAction("illegal/box-unknown", f"there is no box {shown(box)} on this sheet")
    return index, rules.columns[index // rules.n_rows], rules.rows[index % rules.n_rows]


def scratch_turn(state: GameState, box: str) -> TurnRecord:
    """A 0 in `box` when the dice do not matter: the first dice that score nothing there,
    on the first roll number the column allows. Refused where no dice score 0."""
    rules = state.rules
    index, column, row = _box(rules, box)
    roll = column.rolls or 1
    for dice in combinations_with_replacement(range(1, 7), rules.rolled_dice):
        if all(row_score(row, five, roll) for five in combinations(dice, rules.dice)):
            continue  # every five these dice could count scores here (the joker only adds): never a 0
        turn = typed_turn(state, dice, roll, box)
        try:
            after = play_turn(state, turn)
        except IllegalAction:
            continue
        if after.sheets[state.current].written[index] == 0:
            return replace(turn, scratch=True)
    raise IllegalAction("illegal/no-scratch", f"{rules.box_id(index)} cannot be scratched: every roll scores there")


def entry_turn(state: GameState, box: str, value: int) -> TurnRecord:
    """A turn of the player to enter that writes `value` in `box`: the first dice and roll number
    the engine accepts for it (a position typed in as "box=value", as a score sheet shows it).
    Refused where no dice write that value there now (a value the row cannot score, or a box the
    column's order or roll rules keep closed)."""
    if value == 0:
        return scratch_turn(state, box)
    rules = state.rules
    index, column, row = _box(rules, box)
    last = IllegalAction("illegal/value", f"no dice write {shown(value)} in {rules.box_id(index)}")
    for roll in [column.rolls] if column.rolls else range(1, rules.rolls_per_turn + 1):
        for dice in combinations_with_replacement(range(1, 7), rules.rolled_dice):
            if not any(row_score(row, five, roll) == value for five in combinations(dice, rules.dice)):
                continue  # the engine may add a joker, never more: only dice that can give `value`
            turn = typed_turn(state, dice, roll, box)
            try:
                after = play_turn(state, turn)
            except IllegalAction as exc:
                last = exc
                continue
            if after.sheets[state.current].written[index] == value:
                return turn
    raise last
