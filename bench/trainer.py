"""Latency of a trainer answer (issue 32's goal: under 100 ms), and the time to generate a pool.

    .venv/bin/python bench/trainer.py [--presets ...] [--size N] [--answers N]

For each preset: the pool is generated once (the figure a server pays at its first trainer request of the
preset, shown apart); then every position of it is answered with each of its choices in turn, timed as
`trainer.grade` (the grade alone: the coach's values are part of the position) and as the whole HTTP
request through the app (`POST /api/train/{preset}/answer`): a profile's (the grade, OpenSkill's update of
the profile and the position, and the store's transaction, on SQLite in a temporary directory) and a
device's without a profile (the grade and the update of the rating it sent: no write), and, for
comparison, `coach.advise` asked afresh about the same position (what grading would cost if positions did
not carry their values). Median, p95 and max in ms.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from yambak.coach.advice import advise
from yambak.server import Settings, create_app
from yambak.server.trainer.manager import TrainerManager
from yambak.trainer import PoolSpec, generate_pool, grade, state_of


def _summary(times: list[float]) -> str:
    times = sorted(times)
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    return f"{statistics.median(times):8.2f} {p95:8.2f} {times[-1]:8.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="*", default=["yams", "yamb"])
    parser.add_argument("--size", type=int, default=30, help="positions per pool")
    parser.add_argument("--answers", type=int, default=200, help="HTTP answers timed per preset")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            database_url=f"sqlite:///{Path(tmp) / 'bench.db'}", warm_strategies=False, coach_process=False,
            http_rate=10**6, http_burst=10**6, profile_burst=10**6,
        )  # fmt: skip
        with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
            assert client.post("/api/me", json={"name": "Bench"}, headers={"origin": "http://127.0.0.1"}).is_success
            guest = TestClient(client.app, base_url="http://127.0.0.1")  # no profile: the device's rating
            guest.portal = client.portal
            client.app.state.trainer = manager = TrainerManager(client.app.state.store, size=args.size)
            print(f"{'preset':<8} {'what':<22} {'median ms':>9} {'p95 ms':>8} {'max ms':>8}  (n)")
            for preset in args.presets:
                t0 = time.perf_counter()
                pool = generate_pool(PoolSpec(preset, size=args.size, seed=manager.seed))
                made = (time.perf_counter() - t0) * 1000
                print(f"{preset:<8} {'generate the pool':<22} {made:9.0f}  ({len(pool)} positions)")
                client.get(f"/api/train/{preset}/next")  # the app's own pool (the same spec: the same positions)
                cores, https, anonymous, coaches = [], [], [], []
                for puzzle in pool:
                    for option in puzzle.options:
                        t = time.perf_counter()
                        grade(puzzle, option.choice)
                        cores.append((time.perf_counter() - t) * 1000)
                    state = state_of(puzzle)
                    t = time.perf_counter()
                    advise(state, 0, wins=False)
                    coaches.append((time.perf_counter() - t) * 1000)
                choices = [(p, o.choice.to_dict()) for p in pool for o in p.options]
                for n in range(args.answers):
                    puzzle, choice = choices[n % len(choices)]
                    t = time.perf_counter()
                    r = client.post(f"/api/train/{preset}/answer", json={"position": puzzle.id, "choice": choice})
                    https.append((time.perf_counter() - t) * 1000)
                    assert r.status_code == 200, r.text
                for n in range(args.answers):
                    puzzle, choice = choices[n % len(choices)]
                    body = {"position": puzzle.id, "choice": choice, "rating": {"mu": 25.0, "sigma": 8.0}}
                    t = time.perf_counter()
                    r = guest.post(f"/api/train/{preset}/answer", json=body)
                    anonymous.append((time.perf_counter() - t) * 1000)
                    assert r.status_code == 200, r.text
                print(f"{preset:<8} {'grade (core)':<22} {_summary(cores)}  ({len(cores)})")
                print(f"{preset:<8} {'answer (HTTP, device)':<22} {_summary(anonymous)}  ({len(anonymous)})")
                print(f"{preset:<8} {'answer (HTTP, profile)':<22} {_summary(https)}  ({len(https)})")
                print(f"{preset:<8} {'coach.advise afresh':<22} {_summary(coaches)}  ({len(coaches)})")


if __name__ == "__main__":
    main()
