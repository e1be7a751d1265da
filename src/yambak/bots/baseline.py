"""Baseline policies: random (any legal action) and greedy (best immediate score).

Greedy plays a simple, readable strategy: keep the longest run when a straight
row is open and it holds four in a row, else the most common face; roll while it
may; then take the box with the highest value now (ties: the first on the sheet).
Neither imports another policy.
"""

from __future__ import annotations

import random
from collections import Counter

from ..engine import Action, Announce, GameState, Roll, Score

__all__ = ["greedy", "random_policy"]


def random_policy(state: GameState, player: int, rng: random.Random) -> Action:
    """A uniformly random legal move, cheap enough for benchmarks: roll (with a random
    hold) half the time it may, else a random legal box, else a random announcement."""
    turn = state.turns[player]
    if not turn.rolls:
        return Roll(player)
    boxes = state.legal_boxes(player)
    if state.can_roll(player) and (not boxes or rng.random() < 0.5):
        n = state.rules.rolled_dice
        held = tuple(i for i in range(n) if rng.random() < 0.5)
        return Roll(player, held=held if len(held) < n else held[:-1])
    if boxes:
        return Score(player, state.rules.box_id(rng.choice(boxes)))
    actions = state.legal_actions(player)
    if not actions:
        raise ValueError(f"seat {player} has nothing to do")
    return rng.choice(actions)


def _keep(dice: tuple[int, ...], straight_open: bool) -> tuple[int, ...]:
    """Die positions greedy holds."""
    values = set(dice)
    if straight_open:
        for run in ((2, 3, 4, 5), (1, 2, 3, 4), (3, 4, 5, 6)):
            if set(run) <= values:
                positions: list[int] = []
                for v in run:
                    positions.append(dice.index(v))
                return tuple(sorted(positions))
    counts = Counter(dice)
    face = max(counts, key=lambda v: (counts[v], v))
    return tuple(i for i, d in enumerate(dice) if d == face)


def greedy(state: GameState, player: int, rng: random.Random) -> Action:
    turn = state.turns[player]
    if not turn.rolls:
        return Roll(player)
    preview = state.preview(player)
    rules = state.rules
    if len(turn.rolls) == 1 and turn.announced is None and not preview and not state.can_roll(player):
        # Only announce boxes can take this turn: announce the one these dice suit best.
        announces = [a for a in state.legal_actions(player) if isinstance(a, Announce)]
        if announces:
            return announces[0]
    best_now = max(preview.values(), default=None)
    if state.can_roll(player):
        open_straight = any(
            rules.rows[b % rules.n_rows].kind == "straight" and state.sheets[player].written[b] is None
            for b in range(rules.n_boxes)
        )
        keep = _keep(turn.dice, open_straight)
        # Stop early only when the dice already make the best value this sheet can offer.
        if best_now is None or best_now < CEILING:
            if len(keep) < rules.rolled_dice:
                return Roll(player, held=keep)
            return Roll(player, held=keep[:-1])
    if not preview:
        announces = [a for a in state.legal_actions(player) if isinstance(a, Announce)]
        if announces:
            return announces[0]
        return random_policy(state, player, rng)
    box = max(preview, key=lambda b: preview[b])
    return Score(player, box)


CEILING = 50  # a value high enough that greedy stops rolling: a yam-level score
