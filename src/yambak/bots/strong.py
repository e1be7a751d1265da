"""The strong bot: the best play available for the ruleset.

The exact strategy table where the solver handles the ruleset with a table
small enough to solve in a moment (`optimal.py`); in column-points games with
opponents, the match-aware expectimax (`match.py`); else the turn expectimax
with the fitted value model (`expectimax.py`); in category-points games (Balut) the
expectimax valuing boxes in expected category points (`category.py`).
"""

from __future__ import annotations

import random

from ..engine import Action, GameState
from .category import category_terms
from .expectimax import heuristic
from .match import match_aware
from .models import model_for
from .optimal import optimal, solvable

__all__ = ["category_aware", "strong"]


def category_aware(state: GameState, player: int, rng: random.Random) -> Action:
    """The turn expectimax valuing boxes in expected category points (`category.py`)."""
    model = model_for(state.rules)
    gain, key, _ = category_terms(state, player, model)
    return heuristic(state, player, rng, gain_fn=gain, key_extra=key, model=model)


def strong(state: GameState, player: int, rng: random.Random) -> Action:
    """Optimal play where the exact solver applies, else the heuristic expectimax
    (match-aware in column-points games with opponents, playing for category points in such games)."""
    if state.rules.match.kind == "category_points":  # the exact table maximises pips; these games count points
        return category_aware(state, player, rng)
    if solvable(state.rules):
        return optimal(state, player, rng)
    if state.rules.match.kind == "column_points" and len(state.players) > 1:
        return match_aware(state, player, rng)
    return heuristic(state, player, rng)
