"""Engine throughput: random legal games per second per preset, and replay time.

    .venv/bin/python bench/engine.py [--seconds 2]

Goals (issue 2): >= 1,000 random yams games/s on one core; a 4-player yammen
record replayed in under 50 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from yambak.bots import random_policy
from yambak.engine import new_game, replay, state_to_record
from yambak.rules import load_ruleset, preset_ids


def play(rules, players: int, seed: int):  # type: ignore[no-untyped-def]
    state = new_game(rules, [f"p{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    while not state.finished:
        state, _ = state.apply(random_policy(state, state.current, rng))
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget per preset")
    args = parser.parse_args()
    # Rates per CPU-second of this process (one core), so that other load on the machine
    # shows up as a gap between the two columns rather than as a slower engine.
    print(
        f"{'preset':<10} {'games/cpu-s':>12} {'actions/cpu-s':>14} {'games/wall-s':>13}"
        "   (1 player, random legal policy)"
    )
    for pid in preset_ids():
        rules = load_ruleset(pid)
        games = actions = 0
        start, cpu_start = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < args.seconds:
            state = play(rules, 1, games)
            games += 1
            actions += sum(len(t.rolls) + 1 for t in state.history)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
        print(f"{pid:<10} {games / cpu:>12.0f} {actions / cpu:>14.0f} {games / wall:>13.0f}")

    record = state_to_record(play(load_ruleset("yammen"), 4, 7)).to_dict()
    times = []
    for _ in range(20):
        t0 = time.process_time()
        replay(record)
        times.append(time.process_time() - t0)
    print(
        f"\nreplay of a 4-player yammen record ({len(record['turns'])} turns): "
        f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms of CPU time"
    )


if __name__ == "__main__":
    main()
