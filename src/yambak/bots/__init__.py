"""Bots: policies that choose an action for a seat from the position.

Every policy has the same interface, `choose(state, player, rng) -> Action`, and
only ever returns an action the engine lists as legal for that seat.
"""

from .policies import POLICIES, Policy, choose_action, greedy, random_policy

__all__ = ["POLICIES", "Policy", "choose_action", "greedy", "random_policy"]
