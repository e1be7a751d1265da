"""The policy registry: every bot by name, and the player levels.

Policies (`POLICIES`): `random`, `greedy` (`baseline.py`), `strong`
(`strong.py`), `heuristic` (`expectimax.py`) and `optimal` (`optimal.py`).
Modules import one way: category <- baseline <- expectimax <- optimal, match <- strong <- policies.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine import Action, GameState
from ..rules import Ruleset
from .baseline import greedy, random_policy
from .expectimax import heuristic
from .models import model_for
from .names import LEVELS, POLICY_NAMES
from .optimal import optimal, solvable
from .strong import strong

__all__ = [
    "LEVELS",
    "POLICIES",
    "Policy",
    "choose_action",
    "greedy",
    "model_note",
    "model_status",
    "random_policy",
    "resolve",
]

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


def model_status(rules: Ruleset, name: str) -> str | None:
    """What a bot (or level) plays on here, when a player should be told: "prior" (no fitted value model
    for this ruleset yet, a first estimate that plays weaker) or "unchecked" (a fit whose predictions
    missed its own check on unseen games); None for a checked fit, the exact table, or no model."""
    policy = resolve(name)
    if policy not in ("strong", "heuristic", "optimal") or rules.rolled_dice != 5:
        return None
    if policy != "heuristic" and solvable(rules):
        return None
    model = model_for(rules)
    if model.source == "prior":
        return "prior"
    agreement = model.meta.get("agreement")
    return "unchecked" if isinstance(agreement, dict) and agreement.get("within") is False else None


def model_note(rules: Ruleset, name: str) -> str | None:
    """`model_status` as one line for a command's user (None: nothing to tell)."""
    status = model_status(rules, name)
    if status == "prior":
        return (
            f"the {name} bot plays on a first estimate here: this ruleset has no fitted value model yet "
            "(it plays weaker; `yambak fit` fits one)"
        )
    if status == "unchecked":
        return (
            f"the {name} bot's value model for this ruleset missed its check on games it had not seen "
            "(its expected scores may be off by more than 1%; `yambak fit` with a larger --budget fits it again)"
        )
    return None
