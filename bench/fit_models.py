"""Fit the shipped value models (bots/fits/): every preset and the option variants listed here.

    nice -n 19 .venv/bin/python bench/fit_models.py [--budget S] [--only yams yatzy ...]

One fit at a time (fitted value iteration over self-play, `yambak.bots.fit`), each within its
budget of seconds on one core; prints each fit's iterations (played mean, predicted start value,
Bellman residual) and writes the model file into the package.
"""

from __future__ import annotations

import argparse
import json
import time

from yambak.bots.fit import fit_model
from yambak.bots.models import save_model, shipped_path
from yambak.rules import load_ruleset

# (label, preset, options, budget seconds)
SHIPPED = [
    ("yams", "yams", {}, 240),
    ("yatzy", "yatzy", {}, 240),
    ("yams-fr/1", "yams-fr", {"columns": 1}, 240),
    ("yams-fr/1 no max/min", "yams-fr", {"columns": 1, "max_min": False}, 240),
    ("yams-fr", "yams-fr", {}, 600),
    ("yams-de", "yams-de", {}, 600),
    ("yammen", "yammen", {}, 600),
    ("yamb", "yamb", {}, 600),
    ("yamb-6", "yamb-6", {}, 900),
    ("yams-fr/3", "yams-fr", {"columns": 3}, 450),
    ("yams-de flat", "yams-de", {"flat_bonus": True}, 600),
    ("yamb hand", "yamb", {"extra": ["hand"]}, 600),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, help="override every budget (seconds)")
    parser.add_argument("--only", nargs="*", help="labels to fit")
    args = parser.parse_args()
    for label, preset, options, budget in SHIPPED:
        if args.only and label not in args.only:
            continue
        rules = load_ruleset(preset, options)
        start = time.perf_counter()
        model = fit_model(rules, budget=args.budget or budget, progress=lambda line: print("  ", line, flush=True))
        path = save_model(model, shipped_path(rules))
        meta = {k: v for k, v in model.meta.items() if k != "history"}
        print(f"{label}: {json.dumps(meta)} -> {path.name} ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
