"""Solver figures: table time and peak memory from scratch, advisor latency, optimal games per second.

    .venv/bin/python bench/solver.py [--games 100000] [--presets yams yatzy ...] [--targets 40 ...]

Each table is computed in a fresh subprocess (no cache), so its peak RSS is the
table's own, and so is each yams target table's (solver/target.py); advisor and
simulator figures use a warm table. The compiled kernels come from numba's on-disk
cache; the "cold" row recompiles them into an empty cache, as the first run on a new
machine does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

# label -> (preset, options)
PRESETS = {
    "yams": ("yams", {}),
    "yatzy": ("yatzy", {}),
    "yams-fr": ("yams-fr", {"columns": 1, "max_min": False}),
    "yams-fr max>min": ("yams-fr", {"columns": 1}),  # max_gt_min: the lone pair value in the state
}

_TARGET_CHILD = r"""
import json, resource, sys, time
from yambak.rules import load_ruleset
from yambak.solver.target import solve_target
preset, options, target = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
solve_target(load_ruleset({"id": "warm", "rows": [{"id": "chance", "kind": "sum"}], "columns": [{"id": "free"}]}), 5,
             cache=False)  # kernels loaded before timing
start = time.perf_counter()
t = solve_target(load_ruleset(preset, options), target, cache=False)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mib": peak, "chance": t.start_chance, "stored_mib": t.nbytes / 2**20,
                  "values": int(len(t.values))}))
"""

_CHILD = r"""
import json, resource, sys, time
from yambak.solver import solve
preset, options = sys.argv[1], json.loads(sys.argv[2])
start = time.perf_counter()
s = solve(preset, options, cache=False)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mib": peak, "expected": s.expected_score, "states": s.states}))
"""


def table_figures(preset: str, options: dict, env: dict | None = None) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, preset, json.dumps(options)], check=True, capture_output=True, text=True, env=env
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--targets", nargs="*", type=int, default=[40], help="yams target tables to time")
    args = parser.parse_args()
    os.environ.setdefault("YAMBAK_CACHE_DIR", tempfile.mkdtemp(prefix="yambak-bench-"))

    print(f"{'table':<22}{'seconds':>9}{'peak MiB':>10}{'states':>11}  expected score")
    for label in args.presets:
        preset, options = PRESETS.get(label, (label, {}))
        f = table_figures(preset, options)
        print(f"{label:<22}{f['seconds']:>9.2f}{f['peak_mib']:>10.0f}{f['states']:>11,}  {f['expected']:.7f}")
    with tempfile.TemporaryDirectory(prefix="yambak-numba-") as cold:
        f = table_figures("yams", {}, env={**os.environ, "NUMBA_CACHE_DIR": cold})
        print(
            f"{'yams, cold kernels':<22}{f['seconds']:>9.2f}{f['peak_mib']:>10.0f}{f['states']:>11,}"
            f"  {f['expected']:.7f}"
        )

    for target in args.targets:
        out = subprocess.run(
            [sys.executable, "-c", _TARGET_CHILD, "yams", "{}", str(target)], check=True, capture_output=True, text=True
        )
        f = json.loads(out.stdout)
        print(
            f"target {target} (yams): {f['seconds']:.1f} s, peak {f['peak_mib']:.0f} MiB, stored {f['stored_mib']:.0f} "
            f"MiB ({f['values']:,} values), chance from the start {f['chance']:.6f}"
        )

    from yambak.solver import Position, advise, simulate, solve
    from yambak.solver.advisor import position_values

    positions = [
        Position(filled={}, dice=(6, 6, 6, 2, 3), roll=1),
        Position(filled={"ones": 3, "yam": 50}, dice=(1, 2, 3, 4, 6), roll=2, held=(1, 2, 3, 4)),
        Position(filled={"sixes": 30, "yam": 50, "chance": 21}, dice=(5, 5, 5, 5, 5), roll=3),
    ]
    # the float64 table (`yambak solve`) and the float32 copy mapped from the cache (hints, bots, the server)
    for kind, strategy in (("float64", solve("yams")), ("float32 mapped", solve("yams", lean=True))):
        for p in positions:
            advise(strategy, p, compiled=True)
        times = []
        for _ in range(200):
            for p in positions:
                start = time.perf_counter()
                advise(strategy, p, compiled=True)
                times.append(time.perf_counter() - start)
        times.sort()
        print(
            f"advisor (yams, {kind}, warm, compiled): advise() median {times[len(times) // 2] * 1e6:.0f} us, "
            f"p99 {times[int(len(times) * 0.99)] * 1e6:.0f} us, max {times[-1] * 1e6:.0f} us"
        )
        raw = []
        for _ in range(200):
            for p in positions:
                start = time.perf_counter()
                position_values(strategy, p)
                raw.append(time.perf_counter() - start)
        raw.sort()
        print(f"advisor numbers only (yams, {kind}, position_values): median {raw[len(raw) // 2] * 1e6:.0f} us")

    start = time.perf_counter()
    result = simulate(strategy, games=args.games, seed=1)
    seconds = time.perf_counter() - start
    s = result.summary()
    se = s["std"] / s["games"] ** 0.5
    print(
        f"optimal bot (yams): {args.games:,} games in {seconds:.2f} s = {args.games / seconds:,.0f} games/s; "
        f"mean {s['mean']:.3f} (solver {strategy.expected_score:.3f}, 3 SE = {3 * se:.3f})"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process (advisor + simulator): {peak:.0f} MiB")


if __name__ == "__main__":
    main()
