"""Match-aware play for column-points rulesets (yammen): play for the columns still winnable.

The terminal value of a box is the change in expected match points: for every
column, P(my column total beats every opponent's) is approximated by a normal
law on the difference of estimated final column totals (`Model.column_estimate`)
with the variance of the boxes still open on both sheets; the grand total's
points likewise. A small multiple of the plain score gain breaks ties, so a
decided column is still played for points.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable

import numpy as np

from ..engine import Action, GameState
from .evaluate import Model
from .expectimax import GainFn, heuristic
from .models import model_for

__all__ = ["TIE_BREAK", "match_aware", "match_terms", "normal_cdf"]

TIE_BREAK = 0.02  # match points per point of estimated total


def _phi(x: np.ndarray | float) -> np.ndarray:
    """Standard normal CDF (Abramowitz and Stegun 7.1.26 for erf, error below 1.5e-7)."""
    z = np.asarray(x, dtype=float) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * np.abs(z))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.sign(z) * erf)


normal_cdf = _phi


def match_terms(state: GameState, player: int, model: Model) -> tuple[GainFn, Hashable, float]:
    """(gain_fn, plan cache key, expected match points now) for seat `player`: a box's terminal
    value is the change in expected match points (see the module docstring)."""
    rules = state.rules
    n_cols = len(rules.columns)
    others = [o for o in range(len(state.players)) if o != player]
    mine = [model.column_estimate(state.sheets[player], c) for c in range(n_cols)]
    theirs = [[model.column_estimate(state.sheets[o], c) for c in range(n_cols)] for o in others]
    my_total = sum(m for m, _ in mine)
    my_var = sum(v for _, v in mine)
    weights = [col.points for col in rules.columns]
    total_points = rules.match.total_points
    sheet = state.sheets[player]

    def win_prob(mu: np.ndarray, var: float, c: int | None) -> np.ndarray:
        p = np.ones_like(mu)
        for est in theirs:
            if c is None:
                o_mu, o_var = sum(m for m, _ in est), sum(v for _, v in est)
            else:
                o_mu, o_var = est[c]
            p = p * _phi((mu - o_mu) / math.sqrt(var + o_var + 4.0))
        return p

    def gain(box: int) -> np.ndarray:
        c, r = divmod(box, rules.n_rows)
        g = model.box_gain(sheet, box)
        var_r = model.var[c, r]
        mu_c, var_c = mine[c]
        col_now = win_prob(np.array([mu_c]), var_c, c)[0]
        col_after = win_prob(mu_c + g, max(var_c - var_r, 0.0), c)
        tot_now = win_prob(np.array([my_total]), my_var, None)[0]
        tot_after = win_prob(my_total + g, max(my_var - var_r, 0.0), None)
        gain: np.ndarray = weights[c] * (col_after - col_now) + total_points * (tot_after - tot_now) + TIE_BREAK * g
        return gain

    now = sum(weights[c] * float(win_prob(np.array([mine[c][0]]), mine[c][1], c)[0]) for c in range(n_cols))
    now += total_points * float(win_prob(np.array([my_total]), my_var, None)[0])
    key = ("match", tuple((s.written, s.voided) for o, s in enumerate(state.sheets) if o != player))
    return gain, key, now


def match_aware(state: GameState, player: int, rng: random.Random) -> Action:
    model = model_for(state.rules)
    gain, key, _ = match_terms(state, player, model)
    return heuristic(state, player, rng, gain_fn=gain, key_extra=key, model=model)
