"""The advisor's answer time per decision: `solver.advise` on positions from real games, and beside it the
native peer's answer for the same positions.

    .venv/bin/python bench/advisor_vs.py [--presets yatzy yams] [--games 20] [--rounds 5] [--peer PATH]

Positions: every decision after a roll of `--games` games of the preset played by the optimal bot (seeded),
so the sheets, dice and rolls are the ones a player meets, each a different state. Each is answered once per
round (`--rounds`), warm (kernels compiled, the float32 table mapped, as the coach and the server read it),
the positions in a new order each round, the advisor's memory of the sheets it has read cleared each round
(a game reads each sheet anew once a turn); the figure is the median over all answers, with p90, the
answer with every `Choice` read (`advise` names its best at once and makes the others when `keeps` and
`boxes` are first read: what the coach pays, which lists them all) and the numbers alone (`position_values`,
no `Advice`) beside it.

`--peer`: PATH is a harness built on dlangk/yatzy's solver crate (Rust, Scandinavian Yatzy only, so the
row is yatzy), outside this repository: given a table file and the positions written by this script (one a
line: upper score capped at 63, scored-category mask in the peer's order (ours is the same: ones .. sixes,
one pair .. yatzy), rerolls left, five dice), it answers each with the peer's per-roll entry point
`api_computations::compute_roll_response` (every reroll mask's and every category's value, the best of
each), `--rounds` times in a new order each, and prints its median and p90 in microseconds and its value of
each position. The table it reads is ours in the peer's layout (`_peer_table`; it agrees with the table the
peer's own `yatzy-precompute` writes within 4.6e-4 on all 1,430,465 states it solves), and the bench checks
that both value every position alike.

How the peer was rebuilt here (no network but the package registries; crates.io out of reach): the files of
its `solver/` crate were read from a stored copy of https://github.com/dlangk/yatzy (Cargo.toml's profile at
commit 094d9d9ddf32e8a50959e973f6ac131e157e2286; the copy does not hold every file at that commit, so the
other files are the one version of each that it gave, named in each rebuilt file's first line), keeping the
modules that the per-roll answer and the θ = 0 table solve use (constants, types, dice_mechanics,
game_mechanics, phase0_tables, widget_solver, api_computations, state_computation, storage, env_config), with
rayon 1.6.1 and memmap2 0.5.7 from Debian's librust-rayon-dev and librust-memmap2-dev (a cargo source
replacement to /usr/share/cargo/registry), then `nice -n 19 cargo build --release` (rustc 1.95, its release
profile: opt-level 3, fat LTO, one codegen unit). The harness is a 60-line `src/bin/` of that crate. Both
sides run in turn in one invocation: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from yambak.bots import choose_action
from yambak.engine import new_game
from yambak.rules import load_ruleset
from yambak.solver import Position, Strategy, advise, advisor, solve
from yambak.solver.advisor import position_of, position_values


def positions(preset: str, games: int, seed: int = 0) -> list[Position]:
    """Every position after a roll of seat 0 in `games` games played by the optimal bot."""
    rules = load_ruleset(preset)
    out: list[Position] = []
    for g in range(games):
        state = new_game(rules, ["strong"], seed=f"advisor{seed}:{g}")
        rng = random.Random(g)
        while not state.finished:
            if state.turns[0].rolls:
                out.append(position_of(state, 0))
            state, _ = state.apply(choose_action(state, 0, "strong", rng))
    return out


def _time(strategy: Strategy, found: list[Position], rounds: int, read: str = "answer") -> list[float]:
    """Seconds per position: `read` "answer" (`advise`), "choices" (`advise` and every choice it lists)
    or "numbers" (`position_values`)."""
    order = list(found)
    rng = random.Random(1)
    times: list[float] = []
    for _ in range(rounds):
        rng.shuffle(order)
        advisor._SHEETS.clear()  # each sheet new once a round, as in a game: once a turn, not once a roll
        for p in order:
            start = time.perf_counter()
            if read == "numbers":
                position_values(strategy, p)
            elif read == "choices":
                advice = advise(strategy, p, compiled=True)
                _ = advice.keeps, advice.boxes  # made when first read: the time to make them
            else:
                advise(strategy, p, compiled=True)
            times.append(time.perf_counter() - start)
    return times


def _peer_input(strategy: Strategy, found: list[Position]) -> str:
    """The positions as the peer harness reads them (upper score capped at 63 as the peer keeps it)."""
    rows = [row.id for row in strategy.ruleset.rows]  # position_of names rows by their ids
    lines = []
    for p in found:
        mask = sum(1 << rows.index(name) for name in p.filled)
        upper = min(63, sum(v for name, v in p.filled.items() if rows.index(name) < 6))
        lines.append(" ".join(map(str, (upper, mask, strategy.rules.rolls - p.roll, *p.dice))))
    return "\n".join(lines) + "\n"


def _peer_table(strategy: Strategy) -> np.ndarray:
    """Our Yatzy table in the peer's layout (scored * 128 + upper, 64..127 a copy of 63), float32. The peer
    counts the upper bonus at the game's end, so a state with the bonus reached is worth 50 more there."""
    sr = strategy.rules
    masks = np.arange(1 << sr.n_rows)[:, None]
    upper = np.minimum(np.arange(128), sr.n_upper - 1)[None, :]
    values = strategy.table[sr.flat(masks, upper, 0), 0] + np.where(upper >= sr.threshold, sr.bonus, 0)
    return np.ascontiguousarray(values, dtype="<f4")


def _peer(binary: Path, strategy: Strategy, found: list[Position], rounds: int) -> dict[str, float]:
    """The harness's median and p90, and the largest gap between its value of each position and ours
    (the same game and table: a check that both answered the same question)."""
    with tempfile.TemporaryDirectory(prefix="yambak-peer-") as tmp:
        table, source = Path(tmp) / "table.f32", Path(tmp) / "positions.txt"
        _peer_table(strategy).tofile(table)
        source.write_text(_peer_input(strategy, found))
        out = subprocess.run(
            [str(binary), str(table), str(source), str(rounds)], check=True, capture_output=True, text=True
        ).stdout.splitlines()
    figures = {k: float(v) for k, v in (part.split("=") for part in out[0].split())}
    sr, gap = strategy.rules, 0.0
    for line in out[1:]:
        _, i, ev = line.split()
        p = found[int(i)]
        advice = advise(strategy, p, compiled=True)
        upper = sum(v for name, v in p.filled.items() if strategy.ruleset.parse_box(name) in range(6))
        ours = advice.value - advice.score + (sr.bonus if upper >= sr.threshold else 0)
        gap = max(gap, abs(float(ev) - ours))
    return {**figures, "gap": gap}


def _quantile(times: list[float], q: float) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="*", default=["yatzy", "yams"])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--peer", type=Path, metavar="PATH", help="the dlangk/yatzy harness (see the docstring)")
    args = parser.parse_args()
    print(f"load average before {os.getloadavg()[0]:.1f}; nice {os.nice(0)}")
    print(
        f"{'preset':<10}{'answer by':<16}{'positions':>10}{'median us':>11}{'p90 us':>9}{'choices us':>12}"
        f"{'numbers us':>12}"
    )  # fmt: skip
    for preset in args.presets:
        strategy = solve(preset, lean=True)
        found = positions(preset, args.games)
        _time(strategy, found[:50], 1)  # compiled, pages mapped: untimed
        if args.peer is not None and preset == "yatzy":
            theirs = _peer(args.peer, strategy, found, args.rounds)
            print(f"{preset:<10}{'dlangk/yatzy':<16}{len(found):>10}{theirs['median_us']:>11.1f}"
                  f"{theirs['p90_us']:>9.1f}{'':>24}")  # fmt: skip
        answers = _time(strategy, found, args.rounds)
        choices = _time(strategy, found, args.rounds, "choices")
        numbers = _time(strategy, found, args.rounds, "numbers")
        ours = statistics.median(answers) * 1e6
        print(f"{preset:<10}{'this tree':<16}{len(found):>10}{ours:>11.1f}{_quantile(answers, 0.9) * 1e6:>9.1f}"
              f"{statistics.median(choices) * 1e6:>12.1f}{statistics.median(numbers) * 1e6:>12.1f}")  # fmt: skip
        if args.peer is not None and preset == "yatzy":
            print(f"{'':<10}{'this / peer':<16}{'':>10}{ours / theirs['median_us']:>11.2f}"
                  f"   (largest gap between the two values of a position: {theirs['gap']:.2g})")  # fmt: skip
    print(f"load average after {os.getloadavg()[0]:.1f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
