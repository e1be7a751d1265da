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
    print(f"{'preset':<10} {'games/s':>10} {'actions/s':>11}   (1 player, random legal policy, one core)")
    for pid in preset_ids():
        rules = load_ruleset(pid)
        games = actions = 0
        start = time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            state = play(rules, 1, games)
            games += 1
            actions += sum(len(t.rolls) + 1 for t in state.history)
        elapsed = time.perf_counter() - start
        print(f"{pid:<10} {games / elapsed:>10.0f} {actions / elapsed:>11.0f}")

    record = state_to_record(play(load_ruleset("yammen"), 4, 7)).to_dict()
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        replay(record)
        times.append(time.perf_counter() - t0)
    print(
        f"\nreplay of a 4-player yammen record ({len(record['turns'])} turns): "
        f"median {statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
