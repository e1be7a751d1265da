"""Balut's bots playing for category points against the same bots playing for pips, in duplicate games.

    nice -n 10 PYTHONPATH=src .venv/bin/python bench/category_bots.py [--games 400] [--seed 7] [--preset balut]

The old play is kept here: the old hard bot is the `heuristic` policy (the turn expectimax valuing
boxes by the estimated total, what `strong` played on category_points rulesets before `category.py`);
the old medium bot is greedy with its box chosen by pips (`pip_greedy` below: greedy's holds and rolls,
the box worth most now). `yambak duel --rules balut --bots strong heuristic` measures the first pair
too. Two seats get the same dice (docs/rules.md §8), seats alternate between games; prints each bot's
mean category points per game with its 95% interval, and the new bot's win rate (shared wins count
half; the engine's winners: the most points, then the grand total) with a Wilson 95% interval.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable

from yambak.bots.baseline import greedy
from yambak.bots.expectimax import heuristic
from yambak.bots.stats import wilson
from yambak.bots.strong import strong
from yambak.engine import Action, GameState, Score, new_game
from yambak.engine.dice import DuplicateDice
from yambak.rules import Ruleset, load_ruleset

Policy = Callable[[GameState, int, random.Random], Action]


def pip_greedy(state: GameState, player: int, rng: random.Random) -> Action:
    """Greedy as it played before category points: the same action, but a box chosen by pips."""
    action = greedy(state, player, rng)
    preview = state.preview(player)
    if isinstance(action, Score) and preview:
        rules = state.rules
        n = rules.n_rows
        box = max(preview, key=lambda b: preview[b] * rules.columns[(rules.parse_box(b) or 0) // n].multiplier)
        return Score(player, box)
    return action


def duplicate_game(rules: Ruleset, a: Policy, b: Policy, seed: str, a_first: bool) -> tuple[float, float, float]:
    """(win of a, a's category points, b's category points) of one duplicate game."""
    seats = [a, b] if a_first else [b, a]
    state = new_game(rules, ["A", "B"] if a_first else ["B", "A"], dice=DuplicateDice(seed), seed=seed)
    rngs = [random.Random(f"{seed}/{i}") for i in range(2)]
    while not state.finished:
        p = state.current
        state, _ = state.apply(seats[p](state, p, rngs[p]))
    ia = 0 if a_first else 1
    winners = state.winners()
    points = state.match_points()
    assert points is not None
    return (0.5 if len(winners) > 1 else 1.0) if ia in winners else 0.0, points[ia], points[1 - ia]


def mean_ci(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--preset", default="balut")
    parser.add_argument("--levels", nargs="*", default=["hard", "medium"], choices=["hard", "medium"])
    args = parser.parse_args()
    rules = load_ruleset(args.preset)
    pairs = {"hard": ("strong", strong, "heuristic", heuristic), "medium": ("greedy", greedy, "pip_greedy", pip_greedy)}
    print("| level | games | new: points per game | old: points per game | new wins | 95% interval |")
    print("|---|---|---|---|---|---|")
    for level in args.levels:
        new_name, new, old_name, old = pairs[level]
        t0 = time.perf_counter()
        wins, mine, theirs = 0.0, [], []
        for g in range(args.games):
            w, pa, pb = duplicate_game(rules, new, old, f"category{args.seed}:{g}", g % 2 == 0)
            wins += w
            mine.append(pa)
            theirs.append(pb)
        (ma, ha), (mb, hb) = mean_ci(mine), mean_ci(theirs)
        lo, hi = wilson(wins / args.games, args.games)
        print(
            f"| {level} ({new_name} v {old_name}) | {args.games} | {ma:.2f} ± {ha:.2f} | {mb:.2f} ± {hb:.2f} "
            f"| {100 * wins / args.games:.1f}% | [{100 * lo:.1f}%, {100 * hi:.1f}%] |"
            f"  <!-- {time.perf_counter() - t0:.0f} s -->",
            flush=True,
        )


if __name__ == "__main__":
    main()
