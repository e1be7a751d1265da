"""Baseline policies: random (any legal action) and greedy (best immediate score).

Greedy plays a simple, readable strategy: keep the longest run when a straight
row is open and it holds four in a row, else the most common face; roll while it
may; then take the box with the highest value now (ties: the first on the sheet).
Both use every rule they play, if badly: an announcement now and then (random:
a quarter of the turns it may; greedy: when roll 1 already fills an announce box
with `GOOD_SHARE` of the most it can hold), rolls saved where the ruleset saves
them (random by stopping early at random; greedy by stopping once the dice fill a
box with `GOOD_SHARE` of its most, and spending them since it rolls while it may),
and jokers (a legal box like any other). In category-points games (Balut) greedy
fills the box that adds most to its expected category points (`category.py`'s
terms, the strong bot's too, without its look-ahead), not the most pips. Neither
imports another policy.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, combinations_with_replacement

from ..engine import Action, Announce, GameState, Roll, Score
from ..rules import Ruleset
from ..rules.scoring import row_score
from .category import category_terms
from .evaluate import W
from .models import model_for

__all__ = ["greedy", "random_policy"]


def random_policy(state: GameState, player: int, rng: random.Random) -> Action:
    """A uniformly random legal move, cheap enough for benchmarks: roll (with a random
    hold) half the time it may, else a random legal box, else a random announcement."""
    turn = state.turns[player]
    if not turn.rolls:
        return Roll(player)
    announceable = state.announceable(player)
    if announceable and rng.random() < 0.25:  # announcements too, a quarter of the turns it may
        return Announce(player, rng.choice(announceable))
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


_CEILINGS: dict[int, tuple[Ruleset, tuple[int, ...]]] = {}  # by id: hashing a ruleset costs more than the lookup


def _ceilings(rules: Ruleset) -> tuple[int, ...]:
    """The most each row can score (after roll 1, where points by roll are highest)."""
    known = _CEILINGS.get(id(rules))
    if known is None or known[0] is not rules:
        hands = list(combinations_with_replacement(range(1, 7), rules.dice))
        known = _CEILINGS[id(rules)] = (
            rules,
            tuple(max(row_score(row, hand, 1) for hand in hands) for row in rules.rows),
        )
    return known[1]


def _share(rules: Ruleset, box: int, value: int) -> float:
    """What a value is of the most its box's row can score."""
    ceiling = _ceilings(rules)[box % rules.n_rows]
    return value / ceiling if ceiling > 0 else 0.0


GOOD_SHARE = 0.6  # dice this good for a box: greedy announces it (after roll 1) or saves the rolls left


def _announce(state: GameState, player: int) -> Announce | None:
    """Greedy's announcement: the announce box these dice fill best now, when they fill it well."""
    rules = state.rules
    dice = state.turns[player].dice
    shares = {b: _share(rules, rules.parse_box(b) or 0, _row_value(state, b, dice)) for b in state.announceable(player)}
    if not shares:
        return None
    box = max(shares, key=lambda b: shares[b])
    return Announce(player, box) if shares[box] >= GOOD_SHARE else None


def _row_value(state: GameState, box: str, dice: tuple[int, ...]) -> int:
    """What the best counted dice would score in the box's row after roll 1 (the sheet left aside)."""
    rules = state.rules
    row = rules.rows[(rules.parse_box(box) or 0) % rules.n_rows]
    return max(row_score(row, hand, 1) for hand in set(combinations(sorted(dice), rules.dice)))


def _keep(dice: tuple[int, ...], straight_open: bool, face: int | None = None) -> tuple[int, ...]:
    """Die positions greedy holds (`face`: an announced upper row's, held whatever else shows)."""
    if face is not None:
        return tuple(i for i, d in enumerate(dice) if d == face)
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
    if len(turn.rolls) == 1 and turn.announced is None:
        announce = _announce(state, player)
        if announce is not None:
            return announce
        if not preview and not state.can_roll(player):
            # Only announce boxes can take this turn: announce the one these dice suit best.
            announces = [a for a in state.legal_actions(player) if isinstance(a, Announce)]
            if announces:
                return announces[0]
    best_now = max(preview.values(), default=None)
    if state.can_roll(player):
        announced = None if turn.announced is None else rules.rows[turn.announced % rules.n_rows]
        if announced is None:  # one box left to this turn (a sheet filled in order, the last box): aim at it
            legal = state.legal_boxes(player)
            announced = rules.rows[legal[0] % rules.n_rows] if len(legal) == 1 else None
        open_straight = any(
            rules.rows[b % rules.n_rows].kind == "straight" and state.sheets[player].written[b] is None
            for b in range(rules.n_boxes)
        ) if announced is None else announced.kind == "straight"  # fmt: skip
        face = announced.face if announced is not None and announced.kind == "upper" else None
        keep = _keep(turn.dice, open_straight, face)
        # Stop early when the dice already make the best value this sheet can offer, or, where
        # unused rolls are saved, once they fill a box well (the saved rolls go to a later turn).
        good = rules.save_rolls and any(
            _share(rules, rules.parse_box(b) or 0, v) >= GOOD_SHARE for b, v in preview.items()
        )
        if (best_now is None or best_now < CEILING) and not good:
            if len(keep) < rules.rolled_dice:
                return Roll(player, held=keep)
            return Roll(player, held=keep[:-1])
    if not preview:
        announces = [a for a in state.legal_actions(player) if isinstance(a, Announce)]
        if announces:
            return announces[0]
        return random_policy(state, player, rng)
    if rules.match.kind == "category_points":  # the box that adds most to the expected category points
        gain, _, _ = category_terms(state, player, model_for(rules))
        return Score(player, max(preview, key=lambda b: float(gain(rules.parse_box(b) or 0)[min(preview[b], W - 1)])))
    # the value as it counts: a column's multiplier (Triple Yahtzee) weighs its boxes
    box = max(preview, key=lambda b: preview[b] * rules.columns[(rules.parse_box(b) or 0) // rules.n_rows].multiplier)
    return Score(player, box)


CEILING = 50  # a value high enough that greedy stops rolling: a yam-level score
