"""The coach's win chances against games played out: Monte Carlo through the engine.

    .venv/bin/python bench/win_chances.py [--games N] [--seed S] [--write]

Two-seat yams. For each position (the opening: seat 0's first roll showing 6 6 5 3 1, seat 1 yet
to play; and a few mid-game positions of two optimal players), each of the coach's three best
choices is played out N times: seat 0 takes it and plays on with the optimal bot through the
engine, its final total compared with seat 1's final total, drawn from 200,000 games of optimal
play from where seat 1 stands (the solver's simulation) or exact once seat 1 has finished. A win
shared on equal totals counts as a win, as the coach counts it. Prints the coach's figure, the
Monte Carlo figure and its standard error. `--write` stores the opening's figures in
tests/coach/opening_win.json, which the coach's test reads (within 2 percentage points).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from yambak.bots import choose_action
from yambak.bots.optimal import strategy_for
from yambak.coach import advise
from yambak.engine import GameState, ManualDice, Roll, Score, new_game
from yambak.rules import load_ruleset
from yambak.solver import Position
from yambak.solver.advisor import position_state
from yambak.solver.simulate import remaining_scores

OPENING = (6, 6, 5, 3, 1)
STORED = Path(__file__).resolve().parents[1] / "tests" / "coach" / "opening_win.json"


def opening() -> GameState:
    state = new_game(load_ruleset("yams"), ["Ann", "Bram"], dice=ManualDice())
    return state.apply(Roll(0, dice=OPENING))[0]


def midgame(seed: int, turns: int) -> GameState:
    """Two optimal players `turns` turns each into a game, seat 0 after its first roll."""
    rules = load_ruleset("yams")
    rng = random.Random(seed)
    state = new_game(rules, ["Ann", "Bram"], dice=ManualDice())
    while len(state.history) < 2 * turns or state.current != 0:
        state = _step(state, rng)
    return state.apply(Roll(0, dice=tuple(rng.randint(1, 6) for _ in range(5))))[0]


def _step(state: GameState, rng: random.Random) -> GameState:
    """One action of the seat to play (the optimal bot), the dice rolled here for the manual source."""
    p = state.current
    if not state.turns[p].rolls:
        return state.apply(Roll(p, dice=tuple(rng.randint(1, 6) for _ in range(5))))[0]
    action = choose_action(state, p, "optimal", rng)
    return _apply(state, action, rng)


def _apply(state: GameState, action: Any, rng: random.Random) -> GameState:
    if isinstance(action, Roll):
        dice = state.turns[action.player].dice
        held = set(action.held or ())
        rolled = tuple(dice[i] if i in held else rng.randint(1, 6) for i in range(5))
        return state.apply(Roll(action.player, held=action.held, dice=rolled))[0]
    return state.apply(action)[0]


def _pass(state: GameState) -> GameState:
    """Seat 1's turn in a play-out: any box (its final total comes from `their_finals`, not from here)."""
    if not state.turns[1].rolls:
        return state.apply(Roll(1, dice=(1, 2, 3, 4, 6)))[0]
    return state.apply(Score(1, state.rules.box_id(state.legal_boxes(1)[0])))[0]


def their_finals(state: GameState, games: int, seed: int) -> np.ndarray:
    """Seat 1's final total: exact once finished, else optimal play simulated from where it stands."""
    rules = state.rules
    sheet = state.sheets[1]
    if sheet.full:
        return np.array([state.total(1)])
    strategy = strategy_for(rules)
    filled = {rules.rows[b].id: int(v) for b, v in enumerate(sheet.written) if v is not None}
    boxes, upper, yam, score = position_state(strategy, Position(filled, extra_bonus=sheet.extra_bonus))
    return score + remaining_scores(strategy, boxes, upper, yam, games, seed=seed, threads=2)


def my_finals(state: GameState, action: Any, games: int, seed: int) -> np.ndarray:
    """Seat 0's final total after `action`, then optimal play, in `games` games through the engine."""
    out = []
    for g in range(games):
        rng = random.Random(f"{seed}:{g}")
        s = _apply(state, action, rng)
        while not s.sheets[0].full:
            p = s.current
            s = _step(s, rng) if p == 0 else _pass(s)
        out.append(s.total(0))
    return np.array(out)


def measure(state: GameState, games: int, seed: int) -> list[dict[str, Any]]:
    advice = advise(state, 0)
    theirs = np.sort(their_finals(state, 200_000, seed))
    rows = []
    for option in sorted(advice.options, key=lambda o: -o.value)[:3]:
        t0 = time.perf_counter()
        mine = my_finals(state, option.action, games, seed)
        won = np.searchsorted(theirs, mine, side="right") / len(theirs)  # P(seat 1 ends at most at mine)
        rows.append({
            "option": option.label(), "coach": round(float(option.win or 0.0), 4),
            "monte_carlo": round(float(won.mean()), 4), "se": round(float(won.std(ddof=1) / np.sqrt(games)), 4),
            "games": games, "mean_total": round(float(mine.mean()), 2), "coach_value": round(option.value, 2),
            "seconds": round(time.perf_counter() - t0, 1),
        })  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000, help="games played out per choice")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mid", type=int, default=2, help="mid-game positions besides the opening")
    parser.add_argument("--write", action="store_true", help=f"store the opening's figures in {STORED.name}")
    args = parser.parse_args()
    positions = [("opening", opening())]
    positions += [(f"mid {t} turns", midgame(args.seed + t, t)) for t in (4, 8, 10)[: args.mid]]
    head = f"{'position':<14} {'choice':<24} {'coach':>7} {'MC':>7} {'SE':>6} {'diff pp':>8} {'s':>6}"
    print(head)
    for name, state in positions:
        rows = measure(state, args.games, args.seed)
        for r in rows:
            diff = 100 * (r["coach"] - r["monte_carlo"])
            print(f"{name:<14} {r['option']:<24} {r['coach']:>7.4f} {r['monte_carlo']:>7.4f} {r['se']:>6.4f} "
                  f"{diff:>8.2f} {r['seconds']:>6.1f}")  # fmt: skip
        if name == "opening" and args.write:
            data = {"rules": "yams", "seats": 2, "dice": list(OPENING), "seed": args.seed, "choices": rows,
                    "how": "bench/win_chances.py --write: each choice played out through the engine with the "
                    "optimal bot; seat 1 from 200,000 simulated games of optimal play"}  # fmt: skip
            STORED.write_text(json.dumps(data, indent=1) + "\n")
            print(f"stored in {STORED}")


if __name__ == "__main__":
    main()
