"""Regenerate docs/bots.md's measured tables: `nice -n 19 .venv/bin/python scripts/bots_table.py [--games 1000]`.

1. Every preset: the mean final score with its 95% interval over `--games` solitaire games of
   random, greedy, strong and the heuristic (the strong bot's expectimax over the fitted value
   model, never an exact table), the exact optimum where the solver has one, and for the
   multi-column presets the new strong bot's win rate against the old one (bench/frozen: the value
   model looked up by preset name, before issue 13) in `--duels` duplicate two-seat games.
2. The measurement set of issue 13 (bench/heuristic_vs_optimum.py): the heuristic against the
   exact optimum on one-column rulesets, models fitted from self-play only (a ruleset without a
   shipped or cached fit is fitted first, as a user's would be).
Seeded (seed 2024), so a rerun gives the same numbers. Writes the part of docs/bots.md between
the BEGIN/END markers.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.frozen.old_model import old_strong  # noqa: E402
from bench.heuristic_vs_optimum import DEFAULT, measure  # noqa: E402
from bench.strong_duel import duplicate_game, wilson  # noqa: E402

from yambak.bots import simulate_games  # noqa: E402
from yambak.bots.optimal import solvable, strategy_for  # noqa: E402
from yambak.bots.play import mean_ci  # noqa: E402
from yambak.bots.strong import strong  # noqa: E402
from yambak.rules import load_ruleset, preset_ids  # noqa: E402

DOC = ROOT / "docs" / "bots.md"
BEGIN, END = "<!-- BEGIN bots_table.py -->", "<!-- END bots_table.py -->"
SEED = 2024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--duels", type=int, default=200)
    parser.add_argument("--measure-games", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--presets", nargs="*", default=None)
    args = parser.parse_args()
    started = time.perf_counter()
    rows = []
    for preset in args.presets or preset_ids():
        rules = load_ruleset(preset)
        cells = {}
        for bot in ("random", "greedy", "strong", "heuristic"):
            if bot == "heuristic" and not solvable(rules):
                continue  # strong is the heuristic there
            scores = simulate_games(rules, bot, args.games, seed=SEED, workers=args.workers)
            cells[bot] = mean_ci(scores)
        optimum = strategy_for(rules).expected_score if solvable(rules) else None
        duel = None
        if len(rules.columns) > 1:
            wins = 0.0
            for g in range(args.duels):
                wins += duplicate_game(preset, strong, old_strong, f"table{SEED}:{g}", g % 2 == 0)[0]
            duel = (wins / args.duels, *wilson(wins, args.duels))
        rows.append((preset, cells, optimum, duel))
        print(f"{preset}: {json.dumps(cells)} optimum {optimum} duel {duel}", file=sys.stderr, flush=True)
    measured = [measure(spec, args.measure_games, 240.0) for spec in DEFAULT]

    def cell(mc: tuple[float, float] | None) -> str:
        return "" if mc is None else f"{mc[0]:.1f} ± {mc[1]:.1f}"

    lines = [
        BEGIN,
        f"Solitaire: {args.games} games per bot and preset; new v old strong: {args.duels} duplicate two-seat "
        f"games (seats alternate, shared wins count half, Wilson 95% interval); seed {SEED}. Scores are mean "
        "final totals ± the half-width of the 95% interval. Strong plays the exact table on yams and yatzy, the "
        "heuristic (the expectimax over the fitted value model) elsewhere, match-aware in yammen duels.",
        "",
        "| preset | random | greedy | strong | heuristic | optimum | new strong v old strong |",
        "|---|---|---|---|---|---|---|",
    ]
    for preset, cells, optimum, duel in rows:
        d = "" if duel is None else f"{duel[0]:.1%} [{duel[1]:.1%}, {duel[2]:.1%}]"
        o = "" if optimum is None else f"{optimum:.2f}"
        lines.append(
            f"| {preset} | {cell(cells['random'])} | {cell(cells['greedy'])} | {cell(cells['strong'])} | "
            f"{cell(cells.get('heuristic'))} | {o} | {d} |"
        )
    lines += [
        "",
        f"The heuristic against the exact optimum ({args.measure_games} games each, seeds `hvo:<i>`; "
        "`bench/heuristic_vs_optimum.py`); the model of each ruleset is fitted from self-play only (the "
        "two sub-sheets in `bench/rulesets/` have no shipped fit: they are fitted first, as a user's ruleset "
        "would be):",
        "",
        "| ruleset | heuristic | optimum | gap | model |",
        "|---|---|---|---|---|",
    ]
    for r in measured:
        lines.append(
            f"| {r['ruleset']} | {r['mean']:.2f} ± {r['half']:.2f} | {r['optimum']:.2f} | {r['gap']:.2f}% | "
            f"{r['model']} |"
        )
    lines += ["", f"Generated by `scripts/bots_table.py` in {time.perf_counter() - started:.0f} s.", END]
    text = DOC.read_text() if DOC.exists() else f"# Bots\n\n{BEGIN}\n{END}\n"
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(head + "\n".join(lines) + tail)
    print(f"wrote {DOC}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
