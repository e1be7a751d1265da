"""A profile's pages and statistics with many stored games.

    .venv/bin/python bench/profiles.py [--games 1000] [--pg URL] [--pg-games 100000] [--runs 30]

1. The time to render a profile's pages (My games, first and last page; statistics, the most played
   variant and another) with `--games` stored games, through the whole app in process (the HTTP
   request as a browser makes it, on SQLite; on PostgreSQL too with --pg).
2. With --pg (or YAMBAK_TEST_POSTGRES_URL): `--pg-games` results on PostgreSQL, in a database of the
   bench's own (created, then dropped): one profile with 1,000 of them, another with all the rest. The
   cost of the statistics query (`Store.stats`: one aggregate per variant) and of everything the
   statistics page asks the store (aggregates, histogram, trend, personal bests), for each profile,
   with the query plan's own execution time.

The stored numbers are drawn from a pool of real games (the greedy bot's, read by the engine as a
finished table's results are), so scores, bonuses and yams have the spread real games have.
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
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from yambak.bots import greedy  # noqa: E402
from yambak.engine import new_game, state_to_record  # noqa: E402
from yambak.rules import load_ruleset  # noqa: E402
from yambak.server.profiles.results import kept_result  # noqa: E402
from yambak.store import ResultRow, Store  # noqa: E402

PRESETS = (("yams", 0.6), ("yatzy", 0.25), ("yams-fr", 0.15))
T0 = datetime(2026, 1, 1)


def pool(per_preset: int, seed: int = 1) -> dict[str, list[ResultRow]]:
    """Finished two-player games of each preset, read by the engine (kept records: they carry theirs)."""
    out: dict[str, list[ResultRow]] = {}
    for preset, _ in PRESETS:
        rules = load_ruleset(preset)
        games = []
        for i in range(per_preset):
            state = new_game(rules, ["Ann", "Lou"], seed=seed * 100_000 + i)
            rng = random.Random(i)
            while not state.finished:
                state, _ = state.apply(greedy(state, state.current, rng))
            games.append(kept_result("x", f"{preset}-{i}", state_to_record(state).to_dict(), 0, T0))
        out[preset] = games
    return out


def rows_for(profile_id: str, n: int, games: dict[str, list[ResultRow]], rng: random.Random) -> list[ResultRow]:
    """n results of a profile over a year: a fifth kept sheets (with their records), the rest tables."""
    names = [p for p, _ in PRESETS]
    weights = [w for _, w in PRESETS]
    out = []
    for i in range(n):
        base = rng.choice(games[rng.choices(names, weights)[0]])
        kept = rng.random() < 0.2
        decisions = rng.randint(20, 40)
        out.append(
            ResultRow(
                profile_id=profile_id, kind="kept" if kept else "table", ref=f"r{i}-{secrets.token_hex(4)}",
                seat=0, preset=base.preset, rules_id=base.rules_id,
                finished_at=T0 + timedelta(minutes=i * 525_600 // max(1, n)), score=base.score, won=base.won,
                players=base.players, counted=not kept, bonus_columns=base.bonus_columns, columns=base.columns,
                yams=base.yams, yam_boxes=base.yam_boxes, accuracy=abs(rng.gauss(2.0, 1.0)), decisions=decisions,
                record=base.record if kept else None,
            )
        )  # fmt: skip
    return out


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    """(median, 95th percentile) in milliseconds, after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def bench_pages(
    url: str, n: int, games: dict[str, list[ResultRow]], runs: int, then: Callable[[Store], str] | None = None
) -> None:
    """Render the pages of a profile with n games; `then`: store other profiles' games, render again."""
    from fastapi.testclient import TestClient

    from yambak.server import Settings, create_app

    settings = Settings(database_url=url, warm_strategies=False, rate_per_second=10_000, rate_burst=10_000)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        r = client.post("/api/me", json={"name": "Ann"})
        assert r.status_code == 201, r.text
        pid = r.json()["profile"]["id"]
        store: Store = client.app.state.profiles.store  # type: ignore[attr-defined]
        t = time.perf_counter()
        store.insert_results(rows_for(pid, n, games, random.Random(2)))
        print(f"  {n:,} games of one profile stored in {time.perf_counter() - t:.1f} s")
        if store.dialect == "postgresql":  # as autovacuum would soon: the planner's figures, up to date
            with store.engine.begin() as conn:
                conn.exec_driver_sql("ANALYZE results")
        render(client, runs)
        if then is not None:
            print(f"  the same pages with {then(store)}:")
            render(client, runs)
            stats_costs(store, pid, f"the profile with {n:,} games", runs)


def render(client: Any, runs: int) -> None:
    last = client.get("/api/me/games").json()["pages"]
    pages = [
        ("My games, page 1", "/me"),
        (f"My games, page {last}", f"/me?page={last}"),
        ("My games, one preset", "/me?preset=yatzy"),
        ("Statistics (most played)", "/me/stats"),
        ("Statistics (yatzy)", "/me/stats?v=yatzy"),
    ]
    for label, path in pages:
        size = len(client.get(path).content)

        def get(path: str = path) -> None:
            assert client.get(path).status_code == 200

        med, p95 = timed(get, runs)
        print(f"    {label:<26} {med:7.1f} ms median  {p95:7.1f} ms p95  ({size // 1024} kB)")


def bench_postgres(base_url: str, n: int, total: int, games: dict[str, list[ResultRow]], runs: int) -> None:
    """On a database of the bench's own: a profile's pages with n games, then with `total` games stored
    (another profile holds the rest), and the statistics queries' costs for both profiles."""
    import psycopg

    admin = base_url.replace("postgresql+psycopg://", "postgresql://")
    name = f"yambak_bench_{secrets.token_hex(4)}"
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f"CREATE DATABASE {name}")

    def fill(store: Store) -> str:
        from yambak.store.models import Result

        big = secrets.token_urlsafe(9)
        store.create_profile(big, "Bram", secrets.token_hex(32), T0)
        rng = random.Random(3)
        columns = [k for k in Result.__table__.columns.keys() if k != "id"]
        t = time.perf_counter()
        for start in range(0, total - n, 10_000):  # plain inserts: personal bests do not matter here
            rows = rows_for(big, min(10_000, total - n - start), games, rng)
            with store.engine.begin() as conn:
                conn.execute(Result.__table__.insert(), [{k: getattr(r, k) for k in columns} for r in rows])
        with store.engine.begin() as conn:
            conn.exec_driver_sql("ANALYZE results")
        took = time.perf_counter() - t
        stats_costs(store, big, f"a profile with {total - n:,} games", runs)
        return f"{total:,} games stored ({total - n:,} more of another profile's, stored in {took:.0f} s)"

    try:
        bench_pages(base_url.rsplit("/", 1)[0] + "/" + name, n, games, runs, then=fill)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def stats_costs(store: Store, pid: str, label: str, runs: int) -> None:
    from yambak.server.profiles.stats import stats_page
    from yambak.store import ProfileRow

    profile = ProfileRow(pid, "x")
    med, p95 = timed(lambda: store.stats(pid), runs)
    print(f"    {label}: the statistics query {med:.2f} ms median, {p95:.2f} ms p95")
    print(f"      plan: {explain(store, pid)}")
    med, p95 = timed(lambda: stats_page(store, profile, "en", None), runs)
    print(f"    {label}: all the statistics page reads {med:.2f} ms median, {p95:.2f} ms p95")


def explain(store: Store, pid: str) -> str:
    """The statistics query's plan (its first node and the execution time PostgreSQL measured)."""
    from sqlalchemy.dialects import postgresql

    query = store.stats_query(pid)
    sql = str(query.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))
    with store.engine.connect() as conn:
        lines = [r[0] for r in conn.exec_driver_sql("EXPLAIN (ANALYZE, BUFFERS) " + sql)]
    scan = next((ln.strip().lstrip("-> ") for ln in lines if "Scan" in ln), lines[0].strip())
    took = next((ln.strip() for ln in lines if ln.startswith("Execution Time")), "")
    return f"{scan.split('  ')[0]}; {took}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games of the profile whose pages are rendered")
    parser.add_argument("--pg", default=os.environ.get("YAMBAK_TEST_POSTGRES_URL", ""), help="PostgreSQL URL")
    parser.add_argument("--pg-games", type=int, default=100_000, help="games stored on PostgreSQL")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    t = time.perf_counter()
    games = pool(40)
    print(f"pool of {sum(map(len, games.values()))} real games played in {time.perf_counter() - t:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"Rendering a profile's pages, {args.games} stored games, SQLite:")
        bench_pages(f"sqlite:///{tmp}/bench.db", args.games, games, args.runs)
    if args.pg:
        print(f"Rendering a profile's pages and its statistics, PostgreSQL, {args.pg_games:,} stored games:")
        bench_postgres(args.pg, args.games, args.pg_games, games, args.runs)
    else:
        print("(no PostgreSQL: pass --pg URL or set YAMBAK_TEST_POSTGRES_URL)")


if __name__ == "__main__":
    main()
