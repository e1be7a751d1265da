#!/usr/bin/env python3
"""A group's season page (`yambak.keeper.season`) over many kept sheets: its first reading, where every
record is replayed through the engine, and the next ones, where the server's `Groups.read` has kept what it
read of each record (by the record's digest).

    .venv/bin/python bench/season.py [--sheets 500] [--preset yammen] [--players 4]
"""

from __future__ import annotations

import argparse
import os
import random
import time

from yambak.bots import greedy
from yambak.engine import new_game, state_to_record
from yambak.keeper.season import SeasonSheet, season
from yambak.rules import load_ruleset
from yambak.server.keeper.groups import Groups


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sheets", type=int, default=500)
    p.add_argument("--preset", default="yammen")
    p.add_argument("--players", type=int, default=4)
    args = p.parse_args()
    rules = load_ruleset(args.preset)
    names = [f"Player {i + 1}" for i in range(args.players)]
    sheets = []
    for i in range(args.sheets):  # every sheet a game of its own (the greedy bot's), as evenings are
        state, rng = new_game(rules, names, seed=i), random.Random(i)
        while not state.finished:
            state, _ = state.apply(greedy(state, state.current, rng))
        sheets.append(SeasonSheet(str(i), f"Evening {i}", "2026-01-01", state_to_record(state).to_dict()))
    groups = Groups(store=None)  # type: ignore[arg-type]  # `read` never touches the store
    print(f"{args.sheets} sheets of {args.preset}, {args.players} players; load average {os.getloadavg()[0]:.2f}")
    for label in ("first reading (every record replayed)", "second reading (kept)", "third reading (kept)"):
        started = time.process_time()
        season(sheets, groups.read)
        print(f"  {label}: {time.process_time() - started:.3f} s of CPU")


if __name__ == "__main__":
    main()
