"""Start-up time of `yambak --help` and of every command's `--help`, beside `python -c pass`.

Each command line runs `--runs` times (10 by default) in a fresh interpreter, interleaved with
`python -c pass` so that both see the same machine; the medians and their ratio are printed, and
any median above the limit (0.3 s, issue 36) is marked. The status is 1 when one is above it.

    .venv/bin/python bench/startup.py [--runs 10] [--limit 0.3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from yambak.cli import COMMANDS  # noqa: E402

ENTRY = "import sys; from yambak.cli import main; sys.exit(main())"  # what the `yambak` console script runs


def _seconds(argv: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of each command line (default 10)")
    parser.add_argument("--limit", type=float, default=0.3, help="the most a median may take, in s (default 0.3)")
    args = parser.parse_args()
    lines = [["--help"], *([name, "--help"] for name in COMMANDS)]
    baseline: list[float] = []
    times: dict[str, list[float]] = {" ".join(line): [] for line in lines}
    for _ in range(args.runs):
        for line in lines:
            baseline.append(_seconds([sys.executable, "-c", "pass"]))
            times[" ".join(line)].append(_seconds([sys.executable, "-c", ENTRY, *line]))
    base = statistics.median(baseline)
    print(f"python -c pass        {base * 1000:7.1f} ms  (median of {len(baseline)})")
    over = 0
    for line, samples in times.items():
        median = statistics.median(samples)
        mark = "  OVER" if median > args.limit else ""
        over += bool(mark)
        print(f"yambak {line:<14} {median * 1000:7.1f} ms  {median / base:5.1f}x{mark}")
    print(f"limit {args.limit * 1000:.0f} ms; load average {os.getloadavg()[0]:.2f}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
