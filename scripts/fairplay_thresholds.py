"""Measure the thrown-game thresholds of the fair-play review (docs/ranked.md):

    nice -n 19 .venv/bin/python scripts/fairplay_thresholds.py [--games 1000] [--medium 100] [--processes 2]
        [--presets PRESET ...]

For every preset: `--games` solitaire games of the easy bot (the `random` policy), each graded by the
server's own grader (`server/profiles/results.grade`: the coach's review, mean points lost per decision),
and their median; `--medium` games of the medium bot (`greedy`) graded the same way, for the margin
(its worst game). Seeded (game i of a preset and bot is seeded "fairplay/<preset>/<bot>/<i>"), so a rerun
gives the same numbers. Writes the thresholds the server reads (`src/yambak/server/ranked/fairplay.json`)
and the table of docs/ranked.md between its BEGIN/END markers.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from yambak.bots import play_game
from yambak.engine import state_to_record
from yambak.rules import load_ruleset, preset_ids
from yambak.server.profiles.results import grade

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src/yambak/server/ranked/fairplay.json"
DOC = ROOT / "docs/ranked.md"
LOCK = Path(tempfile.gettempdir()) / "yambak-fairplay-thresholds.lock"
BEGIN, END = "<!-- BEGIN fairplay thresholds -->", "<!-- END fairplay thresholds -->"
LEVEL = {"random": "easy", "greedy": "medium"}


def graded(job: tuple[str, str, int]) -> float | None:
    """The accuracy (points lost per decision) of one seeded solitaire game of a bot."""
    preset, bot, i = job
    state = play_game(load_ruleset(preset), [bot], f"fairplay/{preset}/{bot}/{i}")
    return grade(state_to_record(state).to_dict(), 0).accuracy


def measure(pool: ProcessPoolExecutor, preset: str, bot: str, games: int) -> list[float]:
    jobs = [(preset, bot, i) for i in range(games)]
    return [a for a in pool.map(graded, jobs, chunksize=10) if a is not None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="easy-bot games per preset")
    parser.add_argument("--medium", type=int, default=100, help="medium-bot games per preset (the margin)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--presets", nargs="*", default=None)
    args = parser.parse_args()
    with ProcessPoolExecutor(args.processes) as pool:
        for preset in args.presets or preset_ids():
            started = time.monotonic()
            easy = measure(pool, preset, "random", args.games)
            medium = measure(pool, preset, "greedy", args.medium)
            row = {
                "easy_median": round(statistics.median(easy), 4),
                "easy_games": len(easy),
                "easy_p10": round(statistics.quantiles(easy, n=10)[0], 4),
                "medium_games": len(medium),
                "medium_median": round(statistics.median(medium), 4),
                "medium_worst": round(max(medium), 4),
            }
            print(preset, row, f"{time.monotonic() - started:.0f} s", flush=True)
            with LOCK.open("w") as lock:  # runs for other presets may write beside this one
                fcntl.flock(lock, fcntl.LOCK_EX)
                data = json.loads(DATA.read_text()) if DATA.exists() else {}
                data[preset] = row
                DATA.write_text(json.dumps(dict(sorted(data.items())), indent=1) + "\n")
                write_table(data)


def write_table(data: dict[str, dict[str, float]]) -> None:
    """docs/ranked.md's table of the figures, between its markers."""
    table = [
        "| preset | easy games | easy median (threshold) | easy 10th percentile "
        "| medium games | medium median | medium worst |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for preset, d in sorted(data.items()):
        table.append(
            f"| {preset} | {d['easy_games']} | {d['easy_median']:.2f} | {d['easy_p10']:.2f} | {d['medium_games']} "
            f"| {d['medium_median']:.2f} | {d['medium_worst']:.2f} |"
        )
    text = DOC.read_text()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    DOC.write_text(head + BEGIN + "\n" + "\n".join(table) + "\n" + END + tail)


if __name__ == "__main__":
    main()
