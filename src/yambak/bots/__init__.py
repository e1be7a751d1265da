"""Bots: policies that choose an action for a seat from the position.

Every policy has the same interface, `choose(state, player, rng) -> Action`: it
reads the seat's view (its sheet, the others' sheets, the dice, the roll number,
the held dice, the announcement), never the dice source, and only ever returns
an action the engine accepts; given the same rng state it makes the same choice.

Policies (`POLICIES`): `random`, `greedy` (baselines), `strong` (exact table on
yams/yatzy, else a turn expectimax over a fitted value model, match-aware in
column-points games), `heuristic` (that expectimax everywhere) and `optimal`
(the exact table where it exists). `LEVELS` maps player levels to policies;
docs/bots.md has the measurements behind them. `play` runs whole games
(solitaire runs, duplicate duels) and `stats` folds their results.
"""

from __future__ import annotations

from ..lazy import loader
from .names import LEVELS

# Everything else is imported on first use (PEP 562): `yambak.bots.commands` and the level names
# load without the policies, so `yambak hint` does not pay for them.
_LAZY = {
    "DuelResult": "play",
    "GameStats": "play",
    "duel": "play",
    "play_game": "play",
    "simulate_details": "play",
    "simulate_games": "play",
    "simulate_tally": "play",
    "POLICIES": "policies",
    "Policy": "policies",
    "choose_action": "policies",
    "greedy": "policies",
    "model_note": "policies",
    "model_status": "policies",
    "random_policy": "policies",
    "resolve": "policies",
    "ScoreHistogram": "stats",
    "SolitaireTally": "stats",
}

__all__ = ["LEVELS", *_LAZY]


__getattr__ = loader(__name__, _LAZY, globals())
