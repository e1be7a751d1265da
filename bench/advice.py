"""Latency of the coach (`coach.advise`, the whole call, win chances included) on every preset:
median, p90, p95, p99, max.

    .venv/bin/python bench/advice.py [--games N] [--seed S] [--players P] [--cold] [--presets ...]

Plays N games with the strong bot in seat 0 (greedy in the other `--players` - 1 seats, default one,
whose sheets the win chances read) and times `advise(state, 0)` after every roll of seat 0, as the
web coach asks it (hints on). The first call of a turn builds the turn's plan (every fillable box x
252 hands x roll) and the distributions the win chances read; later calls of the turn reuse them.
`--cold` clears the model's and the win chances' caches before every call (the worst case: a hint
in a position the process has never seen). Models, exact tables and the pooled games of the win
chances are made before timing ("setup"). Goals: with win chances, p95 under 1 s on yammen; alone
(`--players 1`), median under 50 ms on multi-column sheets.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from yambak.bots import choose_action
from yambak.bots.models import model_for
from yambak.bots.optimal import solvable, strategy_for
from yambak.coach import advise
from yambak.coach.chances import _CACHE, pools_for
from yambak.engine import new_game
from yambak.rules import load_ruleset, preset_ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cold", action="store_true", help="clear the plan caches before every call")
    parser.add_argument("--presets", nargs="*")
    parser.add_argument("--players", type=int, default=2, help="seats (the others play greedy): win chances")
    args = parser.parse_args()
    head = ("preset", "exact", "calls", "median ms", "p90 ms", "p95 ms", "p99 ms", "max ms", "setup ms")
    print(f"{head[0]:<9} " + " ".join(f"{h:>{max(6, len(h))}}" for h in head[1:]))
    for preset in args.presets or preset_ids():
        rules = load_ruleset(preset)
        t0 = time.perf_counter()
        model = model_for(rules)
        if solvable(rules):
            pools_for(strategy_for(rules))
        setup = (time.perf_counter() - t0) * 1000
        times: list[float] = []
        exact = False
        for g in range(args.games):
            seats = ["strong"] + ["greedy"] * (args.players - 1)
            state = new_game(rules, seats, seed=f"advice{args.seed}:{g}")
            rng = random.Random(g)
            while not state.finished:
                p = state.current
                if p == 0 and state.turns[0].rolls:
                    if args.cold:
                        model.cache.clear()
                        model.gains.clear()
                        _CACHE.clear()
                    t0 = time.perf_counter()
                    exact = advise(state, 0).exact
                    times.append((time.perf_counter() - t0) * 1000)
                state, _ = state.apply(choose_action(state, p, seats[p], rng))
        times.sort()

        def q(f: float, times: list[float] = times) -> float:
            return times[min(len(times) - 1, int(f * len(times)))]

        print(
            f"{preset:<9} {str(exact):>6} {len(times):>6} {statistics.median(times):>9.2f} {q(0.9):>6.2f} "
            f"{q(0.95):>6.2f} {q(0.99):>6.2f} {times[-1]:>6.2f} {setup:>8.1f}"
        )


if __name__ == "__main__":
    main()
