"""Solver tables side by side: this tree against another commit (a temporary git worktree), same machine,
same moment: seconds and peak memory of each table, the runs of the two trees interleaved.

    .venv/bin/python bench/solver_vs.py [--base REV] [--presets yams yatzy] [--runs 3]

Each table is computed from scratch in a fresh process (bench/solver.py's child), with the source of one
tree on its path and its own numba cache (compiled once, untimed, before the runs). The figures are the
median of `--runs` runs per tree; the runs alternate between the trees so that a load on the shared
machine falls on both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "bench"))

from solver import PRESETS  # noqa: E402

# bench/solver.py's child, with the process's CPU time beside the wall time: on a shared, loaded machine the
# CPU seconds (every thread's) compare the two trees better than the wall clock does.
_CHILD = r"""
import json, resource, sys, time
from yambak.solver import solve
preset, options = sys.argv[1], json.loads(sys.argv[2])
start, cpu = time.perf_counter(), time.process_time()
s = solve(preset, options, cache=False)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mib": peak, "expected": s.expected_score}))
"""


def _run(src: Path, preset: str, options: dict, cache: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "YAMBAK_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, preset, json.dumps(options)], check=True, capture_output=True, text=True, env=env
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the commit to compare with (default: main)")
    parser.add_argument("--presets", nargs="*", default=["yams", "yatzy"])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rev = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", args.base], check=True,
                         capture_output=True, text=True).stdout.strip()  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="yambak-vs-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "-C", str(HERE), "worktree", "add", "--detach", "-q", str(base), rev], check=True)
        try:
            trees = {f"base {rev}": base / "src", "this tree": HERE / "src"}
            figures: dict[tuple[str, str], list[dict]] = {}
            for label in args.presets:
                preset, options = PRESETS.get(label, (label, {}))
                for src in trees.values():  # compile the kernels of each tree once, untimed
                    _run(src, preset, options, Path(tmp) / "warm")
                for _ in range(args.runs):
                    for name, src in trees.items():
                        with tempfile.TemporaryDirectory(dir=tmp) as cache:
                            figures.setdefault((label, name), []).append(_run(src, preset, options, Path(cache)))
            head = f"{'table':<18}{'tree':<16}{'seconds':>9}{'CPU s':>9}{'peak MiB':>10}"
            print(f"{head}  expected score   (median of {args.runs})")
            for label in args.presets:
                rows = {}
                for name in trees:
                    runs = figures[(label, name)]
                    sec = statistics.median(r["seconds"] for r in runs)
                    cpu = statistics.median(r["cpu"] for r in runs)
                    mib = statistics.median(r["peak_mib"] for r in runs)
                    rows[name] = (sec, cpu, mib)
                    print(f"{label:<18}{name:<16}{sec:>9.3f}{cpu:>9.3f}{mib:>10.0f}  {runs[0]['expected']:.7f}")
                (b_sec, b_cpu, b_mib), (n_sec, n_cpu, n_mib) = rows.values()
                print(f"{'':<18}{'this / base':<16}{n_sec / b_sec:>9.3f}{n_cpu / b_cpu:>9.3f}{n_mib / b_mib:>10.3f}")
        finally:
            subprocess.run(["git", "-C", str(HERE), "worktree", "remove", "--force", str(base)], check=False)


if __name__ == "__main__":
    main()
