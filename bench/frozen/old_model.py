"""Today's (issue 13's "before") value model, frozen for comparisons: distributions looked up by
preset name (`old_fitted.py`, the histograms shipped before the per-ruleset fits), each open box worth
its mean, no learned terms. `old_model(rules)` builds it with the current `Model` class, which with
a = mean and b = C = 0 computes exactly the old gains; `old_strong` plays it the way `strong` did."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np

from yambak.bots.evaluate import Model, W, build_model, prior_distributions, score_table
from yambak.bots.expectimax import heuristic
from yambak.bots.match import match_terms
from yambak.bots.optimal import optimal, solvable
from yambak.engine import Action, GameState
from yambak.rules import Ruleset

from .old_fitted import DISTRIBUTIONS


@lru_cache(maxsize=32)
def old_model(rules: Ruleset) -> Model:
    fitted = DISTRIBUTIONS.get(rules.preset or rules.id, {})
    dist = prior_distributions(rules, score_table(rules))
    used = False
    for c, column in enumerate(rules.columns):
        for r, row in enumerate(rules.rows):
            hist = fitted.get(column.id, {}).get(row.id)
            if hist:
                d = np.zeros(W)
                for value, count in hist.items():
                    d[min(int(value), W - 1)] += count
                dist[c, r] = d / d.sum()
                used = True
    return build_model(rules, {"dist": dist}, "old-fit" if used else "prior")


def old_heuristic(state: GameState, player: int, rng: random.Random) -> Action:
    return heuristic(state, player, rng, model=old_model(state.rules))


def old_strong(state: GameState, player: int, rng: random.Random) -> Action:
    rules = state.rules
    if solvable(rules):
        return optimal(state, player, rng)
    model = old_model(rules)
    if rules.match.kind == "column_points" and len(state.players) > 1:
        gain, key, _ = match_terms(state, player, model)
        return heuristic(state, player, rng, gain_fn=gain, key_extra=("old", key), model=model)
    return heuristic(state, player, rng, model=model)
