"""The policy registry: every bot by name, and the player levels.

Policies (`POLICIES`): `random`, `greedy` (`baseline.py`), `strong`
(`strong.py`), `heuristic` (`expectimax.py`) and `optimal` (`optimal.py`).
Modules import one way: baseline <- expectimax <- optimal, match <- strong <- policies.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine import Action, GameState
from .baseline import greedy, random_policy
from .expectimax import heuristic
from .names import LEVELS, POLICY_NAMES
from .optimal import optimal
from .strong import strong

__all__ = ["LEVELS", "POLICIES", "Policy", "choose_action", "greedy", "random_policy", "resolve"]

Policy = Callable[[GameState, int, random.Random], Action]


# `strong` is the best available play: the exact table where the solver applies, else the
# heuristic expectimax (match-aware in column-points games). `heuristic` forces the latter
# (for measuring it where an exact table exists); `optimal` is the table where it exists.
POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "greedy": greedy,
    "strong": strong,
    "heuristic": heuristic,
    "optimal": optimal,
}


assert tuple(POLICIES) == POLICY_NAMES


def resolve(name: str) -> str:
    """The policy a bot or level name stands for; ValueError naming the known ones."""
    policy = LEVELS.get(name, name)
    if policy not in POLICIES:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join([*POLICIES, *LEVELS])})")
    return policy


def choose_action(state: GameState, player: int, policy: str = "greedy", rng: random.Random | None = None) -> Action:
    """The named policy's (or level's) choice for `player`; deterministic for a given rng state."""
    return POLICIES[resolve(policy)](state, player, rng or random.Random(0))
