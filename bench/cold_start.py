"""Cold start (issue 35, item 2): in an empty numba cache and an empty table cache, the commands a new user
runs, with numba's cache log on; then the warm figures of a first `hint` and `solve yams`.

    .venv/bin/python bench/cold_start.py [--runs 5] [--skip-cold]

Cold: each command runs in a fresh process with NUMBA_CACHE_DIR and YAMBAK_CACHE_DIR in a new temporary
folder and NUMBA_DEBUG_CACHE=1; every "[cache] data saved" line is a kernel compiled (one per kernel and
signature). The first command must compile every kernel, each signature once, and no later command any:
the status is 1 otherwise. This is the test of "each kernel compiles once", kept here, not in `make test`,
because compiling the kernels costs tens of seconds of CPU.

Warm: with the kernels compiled and the tables cached (the cold run's folders), the wall time, CPU time and
peak memory of `hint` (yams, yatzy) and `solve yams`, each a fresh process, the median of `--runs`,
interleaved with `python -c pass`; the load average is printed beside them. Goal: under 2 s wall.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
ENTRY = "import sys; from yambak.cli import main; sys.exit(main())"  # what the `yambak` console script runs

COLD = [
    ["solve", "yams"],
    ["hint", "--rules", "yams", "--dice", "6", "6", "6", "2", "3", "--roll", "1"],
    ["hint", "--rules", "yams", "--dice", "1", "2", "3", "4", "6", "--roll", "2", "--filled", "ones=3,yam=50"],
    ["simulate", "--rules", "yams", "--games", "2000"],
    ["hint", "--rules", "yams-fr", "--option", "columns=1", "--option", "max_min=false", "--dice", "1", "1", "2",
     "3", "4", "--roll", "1"],  # fmt: skip
    ["hint", "--rules", "yams", "--objective", "target=20", "--dice", "6", "6", "6", "2", "3", "--roll", "1"],
]
WARM = {
    "hint yams": ["hint", "--rules", "yams", "--dice", "6", "6", "6", "2", "3", "--roll", "1"],
    "hint yatzy": ["hint", "--rules", "yatzy", "--dice", "6", "6", "6", "2", "3", "--roll", "1"],
    "solve yams": ["solve", "yams"],
}
_SAVED = re.compile(r"\[cache\] data saved to '.*/([^/']+)\.nbc'")


def _measured(args: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak MiB, its output): the process is reaped by wait4 here, so its own usage is read."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:  # numba's cache log goes to stdout: both are read
        proc = subprocess.Popen([sys.executable, "-c", ENTRY, *args], env=env, stdout=err, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read()
    if proc.returncode:
        raise SystemExit(f"{' '.join(args)} failed:\n{text}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text


def _cold(env: dict[str, str]) -> bool:
    """Run COLD in the empty caches; print what each command compiled; whether every kernel compiled once,
    all in the first command."""
    from yambak.solver.compiled import SIGNATURES

    env = {**env, "NUMBA_DEBUG_CACHE": "1"}
    per_command, total = [], collections.Counter[str]()
    print("cold (empty numba and table caches):")
    print(f"{'command':60} {'wall s':>7} {'CPU s':>7} {'peak MiB':>8}  compiled")
    for args in COLD:
        wall, cpu, peak, err = _measured(args, env)
        saved = collections.Counter(m.group(1).split("-")[0] for m in _SAVED.finditer(err))
        per_command.append(saved)
        total.update(saved)
        notices = sum(line.startswith("yambak: compiling") for line in err.splitlines())
        what = ", ".join(f"{k.removeprefix('_kernels.')} x{n}" for k, n in sorted(saved.items())) or "nothing"
        print(f"{' '.join(args)[:60]:60} {wall:7.2f} {cpu:7.2f} {peak:8.0f}  {what} ({notices} notice)")
    ok = True
    for name, signatures in SIGNATURES.items():
        key = f"_kernels.{name}"
        if per_command[0][key] != len(signatures) or total[key] != len(signatures):
            print(f"  {name}: {per_command[0][key]} in the first command, {total[key]} in all, not {len(signatures)}")
            ok = False
    later = sum(sum(c.values()) for c in per_command[1:])
    print(f"every kernel compiled once, in the first command: {'yes' if ok and not later else 'NO'}")
    return ok and not later


def _warm(env: dict[str, str], runs: int) -> None:
    print(f"\nwarm (kernels compiled, tables cached; median of {runs}; load {os.getloadavg()[0]:.1f}):")
    print(f"{'command':14} {'wall s':>7} {'CPU s':>7} {'peak MiB':>8}   python -c pass: wall s")
    base_env = {**env}
    for label, args in WARM.items():
        _measured(args, env)  # the first run makes the float32 copy of a table solved by `solve` (once)
        rows, bare = [], []
        for _ in range(runs):
            rows.append(_measured(args, env)[:3])
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=base_env, check=True)
            bare.append(time.perf_counter() - start)
        wall, cpu, peak = (statistics.median(r[i] for r in rows) for i in range(3))
        mark = "" if wall < 2 else "  over 2 s"
        print(f"{label:14} {wall:7.2f} {cpu:7.2f} {peak:8.0f}   {statistics.median(bare):.2f}{mark}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-cold", action="store_true", help="only the warm figures, in your own caches")
    args = parser.parse_args()
    sys.path.insert(0, str(SRC))
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    with tempfile.TemporaryDirectory(prefix="yambak-cold-") as tmp:
        if not args.skip_cold:
            env |= {"NUMBA_CACHE_DIR": str(Path(tmp) / "numba"), "YAMBAK_CACHE_DIR": str(Path(tmp) / "tables")}
            print(f"load average before: {os.getloadavg()[0]:.1f}")
            ok = _cold(env)
        else:
            ok = True
        _warm(env, args.runs)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
