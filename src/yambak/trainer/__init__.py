"""The trainer: positions where the obvious choice loses, graded by the coach, rated with OpenSkill.

    pool = generate_pool(PoolSpec("yams", size=60, seed=1))   # seeded, reproducible
    puzzle = pool[0]                                           # immutable; to_dict()/from_dict()
    result = grade(puzzle, {"kind": "keep", "keep": [6, 6]})   # loss, solved, the best three
    grade(puzzle, choice, odds=keep_odds)                      # with the chances behind each keep shown
    player, position = rate(player, position, result.solved)   # OpenSkill's update of both
    daily_puzzle(pool, date)                                   # the same position for everybody

The package is pure: no I/O (the server stores ratings and history, `store/trainer.py`).
"""

from .odds import keep_odds
from .pool import OBVIOUS_SHARE, POOL_SEED, POOL_SIZE, THRESHOLD, PoolSpec, daily_puzzle, generate_pool
from .puzzle import (
    SOLVED_WITHIN,
    Choice,
    Grade,
    Puzzle,
    PuzzleOption,
    TrainerError,
    grade,
    puzzle_of,
    ruleset_of,
    state_of,
)
from .rating import MODEL, Rating, initial, rate

__all__ = [
    "MODEL",
    "OBVIOUS_SHARE",
    "POOL_SEED",
    "POOL_SIZE",
    "SOLVED_WITHIN",
    "THRESHOLD",
    "Choice",
    "Grade",
    "PoolSpec",
    "Puzzle",
    "PuzzleOption",
    "Rating",
    "TrainerError",
    "daily_puzzle",
    "generate_pool",
    "grade",
    "initial",
    "keep_odds",
    "puzzle_of",
    "rate",
    "ruleset_of",
    "state_of",
]
