"""Time to answer a strategy page's question from the shipped data: load a preset's file (fingerprint
checked) and serialise it, the odds computed fresh, and one calculator query; median and max of N runs.

    .venv/bin/python bench/strategy.py [--runs N] [--presets ...]

Goal (issue 32): the page answers in under 200 ms once computed. Each run starts cold (the module
caches of the odds cleared), as a process that has not answered for this ruleset yet.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from yambak.rules import load_ruleset
from yambak.strategy import calculator, odds, shipped
from yambak.strategy.chance import _hands_worth, turn_stages
from yambak.strategy.data_files import DATA_DIR


def _ms(fn: object, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        _hands_worth.cache_clear()
        turn_stages.cache_clear()
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--presets", nargs="*")
    args = parser.parse_args()
    names = args.presets or sorted(p.stem for p in DATA_DIR.glob("*.json"))
    print(f"{'preset':<12} {'shipped ms':>14} {'odds ms':>14} {'calculator ms':>14}  (median / max of {args.runs})")
    for name in names:
        rules = load_ruleset(name)

        def page(rules: object = rules) -> None:
            data = shipped(rules)  # type: ignore[arg-type]
            assert data is not None, "no shipped data matching the preset"
            json.dumps(data.to_json())

        cells = [
            _ms(page, args.runs),
            _ms(lambda rules=rules: odds(rules), args.runs),
            _ms(lambda rules=rules: calculator(rules, (6, 6), 2), args.runs),
        ]
        print(f"{name:<12} " + " ".join(f"{a:6.1f} / {b:5.1f}" for a, b in cells))


if __name__ == "__main__":
    main()
