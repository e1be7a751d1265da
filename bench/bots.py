"""Time per decision of the strong bot on every preset: median, p99 and max.

    .venv/bin/python bench/bots.py [--games N] [--seed S]

Each preset plays N two-seat games (strong against greedy; in yammen the strong
seat is match-aware) and times every call of the strong policy. Building a
ruleset's value model (and, for yams/yatzy, loading the exact table from the
solver's cache, or solving it if absent) happens once per process; it is done
and timed first ("setup") and left out of the distribution.
Goal: median under 200 ms, p99 under 1 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from yambak.bots import choose_action
from yambak.bots.models import model_for
from yambak.bots.optimal import solvable, strategy_for
from yambak.engine import new_game
from yambak.rules import load_ruleset, preset_ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'preset':<9} {'decisions':>9} {'median ms':>10} {'p99 ms':>8} {'max ms':>8} {'setup ms':>9}")
    for preset in preset_ids():
        rules = load_ruleset(preset)
        times: list[float] = []
        t0 = time.perf_counter()
        strategy_for(rules) if solvable(rules) else model_for(rules)
        setup = (time.perf_counter() - t0) * 1000
        for g in range(args.games):
            state = new_game(rules, ["strong", "greedy"], seed=f"{args.seed}:{g}")
            rngs = [random.Random(g), random.Random(g + 1)]
            while not state.finished:
                p = state.current
                if p == 0:
                    t0 = time.perf_counter()
                    action = choose_action(state, p, "strong", rngs[p])
                    times.append((time.perf_counter() - t0) * 1000)
                else:
                    action = choose_action(state, p, "greedy", rngs[p])
                state, _ = state.apply(action)
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(
            f"{preset:<9} {len(times):>9} {statistics.median(times):>10.2f} {p99:>8.2f} {times[-1]:>8.2f} {setup:>9.1f}"
        )


if __name__ == "__main__":
    main()
