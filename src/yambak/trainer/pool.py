"""A ruleset's pool of trainer positions, generated from a seed, and the day's position.

Solitaire games are played from the seed (game g's dice and choices from `"{seed}/{g}"`); at every
decision the coach values every choice and the medium bot (`bots.baseline.greedy`, the obvious choice)
says what it would do; where that loses at least `threshold` expected points against the best, the
position joins the pool. The game then goes on with the coach's best choice, or, one time in
`OBVIOUS_SHARE`, with the greedy one, so the pool's sheets are those of good players who sometimes slip.
The same ruleset, seed, size and threshold give the same pool, in the same order.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from ..bots.baseline import greedy
from ..coach.advice import CoachError, advise
from ..engine import GameState, Roll, new_game
from ..rules import Ruleset, load_ruleset
from ..viewtypes import JSONValue
from .puzzle import Puzzle, TrainerError, puzzle_of

__all__ = ["OBVIOUS_SHARE", "POOL_SEED", "POOL_SIZE", "THRESHOLD", "PoolSpec", "daily_puzzle", "generate_pool"]

POOL_SIZE = 60  # a server's pool of a preset (and `yambak train`'s: the same positions)
POOL_SEED = 1
THRESHOLD = 2.0  # expected points the obvious choice loses, at least, in a pool's positions
OBVIOUS_SHARE = 0.3  # how often the pool's games go on with the greedy choice instead of the best
GAMES_PER_POSITION = 20  # give up after this many games per position asked for (a ruleset where greedy is good)


@dataclass(frozen=True)
class PoolSpec:
    """What a pool is generated from: the same spec, the same pool."""

    preset: str  # the pool's name (a preset id)
    rules: JSONValue = None  # the ruleset (a preset id or a record's rules object); None: the preset itself
    size: int = 60
    seed: int = 1
    threshold: float = THRESHOLD

    @property
    def ruleset(self) -> JSONValue:
        return self.preset if self.rules is None else self.rules


def generate_pool(spec: PoolSpec, progress: Callable[[int], None] | None = None) -> tuple[Puzzle, ...]:
    """The pool's positions, in the order the games found them (at most `spec.size`; fewer only where
    `GAMES_PER_POSITION * size` games did not find as many). `progress`, when given, hears how many
    positions are found so far after each game (a terminal's progress bar)."""
    rules = load_ruleset(spec.ruleset)
    found: list[Puzzle] = []
    seen: set[str] = set()
    for g in range(GAMES_PER_POSITION * spec.size):
        if len(found) >= spec.size:
            break
        for puzzle in _game(rules, spec, g):
            if puzzle.id not in seen:
                seen.add(puzzle.id)
                found.append(puzzle)
        if progress is not None:
            progress(min(len(found), spec.size))
    return tuple(found[: spec.size])


def _game(rules: Ruleset, spec: PoolSpec, g: int) -> list[Puzzle]:
    """The positions one seeded solitaire game finds."""
    seed = f"{spec.seed}/{g}"
    rng = random.Random(seed)
    state: GameState = new_game(rules, ["you"], seed=f"trainer/{seed}")
    out: list[Puzzle] = []
    while not state.finished:
        if not state.turns[0].rolls:
            state, _ = state.apply(Roll(0))
            continue
        obvious_action = greedy(state, 0, rng)
        try:
            advice = advise(state, 0, wins=False)
        except CoachError:  # no advice here (six dice before five count): play on as greedy does
            state, _ = state.apply(obvious_action)
            continue
        obvious = advice.option_for(obvious_action)
        if obvious is not None and len(advice.options) > 1 and obvious.loss >= spec.threshold:
            out.append(puzzle_of(state, advice, obvious, spec.preset))
        best = advice.best
        action = obvious_action if best is None or rng.random() < OBVIOUS_SHARE else best.action
        state, _ = state.apply(action)
    return out


def daily_puzzle(pool: tuple[Puzzle, ...], day: date) -> Puzzle:
    """The day's position (UTC date): the same for everybody who has the same pool."""
    if not pool:
        raise TrainerError("train/empty-pool", "this ruleset has no trainer positions")
    digest = hashlib.sha256(f"{pool[0].preset}/{day.isoformat()}".encode()).digest()
    return pool[int.from_bytes(digest[:8], "big") % len(pool)]
