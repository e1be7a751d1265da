"""Whether every bot level uses the rules it plays: saved rolls in Maxi Yatzy, announcements in yammen.

    .venv/bin/python bench/bot_rules.py [--games N]

For each level, N solitaire Maxi Yatzy games (default 200): the share of turns that left a roll
unused (saved it), the share of games that spent saved rolls (a turn of more than three rolls) and
the mean total; then the announced turns of N/10 yammen games.
"""

from __future__ import annotations

import argparse
import random
import time

from yambak.bots import LEVELS, choose_action
from yambak.engine import new_game
from yambak.rules import load_ruleset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    maxi, yammen = load_ruleset("maxi-yatzy"), load_ruleset("yammen")
    for level in LEVELS:
        start = time.perf_counter()
        turns = saving = spending = total = 0
        for g in range(args.games):
            state, rng, spent = new_game(maxi, [level], seed=f"saved-{g}"), random.Random(g), False
            while not state.finished:
                before, rolls = state.sheets[0].turns, len(state.turns[0].rolls)
                state, _ = state.apply(choose_action(state, 0, level, rng))
                if state.sheets[0].turns != before:
                    turns += 1
                    saving += rolls < maxi.rolls_per_turn
                    spent = spent or rolls > maxi.rolls_per_turn
            spending += spent
            total += state.total(0)
        seconds = time.perf_counter() - start
        announced = 0
        for g in range(max(1, args.games // 10)):
            state, rng = new_game(yammen, [level], seed=f"announce-{g}"), random.Random(g)
            while not state.finished:
                state, event = state.apply(choose_action(state, 0, level, rng))
                announced += event.type == "announced"
        print(
            f"{level:6} saves in {saving / turns:.1%} of turns, spends in {spending / args.games:.0%} of games, "
            f"mean {total / args.games:.1f} ({seconds / args.games * 1000:.0f} ms a game); "
            f"{announced} announced turns in {max(1, args.games // 10)} yammen games"
        )


if __name__ == "__main__":
    main()
