"""Time to answer a strategy page's question from the shipped data: load a preset's file (fingerprint
checked) and serialise it, the odds computed fresh, and one calculator query; median and max of N runs.
Then the page itself: GET /strategy/{preset} through the app in process (the first request apart,
then warm: the server keeps a preset's file once read) and the calculator's route.

    .venv/bin/python bench/strategy.py [--runs N] [--presets ...]

Goal (issue 32): the page answers in under 200 ms once computed. Each run of the first part starts
cold (the module caches of the odds cleared), as a process that has not answered for this ruleset yet.
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
    _page_times(names, args.runs)


def _page_times(names: list[str], runs: int) -> None:
    """The HTML page and the calculator route, answered by the app (SQLite store in a temporary folder)."""
    import tempfile

    from fastapi.testclient import TestClient

    from yambak.server import Settings, create_app

    folder = tempfile.mkdtemp()
    settings = Settings(database_url=f"sqlite:///{folder}/bench.db", warm_strategies=False, coach_process=False)
    print(f"\n{'preset':<12} {'first page ms':>14} {'page ms':>14} {'calculator route ms':>20}", end="")
    print(f"  (median / max of {runs})")
    with TestClient(create_app(settings)) as client:
        for name in names:

            def timed(url: str) -> float:
                start = time.perf_counter()
                r = client.get(url)
                assert r.status_code == 200, (url, r.status_code)
                return (time.perf_counter() - start) * 1000

            first = timed(f"/strategy/{name}")
            page = [timed(f"/strategy/{name}") for _ in range(runs)]
            calc = [timed(f"/api/strategy/{name}/odds?kept=66&rolls=2") for _ in range(runs)]
            print(
                f"{name:<12} {first:14.1f} {statistics.median(page):6.1f} / {max(page):5.1f} "
                f"{statistics.median(calc):11.1f} / {max(calc):5.1f}"
            )


if __name__ == "__main__":  # the app's coach pool may start processes: only from the main module
    main()
