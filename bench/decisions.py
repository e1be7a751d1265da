"""Graded decisions in the store: what their rows cost the writer, and the strategy page's aggregate.

    .venv/bin/python bench/decisions.py [--games 10000] [--pg URL] [--runs 20]

1. The writer's CPU per grade (the result's accuracy, and with it a yams game's 40 decision rows), in
   transactions as `Store._sync` runs them, on SQLite and on PostgreSQL (a database of the bench's own,
   created, then dropped): the grade's share of the event loop's writer.
2. `Store.decision_losses` (what `GET /api/strategy/{preset}/losses` asks) with `--games` graded yams
   games of 40 decisions each stored, and as many of another ruleset: the median and worst of `--runs`.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sqlalchemy import insert  # noqa: E402

from yambak.store import DecisionRow, ResultRow, Store  # noqa: E402
from yambak.store.models import GradedDecision  # noqa: E402

T0 = datetime(2026, 1, 1)
KINDS = ("keep", "keep", "box", "strike")
BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes", "max", "min", "full", "straight", "yam", "chance")


def decisions(rng: random.Random, rules_id: str = "yams", n: int = 40) -> list[DecisionRow]:
    option = {
        "kind": "keep",
        "keep": [6, 6],
        "value": 231.5123,
        "loss": 0.4312,
        "action": {"type": "roll", "held": [0, 3]},
    }
    return [
        DecisionRow(
            turn=i // 2 + 1, roll=1 + i % 2, kind=rng.choice(KINDS), box=rng.choice(BOXES), dice=(1, 3, 6, 6, 2),
            chosen=option, best=option, options=rng.randint(2, 40), loss=rng.random() * rng.random() * 5,
            unit="score", exact=True, rules_id=rules_id,
        )
        for i in range(n)
    ]  # fmt: skip


def writes(store: Store, label: str, runs: int) -> None:
    rng = random.Random(1)
    pid = secrets.token_urlsafe(9)
    store.create_profile(pid, "Bench", secrets.token_hex(32), T0)
    results = [ResultRow(pid, "table", f"w{i}", 0, "yams", "yams", T0, 200, False, 1, True) for i in range(2 * runs)]
    for r, rid in zip(results, store.insert_results(results), strict=True):
        r.id = rid
    rows = decisions(rng, "writes")  # a ruleset of their own: not in the aggregate below
    for name, part, given in (("accuracy only", results[:runs], []), ("accuracy + 40 rows", results[runs:], rows)):
        cpu = []
        for r in part:
            began = time.process_time()
            store._sync(Store.grade_op(r, 0.5, 40, given))
            cpu.append((time.process_time() - began) * 1000)
        print(f"{label}: {name}: writer CPU per grade {statistics.median(cpu):.2f} ms median, {max(cpu):.2f} ms worst")


def aggregate(store: Store, label: str, games: int, runs: int) -> None:
    rng = random.Random(2)
    pid = secrets.token_urlsafe(9)
    store.create_profile(pid, "Bench", secrets.token_hex(32), T0)
    for rules_id in ("yams", "yatzy"):
        results = [
            ResultRow(
                pid, "table", f"{rules_id}{i}", 0, rules_id, rules_id, T0 + timedelta(seconds=i), 200, False, 1, True
            )
            for i in range(games)
        ]
        ids = store.insert_results(results)
        with store.engine.begin() as conn:
            batch = []
            for rid, r in zip(ids, results, strict=True):
                for d in decisions(rng, rules_id):
                    batch.append(
                        {"result_id": rid, "profile_id": pid, "table_id": r.ref, "seat": 0, "preset": rules_id,
                         "rules_id": rules_id, "source": "table", "ranked": False, "duplicate": False, "counted": True,
                         "deal_id": None, "finished_at": r.finished_at, "turn": d.turn, "roll": d.roll, "kind": d.kind,
                         "box": d.box, "dice": list(d.dice), "chosen": d.chosen, "best": d.best, "options": d.options,
                         "loss": d.loss, "unit": d.unit, "exact": d.exact}
                    )  # fmt: skip
                if len(batch) >= 20000:
                    conn.execute(insert(GradedDecision), batch)
                    batch = []
            if batch:
                conn.execute(insert(GradedDecision), batch)
    if store.dialect == "postgresql":
        with store.engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE graded_decisions")
    took = []
    for _ in range(runs):
        began = time.perf_counter()
        losses = store.decision_losses("yams", T0 + timedelta(days=1))
        took.append((time.perf_counter() - began) * 1000)
    assert losses.games == games and losses.enough == (games >= 100)
    print(
        f"{label}: decision_losses over {games} games ({games * 40} rows, as many of another ruleset): "
        f"{statistics.median(took):.1f} ms median, {max(took):.1f} ms worst of {runs}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--pg", default=os.environ.get("YAMBAK_TEST_POSTGRES_URL"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{folder}/bench.db")
        writes(store, "SQLite", args.runs)
        aggregate(store, "SQLite", args.games, args.runs)
        store.close()
    if args.pg:
        from tests.conftest import fresh_pg_database

        os.environ["YAMBAK_TEST_POSTGRES_URL"] = args.pg
        made = fresh_pg_database("yambak_bench_decisions")
        store = Store(next(made))
        try:
            writes(store, "PostgreSQL", args.runs)
            aggregate(store, "PostgreSQL", args.games, args.runs)
        finally:
            store.close()
            next(made, None)


if __name__ == "__main__":
    main()
