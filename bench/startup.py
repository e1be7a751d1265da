"""Start-up time of `yambak --help` and of every command's `--help`, beside `python -c pass`.

Each command line runs `--runs` times (10 by default) in a fresh interpreter, interleaved with
`python -c pass` so that both see the same machine; the medians of the wall time and their ratio
are printed, and any median above the limit (0.3 s, issue 36) is marked; the status is 1 when one
is above it. The CPU time (user + system) is printed beside: on a loaded machine it says what a
quiet one would show better than the wall time does.

    .venv/bin/python bench/startup.py [--runs 10] [--limit 0.3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from yambak.cli import COMMANDS  # noqa: E402

ENTRY = "import sys; from yambak.cli import main; sys.exit(main())"  # what the `yambak` console script runs


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _seconds(argv: list[str]) -> tuple[float, float]:
    """The wall time and the CPU time of one run."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cpu, start = _cpu(), time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, _cpu() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each command line (default 10)")
    parser.add_argument("--limit", type=float, default=0.3, help="the most a median may take, in s (default 0.3)")
    args = parser.parse_args()
    lines = [["--help"], *([name, "--help"] for name in COMMANDS)]
    baseline: list[tuple[float, float]] = []
    times: dict[str, list[tuple[float, float]]] = {" ".join(line): [] for line in lines}
    for _ in range(args.runs):
        for line in lines:
            baseline.append(_seconds([sys.executable, "-c", "pass"]))
            times[" ".join(line)].append(_seconds([sys.executable, "-c", ENTRY, *line]))
    base = statistics.median(w for w, _ in baseline)
    base_cpu = statistics.median(c for _, c in baseline)
    print(f"{'':22} {'wall':>9}  {'ratio':>6}  {'CPU':>9}  {'ratio':>6}   (medians of {args.runs})")
    print(f"{'python -c pass':22} {base * 1000:6.1f} ms  {'':6}  {base_cpu * 1000:6.1f} ms")
    over = 0
    for line, samples in times.items():
        median = statistics.median(w for w, _ in samples)
        cpu = statistics.median(c for _, c in samples)
        mark = "  OVER" if median > args.limit else ""
        over += bool(mark)
        figures = f"{median * 1000:6.1f} ms  {median / base:5.1f}x  {cpu * 1000:6.1f} ms  {cpu / base_cpu:5.1f}x"
        print(f"{'yambak ' + line:22} {figures}{mark}")
    print(f"limit {args.limit * 1000:.0f} ms; load average {os.getloadavg()[0]:.2f}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
