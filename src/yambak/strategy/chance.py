"""The odds of every box: the chance of making its combination within 1, 2, 3 rolls when playing for it
alone from a fresh turn, exact, by dynamic programming over kept dice (`solver.dice.Lattice`).

*Making* a box means it would score more than 0 if filled on an empty sheet (`rules.scoring.row_score`,
the one copy of the rules); an upper box needs at least three of its face. A box that takes any dice
(`sum` rows: chance, max, min) has no chance: its figure is the expected best sum, maximised, or
minimised for the low row of a relation (Yamb's min). Where six dice are rolled and five count
(`six_dice`), a hand makes a box when some five of its dice do.

The turn is an expectimax with a 0/1 (or sum) terminal: after each roll the player may stop (the box
may be filled now) or hold any dice and roll the rest; keeping every die counts as standing. A column
fillable only right after roll r (dry: r = 1) gets r figures. Saved rolls (Maxi Yatzy) are not counted in
`chances`: they are for a fresh turn of the ruleset's rolls, and `BoxOdds.saved` adds the figures of a
turn that spends 1 to SAVED_SHOWN saved rolls more.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations

import numpy as np

from ..rules import Ruleset
from ..rules.model import Row
from ..rules.scoring import row_score
from ..solver import dice as D

__all__ = ["SAVED_SHOWN", "BoxOdds", "box_ids", "calculator", "low_rows", "odds", "turn_stages"]

SAVED_SHOWN = 3  # saved rolls a turn spends, in the figures of rulesets that save rolls


@dataclass(frozen=True)
class BoxOdds:
    """One box's figures: `chances[k - 1]` the chance of making it within k rolls (a `sum` box: the
    expected best sum instead, `expected_sum` True; `minimise` for a low row)."""

    box: str  # the box id as `yambak hint` names it (the row id on a one-column sheet)
    row: str
    column: str
    chances: tuple[float, ...]
    expected_sum: bool = False
    minimise: bool = False
    saved: tuple[float, ...] = ()  # where rolls are saved: within rolls + 1 .. rolls + SAVED_SHOWN, with saved rolls


def box_ids(ruleset: Ruleset) -> list[str]:
    """Every box id in sheet order, as the advisor and `hint` name them."""
    if len(ruleset.columns) == 1:
        return [r.id for r in ruleset.rows]
    return [ruleset.box_id(i) for i in range(ruleset.n_boxes)]


def low_rows(ruleset: Ruleset) -> frozenset[str]:
    """The rows whose best sum is the lowest (the low row of a max/min relation: Yamb's min)."""
    return frozenset(rel.low for rel in ruleset.relations)


def _rolls_of(ruleset: Ruleset, column_rolls: int | None) -> int:
    return ruleset.rolls_per_turn if column_rolls is None else min(column_rolls, ruleset.rolls_per_turn)


def _terminal(ruleset: Ruleset, row_id: str, roll: int) -> np.ndarray:
    """`_hands_worth` after roll number `roll`, computed once for rows whose points do not depend on it."""
    row = ruleset.rows[ruleset.row_index[row_id]]
    return _hands_worth(ruleset, row_id, roll if isinstance(row.points, tuple) else 0)


@cache
def _hands_worth(ruleset: Ruleset, row_id: str, roll: int) -> np.ndarray:
    """Per full hand of the rolled dice (the lattice's full level): 1.0 where the hand makes the box
    after roll number `roll`, else 0.0; for a sum row the best counted sum (the lowest for a low row)."""
    row: Row = ruleset.rows[ruleset.row_index[row_id]]
    L = D.lattice(ruleset.rolled_dice)
    low = row_id in low_rows(ruleset)
    out = np.zeros(L.N_ROLLS)
    for r in range(L.N_ROLLS):
        hand = L.MULTISETS[L.FULL + r]
        counted = set(combinations(hand, ruleset.dice))  # the dice that may count (all of them, or five of six)
        if row.kind == "sum":
            sums = [sum(c) for c in counted]
            out[r] = min(sums) if low else max(sums)
        elif row.kind == "upper":
            out[r] = float(hand.count(row.face) >= 3)
        else:
            out[r] = float(any(row_score(row, c, max(roll, 1)) > 0 for c in counted))
    return out


@dataclass(frozen=True)
class _Turn:
    first: float  # the figure from a fresh turn
    before: tuple[np.ndarray, ...]  # before[j - 1][keep]: the figure holding `keep` before roll j (j = 1..rolls)


@cache
def turn_stages(ruleset: Ruleset, row_id: str, rolls: int) -> _Turn:
    """The expectimax of playing for one row in a turn of `rolls` rolls (see the module's note)."""
    L = D.lattice(ruleset.rolled_dice)
    row = ruleset.rows[ruleset.row_index[row_id]]
    sign = -1.0 if row.kind == "sum" and row_id in low_rows(ruleset) else 1.0
    full = slice(L.FULL, L.FULL + L.N_ROLLS)
    best = sign * _terminal(ruleset, row_id, rolls)  # the hand's worth after the last roll
    before: list[np.ndarray] = []
    for j in range(rolls, 0, -1):
        x = np.zeros(len(L.MULTISETS))
        x[full] = best
        L.down(x)  # every keep: the mean over the dice rolled to complete it
        before.append(sign * x)
        if j > 1:
            L.up(x)  # every hand: its best keep (all of it = stand)
            best = np.maximum(sign * _terminal(ruleset, row_id, j - 1), x[full])
    before.reverse()
    return _Turn(first=float(before[0][0]), before=tuple(before))


def odds(ruleset: Ruleset) -> list[BoxOdds]:
    """Every box's figures within 1..r rolls (r the column's rolls), in sheet order."""
    ids = box_ids(ruleset)
    lows = low_rows(ruleset)
    out = []
    for c, column in enumerate(ruleset.columns):
        rolls = _rolls_of(ruleset, column.rolls)
        for i, row in enumerate(ruleset.rows):
            chances = tuple(turn_stages(ruleset, row.id, k).first for k in range(1, rolls + 1))
            more = range(rolls + 1, rolls + SAVED_SHOWN + 1) if ruleset.save_rolls and column.rolls is None else ()
            saved = tuple(turn_stages(ruleset, row.id, k).first for k in more)
            is_sum = row.kind == "sum"
            out.append(
                BoxOdds(
                    box=ids[c * ruleset.n_rows + i],
                    row=row.id,
                    column=column.id,
                    chances=chances,
                    expected_sum=is_sum,
                    minimise=is_sum and row.id in lows,
                    saved=saved,
                )
            )
    return out


def calculator(ruleset: Ruleset, kept: tuple[int, ...], rolls_left: int, column: str | None = None) -> dict[str, float]:
    """Holding `kept` with `rolls_left` rolls to go in a turn of the column's rolls: each row's chance of
    being made by the end of the turn (a sum row: its expected best sum), re-keeping optimally for
    that row alone. Raises ValueError for dice or rolls the ruleset cannot have."""
    if column is not None and column not in ruleset.column_index:
        raise ValueError(f"no column {column!r}")
    col = ruleset.columns[ruleset.column_index[column]] if column is not None else ruleset.columns[0]
    rolls = _rolls_of(ruleset, col.rolls)
    n = ruleset.rolled_dice
    if not 1 <= rolls_left <= rolls:
        raise ValueError(f"rolls left must be 1 to {rolls}")
    if len(kept) >= n or any(not isinstance(d, int) or not 1 <= d <= D.FACES for d in kept):
        raise ValueError(f"keep fewer than {n} dice, each 1 to {D.FACES}")
    if rolls_left == rolls and kept:
        raise ValueError("nothing is held before the first roll")
    L = D.lattice(n)
    k = L.keep_index(kept)
    return {row.id: float(turn_stages(ruleset, row.id, rolls).before[rolls - rolls_left][k]) for row in ruleset.rows}
