"""The optimal bot: plays the exact strategy table of `yambak.solver` (single-column rulesets).

The table is solved on first use (seconds) and then loaded from the solver's
cache. Rulesets the solver refuses are not `solvable`; `optimal` then plays
the strong heuristic instead.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import lru_cache
from itertools import chain

from ..engine import Action, GameState, Roll, Score
from ..rules import Ruleset
from ..solver import Advice, Choice, Position, Strategy, UnsupportedRuleset, advise, solve, table_states
from .baseline import greedy
from .expectimax import held_positions, heuristic

__all__ = ["optimal", "solvable", "strategy_for"]


# A bot must answer within a moment even on its first move: tables larger than this
# (yams-fr with max/min: 29M slots, ~20 s and ~600 MiB to solve) are left to the heuristic.
MAX_BOT_TABLE_STATES = 5_000_000


@lru_cache(maxsize=16)
def _solvable(rules: Ruleset) -> bool:
    try:
        return table_states(rules) <= MAX_BOT_TABLE_STATES
    except UnsupportedRuleset:
        return False


def solvable(rules: Ruleset) -> bool:
    if rules.match.kind == "category_points":  # the table maximises pips; such a game counts other points
        return False
    try:
        return _solvable(rules)
    except TypeError:
        return False


@lru_cache(maxsize=8)
def strategy_for(rules: Ruleset) -> Strategy:
    return solve(rules, lean=True)  # the float32 copy, mapped: shared by every process


def optimal(state: GameState, player: int, rng: random.Random) -> Action:
    rules = state.rules
    if not solvable(rules):
        return heuristic(state, player, rng)
    turn = state.turns[player]
    if not turn.rolls:
        return Roll(player)
    sheet = state.sheets[player]
    filled = {rules.rows[i].id: int(v) for i, v in enumerate(sheet.written) if v is not None}
    dice = tuple(int(d) for d in turn.dice)
    position = Position(
        filled=filled,
        dice=dice,
        roll=len(turn.rolls),
        held=tuple(dice[i] for i in sorted(turn.held)),
        extra_bonus=int(sheet.extra_bonus),
    )
    advice = advise(strategy_for(rules), position)
    best = advice.best
    assert best is not None
    legal = set(state.legal_boxes(player))
    if best.keep is not None and state.can_roll(player):
        return Roll(player, held=held_positions(dice, best.keep))
    # the best box, else the next: `advice.boxes` is made only when the best is not one the engine allows
    for choice in chain((best,) if best.box is not None else (), _boxes(advice)):
        box = rules.parse_box(choice.box or "")
        if box in legal:
            box_id = rules.box_id(box)
            strike = choice.points == 0 and state.outlook(player).box(box_id).strike  # the plan's 0 by a strike
            return Score(player, box_id, strike=strike)
    return greedy(state, player, rng)


def _boxes(advice: Advice) -> Iterator[Choice]:
    yield from advice.boxes  # read (made) only when the loop gets here
