#!/usr/bin/env python3
"""The CPU of one table view (`gameview.game_view`: the engine's outlook of the turn's every box, the sheets,
the totals), what the server spends on every action it broadcasts (`bench/load.py` counts it as "view").

Positions: the turns of a two-player game of the medium bot, each view made from a state whose sheets
have not been asked anything yet (their memos emptied), as the server meets a new state after each action.
The best of `--repeats` passes, so that a loaded machine's slow passes do not count; run two trees in turn
to compare them (PYTHONPATH=OTHER/src python bench/view.py).

    .venv/bin/python bench/view.py [--presets yams yams-fr yamb] [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import random
import time

from yambak.bots import choose_action
from yambak.engine import GameState, new_game
from yambak.gameview import game_view
from yambak.rules import load_ruleset


def positions(preset: str, seed: int = 1) -> list[GameState]:
    """The states of a two-player game of the medium bot where the player to act has rolled."""
    state = new_game(load_ruleset(preset), ["A", "B"], seed=f"view/{preset}")
    rng, out = random.Random(seed), []
    while not state.finished:
        p = state.to_act()[0]
        state, _ = state.apply(choose_action(state, p, "greedy", rng))
        if not state.finished and state.turns[state.to_act()[0]].rolls:
            out.append(state)
    return out


def per_view(states: list[GameState]) -> float:
    """Seconds of CPU per view, over one pass of the states (memos emptied first)."""
    spent = 0.0
    for state in states:
        for sheet in state.sheets:
            sheet.memo.clear()
        started = time.process_time()
        game_view(state, frozenset({0}))
        spent += time.process_time() - started
    return spent / len(states)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", default=["yams", "yams-fr", "yamb"])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for preset in args.presets:
        states = positions(preset)
        best = min(per_view(states) for _ in range(args.repeats))
        print(f"{preset:10} {len(states):4} views  {best * 1e3:.3f} ms of CPU per view (best of {args.repeats})")


if __name__ == "__main__":
    main()
