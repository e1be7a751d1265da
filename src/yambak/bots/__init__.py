"""Bots: policies that choose an action for a seat from the position.

Every policy has the same interface, `choose(state, player, rng) -> Action`: it
reads the seat's view (its sheet, the others' sheets, the dice, the roll number,
the held dice, the announcement), never the dice source, and only ever returns
an action the engine accepts; given the same rng state it makes the same choice.

Policies (`POLICIES`): `random`, `greedy` (baselines), `strong` (exact table on
yams/yatzy, else a turn expectimax over a fitted value model, match-aware in
column-points games), `heuristic` (that expectimax everywhere) and `optimal`
(the exact table where it exists). `LEVELS` maps player levels to policies;
docs/bots.md has the measurements behind them.
"""

from .play import DuelResult, GameStats, duel, play_game, simulate_details, simulate_games, summarize
from .policies import LEVELS, POLICIES, Policy, choose_action, greedy, random_policy

__all__ = [
    "LEVELS",
    "POLICIES",
    "DuelResult",
    "GameStats",
    "Policy",
    "choose_action",
    "duel",
    "greedy",
    "play_game",
    "random_policy",
    "simulate_details",
    "simulate_games",
    "summarize",
]
