"""The heuristic (the strong bot's expectimax, never an exact table) against the exact optimum.

    nice -n 19 .venv/bin/python bench/heuristic_vs_optimum.py [--games 4000] [--fit-budget 240] [RULESET ...]

For each one-column ruleset (default: the measurement set of issue 13) the value model is the
shipped fit, or a cached fit, or else it is fitted now from self-play within `--fit-budget` seconds
(as for any ruleset a user loads), never from the solver's table; then `--games` solitaire games
(seeds `hvo:<i>`, none of the fit's) give the heuristic's mean with a 95% interval, set against
the optimum the solver computes. A ruleset is a preset id with options (`yams-fr:columns=1`) or a
ruleset file.
"""

from __future__ import annotations

import argparse
import math
import random
import time

from yambak.bots.expectimax import heuristic
from yambak.bots.fit import fit_model
from yambak.bots.models import load_params, model_for, save_model
from yambak.engine import new_game
from yambak.rules import load_ruleset_arg
from yambak.solver import solve

DEFAULT = [
    "yams",
    "yatzy",
    "yams-fr:columns=1",
    "yams-fr:columns=1,max_min=false",
    "bench/rulesets/yams-de-free.toml",
    "bench/rulesets/yammen-free.toml",
]


def measure(spec: str, games: int, budget: float) -> dict[str, float | str]:
    name, _, opts = spec.partition(":")
    rules = load_ruleset_arg(name, [o for o in opts.split(",") if o])
    fitted = ""
    if load_params(rules) is None:
        t0 = time.perf_counter()
        save_model(fit_model(rules, budget=budget))
        fitted = f"fitted now in {time.perf_counter() - t0:.0f} s"
    model = model_for(rules, background=False)
    t0 = time.perf_counter()
    scores = []
    for i in range(games):
        state = new_game(rules, ["h"], seed=f"hvo:{i}")
        rng = random.Random(i)
        while not state.finished:
            state, _ = state.apply(heuristic(state, 0, rng, model=model))
        scores.append(state.total(0))
    mean = sum(scores) / games
    half = 1.96 * math.sqrt(sum((s - mean) ** 2 for s in scores) / (games - 1) / games)
    optimum = solve(rules).expected_score
    return {
        "ruleset": spec, "mean": mean, "half": half, "optimum": optimum, "gap": 100 * (optimum - mean) / optimum,
        "model": fitted or model.source, "seconds": time.perf_counter() - t0,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rulesets", nargs="*", default=DEFAULT)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--fit-budget", type=float, default=240.0)
    args = parser.parse_args()
    print("| ruleset | heuristic | optimum | gap | model |")
    print("|---|---|---|---|---|")
    for spec in args.rulesets:
        r = measure(spec, args.games, args.fit_budget)
        print(
            f"| {r['ruleset']} | {r['mean']:.2f} ± {r['half']:.2f} | {r['optimum']:.2f} | {r['gap']:.2f}% "
            f"| {r['model']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
