"""New strong against the old strong (bench/frozen: the model looked up by preset name) in duplicate games.

    nice -n 19 .venv/bin/python bench/strong_duel.py [--games 200] [--seed 13] [PRESET ...]

Two seats get the same dice (docs/rules.md §8, duplicate), seats alternate between games; in
column-points rulesets (yammen) both play match-aware. Prints the new bot's win rate (shared wins
count half) with a Wilson 95% interval, and the mean margin of totals.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable

from bench.frozen.old_model import old_strong

from yambak.bots.strong import strong
from yambak.engine import Action, GameState, new_game
from yambak.engine.dice import DuplicateDice
from yambak.rules import load_ruleset

Policy = Callable[[GameState, int, random.Random], Action]
MULTI = ["yams-fr", "yams-de", "yammen", "yamb", "yamb-6"]


def duplicate_game(preset: str, a: Policy, b: Policy, seed: str, a_first: bool) -> tuple[float, int]:
    rules = load_ruleset(preset)
    seats = [a, b] if a_first else [b, a]
    state = new_game(rules, ["A", "B"] if a_first else ["B", "A"], dice=DuplicateDice(seed), seed=seed)
    rngs = [random.Random(f"{seed}/{i}") for i in range(2)]
    while not state.finished:
        p = state.current
        state, _ = state.apply(seats[p](state, p, rngs[p]))
    ia = 0 if a_first else 1
    winners = state.winners()
    win = (0.5 if len(winners) > 1 else 1.0) if ia in winners else 0.0
    totals = state.totals()
    return win, totals[ia] - totals[1 - ia]


def wilson(wins: float, n: int) -> tuple[float, float]:
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presets", nargs="*", default=MULTI)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    print("| preset | games | new strong wins | 95% interval | mean margin |")
    print("|---|---|---|---|---|")
    for preset in args.presets:
        t0 = time.perf_counter()
        wins = 0.0
        margin = 0
        for g in range(args.games):
            w, m = duplicate_game(preset, strong, old_strong, f"duel{args.seed}:{g}", g % 2 == 0)
            wins += w
            margin += m
        lo, hi = wilson(wins, args.games)
        print(
            f"| {preset} | {args.games} | {100 * wins / args.games:.1f}% | [{100 * lo:.1f}%, {100 * hi:.1f}%] "
            f"| {margin / args.games:+.1f} |  <!-- {time.perf_counter() - t0:.0f} s -->",
            flush=True,
        )


if __name__ == "__main__":
    main()
