"""Solver tables side by side: this tree against another commit (a temporary git worktree), same machine,
same moment: seconds and peak memory of each table, the runs of the two trees interleaved.

    .venv/bin/python bench/solver_vs.py [--base REV] [--presets yams yatzy] [--runs 3]

Each table is computed from scratch in a fresh process (bench/solver.py's child), with the source of one
tree on its path and its own numba cache (compiled once, untimed, before the runs). The figures are the
median of `--runs` runs per tree; the runs alternate between the trees so that a load on the shared
machine falls on both.

    .venv/bin/python bench/solver_vs.py --peer PATH [--runs 3]

`--peer`: against the native peer instead of a commit of ours: PATH is dlangk/yatzy's `yatzy-precompute`
(Rust; it solves Scandinavian Yatzy only, so the row is yatzy), run in a temporary folder as its base
path (YATZY_BASE_PATH, where it writes its table) with RAYON_NUM_THREADS set to this machine's cores, its
CPU time and peak memory read by /usr/bin/time; ours is `solve("yatzy")` from scratch as above. The
peer was read and built from commit 094d9d9ddf32e8a50959e973f6ac131e157e2286:

    git clone https://github.com/dlangk/yatzy && cd yatzy && git checkout 094d9d9ddf32e8a50959e973f6ac131e157e2286
    cd solver && cargo build --release --bin yatzy-precompute    # target/release/yatzy-precompute

Where only a stored copy of the repository can be read (and crates.io cannot), its θ = 0 solve is rebuilt
from the copy's files as bench/advisor_vs.py's docstring says; that build solves Yatzy to 248.440140.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
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


def _peer(binary: Path) -> dict:
    """One from-scratch solve by the peer's binary (see the docstring), under /usr/bin/time: a child forked
    from this Python process would count the parent's pages in its peak until its exec."""
    with tempfile.TemporaryDirectory(prefix="yambak-peer-") as base:
        env = {**os.environ, "YATZY_BASE_PATH": base, "RAYON_NUM_THREADS": str(os.cpu_count() or 1)}
        figures = Path(base) / "time.txt"
        start = time.perf_counter()
        subprocess.run(
            ["/usr/bin/time", "-f", "%e %U %S %M", "-o", str(figures), str(binary)],
            env=env, cwd=base, stdout=subprocess.DEVNULL, check=True,
        )  # fmt: skip
        seconds = time.perf_counter() - start
        _, user, system, kib = figures.read_text().split()[-4:]
    return {"seconds": seconds, "cpu": float(user) + float(system), "peak_mib": int(kib) / 1024}


def _versus_peer(binary: Path, runs: int) -> None:
    """Yatzy from scratch, ours and the peer's, runs interleaved; medians and the ratios."""
    with tempfile.TemporaryDirectory(prefix="yambak-vs-") as tmp:
        _run(HERE / "src", "yatzy", {}, Path(tmp) / "warm")  # our kernels compiled once, untimed
        ours, theirs = [], []
        for _ in range(runs):
            with tempfile.TemporaryDirectory(dir=tmp) as cache:
                ours.append(_run(HERE / "src", "yatzy", {}, Path(cache)))
            theirs.append(_peer(binary))
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'table':<18}{'solver':<16}{'seconds':>9}{'CPU s':>9}{'peak MiB':>10}   (median of {runs})")
    rows = []
    for name, figures in (("dlangk/yatzy", theirs), ("this tree", ours)):
        row = tuple(statistics.median(r[k] for r in figures) for k in ("seconds", "cpu", "peak_mib"))
        rows.append(row)
        print(f"{'yatzy':<18}{name:<16}{row[0]:>9.3f}{row[1]:>9.3f}{row[2]:>10.1f}")
    ratios = "".join(f"{n / p if p else float('nan'):>{w}.3f}" for p, n, w in zip(*rows, (9, 9, 10), strict=True))
    print(f"{'':<18}{'this / peer':<16}{ratios}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the commit to compare with (default: main)")
    parser.add_argument("--peer", type=Path, metavar="PATH", help="dlangk/yatzy's yatzy-precompute binary")
    parser.add_argument("--presets", nargs="*", default=["yams", "yatzy"])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.peer is not None:
        _versus_peer(args.peer, args.runs)
        return
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
