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

from .play import DuelResult, GameStats, duel, play_game, simulate_details, simulate_games, simulate_tally
from .policies import LEVELS, POLICIES, Policy, choose_action, greedy, random_policy, resolve
from .stats import ScoreHistogram, SolitaireTally

__all__ = [
    "LEVELS",
    "POLICIES",
    "DuelResult",
    "GameStats",
    "Policy",
    "ScoreHistogram",
    "SolitaireTally",
    "choose_action",
    "duel",
    "greedy",
    "play_game",
    "random_policy",
    "resolve",
    "simulate_details",
    "simulate_games",
    "simulate_tally",
]
