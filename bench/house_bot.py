#!/usr/bin/env python3
"""The hard bot on the largest house rules a server takes (`rules.check_house_rules`: 24 rows, 8 columns,
128 boxes, 6 dice): seconds per decision, to hold against the bound of 0.3 s.

Whole games of two hard bots on sheets at the bounds (24 rows x 5 columns, 16 x 8, 12 x 8 with announce
and middle columns, and the same with six dice), every decision timed (the bot's whole choice, as a
table's owner runs it). Background fits are off: a house ruleset plays on its prior model until a fit
lands, and a fit changes the values, not the work. Prints p50 / p99 / max per sheet and the machine's
load average (a busy machine stretches every figure).

    .venv/bin/python bench/house_bot.py [--games 1]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

os.environ["YAMBAK_MODEL_FIT"] = "off"
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from yambak.bots import choose_action  # noqa: E402
from yambak.engine import new_game  # noqa: E402
from yambak.rules import check_house_rules, load_ruleset  # noqa: E402
from yambak.rules.loader import MAX_BOXES, MAX_COLUMNS, MAX_DICE, MAX_ROWS  # noqa: E402

BOUND = 0.3  # seconds per decision
KINDS = ["upper"] * 6 + ["kind", "kind", "full_house", "straight", "yam", "sum", "one_pair", "two_pairs", "kind"]


def _row(i: int) -> dict:
    kind = KINDS[i % len(KINDS)]
    row: dict = {"id": f"r{i}", "kind": kind}
    if kind == "upper":
        row["face"] = i % 6 + 1
    elif kind == "kind":
        row["n"] = 3 + i % 2
    elif kind == "straight":
        row.update(runs=[[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]], points=30)
    elif kind in ("full_house", "yam"):
        row["points"] = 25 if kind == "full_house" else 50
    return row


def sheet(rows: int, columns: int, special: bool = False, six: bool = False) -> dict:
    orders = ["down", "up", "free", "free", "free", "down", "up", "free"]
    cols: list[dict] = [{"id": f"c{j}", "order": orders[j]} for j in range(columns)]
    if special:  # an announce column and a middle one, the costliest kinds to plan
        cols[2] = {"id": "c2", "announce": True}
        cols[3] = {"id": "c3", "order": "middle", "start": [f"r{rows // 2 - 1}", f"r{rows // 2}"]}
    data = {"id": "bound", "name": "At the bounds", "rows": [_row(i) for i in range(rows)], "columns": cols}
    if six:
        data["modifiers"] = ["six_dice"]
    return data


SHEETS = {
    f"{MAX_ROWS} rows x 5 columns": sheet(MAX_ROWS, 5),
    f"16 rows x {MAX_COLUMNS} columns": sheet(MAX_BOXES // MAX_COLUMNS, MAX_COLUMNS),
    "16 x 8, announce and middle columns": sheet(16, 8, special=True),
    f"16 x 8, {MAX_DICE} dice": sheet(16, 8, six=True),
}


def play(data: dict, games: int, seed: int) -> list[float]:
    rules = load_ruleset(data)
    check_house_rules(rules)
    rng = random.Random(seed)
    times = []
    for g in range(games):
        state = new_game(rules, ["A", "B"], seed=seed + g)
        while not state.finished:
            seat = state.to_act()[0]
            start = time.perf_counter()
            action = choose_action(state, seat, "hard", rng)
            times.append(time.perf_counter() - start)
            state, _ = state.apply(action)
    return times


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=1, help="games per sheet (two hard bots)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    worst = 0.0
    before = os.getloadavg()[0]
    for name, data in SHEETS.items():
        times = sorted(play(data, args.games, args.seed))
        q = lambda f, times=times: times[min(len(times) - 1, int(f * len(times)))]  # noqa: E731
        worst = max(worst, times[-1])
        print(
            f"{name:38s}: {len(times):4d} decisions, p50 {q(0.5) * 1000:6.1f} ms, p99 {q(0.99) * 1000:6.1f} ms, "
            f"max {times[-1] * 1000:6.1f} ms",
            flush=True,
        )
    print(f"load average {before:.1f} -> {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
    print(f"slowest decision {worst:.3f} s: {'within' if worst <= BOUND else 'OVER'} the bound of {BOUND} s")
    return 0 if worst <= BOUND else 1


if __name__ == "__main__":
    raise SystemExit(main())
