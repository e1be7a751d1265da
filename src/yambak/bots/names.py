"""The bots' names and player levels, without importing any policy (the command line lists them cheaply)."""

from __future__ import annotations

__all__ = ["LEVELS", "POLICY_NAMES"]

POLICY_NAMES: tuple[str, ...] = ("random", "greedy", "strong", "heuristic", "optimal")

# Player levels, measured in docs/bots.md: each beats the one below on every preset.
LEVELS: dict[str, str] = {"easy": "random", "medium": "greedy", "hard": "strong"}
