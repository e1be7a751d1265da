"""The odds behind a trainer answer: for a keep, the chance of making each combination by the end of the
turn holding those dice with the rolls left (`strategy.calculator`, the strategy page's calculator:
exact, re-keeping optimally for each row alone); a sum row (chance, max, min) gives its expected best
sum instead. A box or an announcement ends the rolling or names one box: no odds (None).

`keep_odds` is the hook `grade` takes (`grade(puzzle, choice, odds=keep_odds)`).
"""

from __future__ import annotations

from ..rules import Ruleset
from .puzzle import KeepOdds, Puzzle, PuzzleOption, RowOdds, ruleset_of

__all__ = ["keep_odds"]


def _column(ruleset: Ruleset) -> str | None:
    """A column a keep plays on with the turn's every roll (a dry or poot column allows fewer)."""
    return next((c.id for c in ruleset.columns if c.rolls is None), None)


def keep_odds(puzzle: Puzzle, option: PuzzleOption) -> KeepOdds | None:
    """The chances behind a keep (see the module's note); None for a box, an announcement, or a turn the
    calculator does not cover (a roll spent from saved rolls: the figures are for the turn's own rolls)."""
    if option.choice.kind != "keep":
        return None
    from ..strategy.chance import calculator  # numpy and the solver's lattice: loaded with the first odds

    ruleset = ruleset_of(puzzle)
    left = ruleset.rolls_per_turn - puzzle.roll  # the roll the keep is for counts
    column = _column(ruleset)
    if column is None:
        return None
    try:
        figures = calculator(ruleset, option.choice.keep, left, column)
    except ValueError:
        return None
    sums = {r.id for r in ruleset.rows if r.kind == "sum"}
    rows: list[RowOdds] = [
        {"row": row, "expected_sum": round(value, 4)} if row in sums else {"row": row, "chance": round(value, 6)}
        for row, value in figures.items()
    ]
    return {"keep": [*option.choice.keep], "rolls_left": left, "rows": rows}
