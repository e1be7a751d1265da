"""Fit the shipped value models (bots/fits/): every preset and the option variants listed here.

    nice -n 19 .venv/bin/python bench/fit_models.py [--budget S] [--only yams yatzy ...] [--calibrate-only S]

One fit at a time (fitted value iteration over self-play, `yambak.bots.fit`), each within its
budget of seconds on one core; prints each fit's iterations (played mean, predicted start value,
Bellman residual) and writes the model file into the package. `--calibrate-only S` keeps the shipped
parameters and redoes only the calibration and its check (steps 4 and 5 of `yambak.bots.fit`), in
at most S seconds each.
"""

from __future__ import annotations

import argparse
import json
import time

from yambak.bots.evaluate import build_model
from yambak.bots.fit import TOLERANCE, calibrate, fit_model
from yambak.bots.models import load_params, save_model, shipped_path
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
    parser.add_argument("--calibrate-only", type=float, metavar="S", help="only recalibrate, S seconds each")
    args = parser.parse_args()
    say = lambda line: print("  ", line, flush=True)  # noqa: E731
    for label, preset, options, budget in SHIPPED:
        if args.only and label not in args.only:
            continue
        rules = load_ruleset(preset, options)
        start = time.perf_counter()
        if args.calibrate_only:
            params = load_params(rules)
            if params is None:
                print(f"{label}: no model shipped, nothing to calibrate", flush=True)
                continue
            model = build_model(rules, params, "fitted")
            model.calibration, model.meta["agreement"] = calibrate(model, args.calibrate_only, progress=say)
            model.meta["method"] = (
                "fitted value iteration over self-play, then calibration on the bot's games (bots/fit.py)"
            )
            model.meta["tolerance"] = TOLERANCE
        else:
            model = fit_model(rules, budget=args.budget or budget, progress=say)
        path = save_model(model, shipped_path(rules))
        meta = {k: v for k, v in model.meta.items() if k != "history"}
        print(f"{label}: {json.dumps(meta)} -> {path.name} ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
