#!/usr/bin/env python3
"""Two source trees under the same load, interleaved: `bench/load.py` run on each in turn (A, B, A, B...,
the order swapped every round), each run on a fresh PostgreSQL database, then the median of each tree's
server CPU per action, split as load.py splits it, its accepted actions per server CPU-second and its
action-to-broadcast p50/p99, with the machine's load average during every run.

A shared machine's load moves from one minute to the next: CPU per action moves much less with it than the
latencies do, and a comparison run in one script, alternately, sees both trees under the same weather.

    .venv/bin/python bench/load_ab.py --a /path/to/main/src --b src --runs 3 --players 1000 \\
        --db postgresql+psycopg://yambak:yambak@127.0.0.1:5432/postgres
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

from sqlalchemy import create_engine, text

LOAD = Path(__file__).resolve().with_name("load.py")
PARTS = ("loop", "engine", "view", "commit", "broadcast", "rest")


def parse(out: str) -> dict[str, float]:
    """The figures of one load.py report."""
    got: dict[str, float] = {}
    m = re.search(r"= (\d+) accepted actions per CPU-second", out)
    if m:
        got["per CPU-s"] = float(m.group(1))
    m = re.search(r"per action\s+: ([\d.]+) ms per action .*?= event loop ([\d.]+) \[engine ([\d.]+), view ([\d.]+), "
                  r"commit ([\d.]+), broadcast ([\d.]+), sockets/JSON/validation/rest ([\d.]+)\]", out)  # fmt: skip
    if m:
        got["server"] = float(m.group(1))
        got.update(zip(PARTS, map(float, m.groups()[1:]), strict=True))
    m = re.search(r"action-to-broadcast\s+: p50 ([\d.]+) ms, p99 ([\d.]+) ms", out)
    if m:
        got["p50"], got["p99"] = float(m.group(1)), float(m.group(2))
    m = re.search(r"machine load average\s+: ([\d.]+) to ([\d.]+)", out)
    if m:
        got["load from"], got["load to"] = float(m.group(1)), float(m.group(2))
    got["ok"] = float(out.rstrip().endswith("OK"))
    return got


def database(admin: str, name: str, create: bool) -> None:
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f"{'CREATE' if create else 'DROP'} DATABASE {name}"))
    engine.dispose()


def run(src: str, admin: str, extra: list[str], log: Path) -> dict[str, float]:
    name = f"yambak_ab_{uuid.uuid4().hex[:10]}"
    database(admin, name, True)
    try:
        url = admin.rsplit("/", 1)[0] + "/" + name
        env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
        cmd = [sys.executable, str(LOAD), "--db", url, *extra]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        log.write_text(done.stdout + done.stderr)
        return parse(done.stdout)
    finally:
        database(admin, name, False)


def row(label: str, got: dict[str, float]) -> str:
    parts = " ".join(f"{got.get(p, float('nan')):6.3f}" for p in PARTS)
    return (
        f"{label:10} {got.get('server', float('nan')):6.3f} {parts} {got.get('per CPU-s', float('nan')):8.0f} "
        f"{got.get('p50', float('nan')):8.1f} {got.get('p99', float('nan')):8.1f}  "
        f"{got.get('load from', float('nan')):4.1f}-{got.get('load to', float('nan')):4.1f}"
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", required=True, help="the first tree's src directory (the base)")
    p.add_argument("--b", required=True, help="the second tree's src directory (the change)")
    p.add_argument("--runs", type=int, default=3, help="runs of each")
    p.add_argument("--db", required=True, help="a PostgreSQL URL whose user may create databases")
    p.add_argument("--logs", default=None, help="directory for each run's full report")
    args, extra = p.parse_known_args()  # the rest goes to load.py (--players 1000 --think 1.0 ...)
    logs = Path(args.logs or f"/tmp/yambak-ab-{int(time.time())}")
    logs.mkdir(parents=True, exist_ok=True)
    results: dict[str, list[dict[str, float]]] = {"A": [], "B": []}
    head = f"{'run':10} {'server':>6} " + " ".join(f"{x:>6}" for x in PARTS) + "  act/CPUs      p50      p99  load"
    print(f"A = {args.a}\nB = {args.b}\nload.py {' '.join(extra)}; reports in {logs}\n{head}", flush=True)
    for i in range(args.runs):
        for which in "AB" if i % 2 == 0 else "BA":
            got = run(args.a if which == "A" else args.b, args.db, extra, logs / f"{which}{i + 1}.txt")
            results[which].append(got)
            print(row(f"{which}{i + 1}{'' if got.get('ok') else ' FAIL'}", got), flush=True)
    print("medians")
    for which, runs in results.items():
        keys = {k for r in runs for k in r}
        print(row(which, {k: statistics.median(r[k] for r in runs if k in r) for k in keys}))
    return 0 if all(r.get("ok") for rs in results.values() for r in rs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
