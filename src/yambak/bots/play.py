"""Playing whole games with bots through the engine: solitaire runs and duplicate duels.

Every game is seeded from (seed, game number), for its dice and for the bots'
random choices, so a run is reproducible whatever the number of worker processes.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..engine import DuplicateDice, GameState, new_game
from ..rules import Ruleset
from .policies import POLICIES, choose_action

__all__ = [
    "DuelResult",
    "GameStats",
    "check_bot",
    "duel",
    "mean_ci",
    "play_game",
    "simulate_details",
    "simulate_games",
    "summarize",
    "wilson",
]


def check_bot(name: str) -> None:
    if name not in POLICIES:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(POLICIES)})")


def play_game(rules: Ruleset, bots: Sequence[str], seed: Any, duplicate: bool = False) -> GameState:
    """One game, seat i played by bots[i]; the finished state."""
    dice = DuplicateDice(seed) if duplicate else None
    state = new_game(rules, [f"{b}#{i}" for i, b in enumerate(bots)], dice=dice, seed=seed)
    rngs = [random.Random(f"{seed}/{i}") for i in range(len(bots))]
    while not state.finished:
        p = state.current
        state, _ = state.apply(choose_action(state, p, bots[p], rngs[p]))
    return state


@dataclass(frozen=True)
class GameStats:
    """One finished solitaire game: its total, and the shares of its columns that made the
    upper bonus and of its yam boxes that scored (the engine's scores, read, not recomputed)."""

    total: int
    bonus_share: float
    yam_share: float

    @classmethod
    def of(cls, state: GameState) -> GameStats:
        columns = state.column_scores(0)
        yam_rows = [r.id for r in state.rules.rows if r.kind == "yam"]
        yams = [c.boxes[r] for c in columns for r in yam_rows]
        return cls(
            state.total(0),
            sum(c.bonus > 0 for c in columns) / len(columns),
            sum(1 for v in yams if v) / len(yams) if yams else 0.0,
        )


def _solitaire_chunk(args: tuple[Ruleset, str, int, list[int]]) -> list[GameStats]:
    rules, bot, seed, indices = args
    return [GameStats.of(play_game(rules, [bot], f"{seed}:{i}")) for i in indices]


def _run_chunks(
    fn: Callable[[Any], list[Any]], jobs: list[Any], workers: int, progress: Callable[[int], None] | None
) -> list[Any]:
    out: list[Any] = []
    if workers <= 1:
        for job in jobs:
            part = fn(job)
            out.extend(part)
            if progress:
                progress(len(part))
        return out
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(fn, jobs):
            out.extend(part)
            if progress:
                progress(len(part))
    return out


def _chunks(n: int, size: int) -> list[list[int]]:
    return [list(range(s, min(n, s + size))) for s in range(0, n, size)]


def simulate_games(
    rules: Ruleset, bot: str, games: int, seed: int = 0, progress: Any = False, workers: int = 1
) -> list[int]:
    """Final totals of `games` solitaire games of any ruleset played by the named bot.

    `progress`: False, True (a tqdm bar on stderr) or a callable taking a game count.
    """
    return [g.total for g in simulate_details(rules, bot, games, seed, progress, workers)]


def simulate_details(
    rules: Ruleset, bot: str, games: int, seed: int = 0, progress: Any = False, workers: int = 1
) -> list[GameStats]:
    """`simulate_games` with each game's bonus and yam shares."""
    check_bot(bot)
    jobs = [(rules, bot, seed, idx) for idx in _chunks(games, 25)]
    bar = None
    if progress is True:
        from tqdm import tqdm  # type: ignore[import-untyped]

        bar = tqdm(total=games, desc=f"{rules.id} {bot}", unit="game", leave=False)
        progress = bar.update
    try:
        return _run_chunks(_solitaire_chunk, jobs, workers, progress or None)
    finally:
        if bar is not None:
            bar.close()


def summarize(
    preset: str, bot: str, scores: Sequence[int], seconds: float, details: Sequence[GameStats] | None = None
) -> dict[str, Any]:
    """The figures of `yambak simulate --json` (the solver's keys; the rates need `details`)."""
    import numpy as np

    arr = np.asarray(scores, dtype=np.float64)
    pct = np.percentile(arr, [5, 25, 50, 75, 95]) if len(arr) else [float("nan")] * 5
    mean, half = mean_ci([float(v) for v in arr])
    return {
        "preset": preset,
        "bot": bot,
        "games": len(arr),
        "mean": mean,
        "std": float(arr.std(ddof=1)) if len(arr) > 1 else 0.0,
        "ci95": [mean - half, mean + half],
        "percentiles": {str(p): float(v) for p, v in zip((5, 25, 50, 75, 95), pct, strict=False)},
        "upper_bonus_rate": sum(d.bonus_share for d in details) / len(details) if details else None,
        "yam_rate": sum(d.yam_share for d in details) / len(details) if details else None,
        "seconds": seconds,
    }


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """(mean, half-width of the 95% normal interval)."""
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    if n < 2:
        return mean, float("nan")
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (sound at 0% and 100%, unlike the normal one)."""
    if n == 0:
        return float("nan"), float("nan")
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@dataclass
class DuelResult:
    rules: str
    bots: tuple[str, str]
    seed: int
    totals: list[tuple[int, int]] = field(default_factory=list)  # (A, B) per game
    points: list[tuple[float, float]] = field(default_factory=list)  # match points per game (column_points)
    wins: list[float] = field(default_factory=list)  # 1 = A won, 0.5 = shared, 0 = B won
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        n = len(self.wins)
        out: dict[str, Any] = {"rules": self.rules, "games": n, "seed": self.seed, "bots": []}
        for j, name in enumerate(self.bots):
            mean, half = mean_ci([t[j] for t in self.totals])
            entry: dict[str, Any] = {"bot": name, "mean": mean, "ci95": [mean - half, mean + half]}
            if self.points:
                pm, ph = mean_ci([pt[j] for pt in self.points])
                entry["match_points"] = pm
                entry["match_points_ci95"] = [pm - ph, pm + ph]
            else:
                entry["match_points"] = None
            out["bots"].append(entry)
        rate = sum(self.wins) / n if n else float("nan")
        out["win_rate"] = rate  # of the first bot; shared wins count half
        out["win_rate_ci95"] = list(wilson(rate, n))
        out["wins"] = sum(1 for w in self.wins if w == 1.0)
        out["losses"] = sum(1 for w in self.wins if w == 0.0)
        out["shared"] = n - out["wins"] - out["losses"]
        diff, dh = mean_ci([a - b for a, b in self.totals])
        out["mean_difference"] = diff
        out["mean_difference_ci95"] = [diff - dh, diff + dh]
        out["seconds"] = self.seconds
        return out


def _duel_chunk(args: tuple[Ruleset, str, str, int, list[int]]) -> list[tuple[int, int, Any, float]]:
    rules, a, b, seed, indices = args
    out = []
    for i in indices:
        seats = [a, b] if i % 2 == 0 else [b, a]  # alternate who plays first
        state = play_game(rules, seats, f"{seed}:{i}", duplicate=True)
        ia, ib = (0, 1) if i % 2 == 0 else (1, 0)
        totals = state.totals()
        points = state.match_points()
        winners = state.winners()
        win = (1.0 / len(winners)) if ia in winners else 0.0
        if ia in winners and len(winners) > 1:
            win = 0.5
        out.append((totals[ia], totals[ib], (points[ia], points[ib]) if points else None, win))
    return out


def duel(
    rules: Ruleset, a: str, b: str, games: int, seed: int = 0, progress: Any = None, workers: int = 1
) -> DuelResult:
    """Duplicate games between two bots (RULES.md section 8: both get the same dice)."""
    check_bot(a)
    check_bot(b)
    start = time.perf_counter()
    jobs = [(rules, a, b, seed, idx) for idx in _chunks(games, 10)]
    rows = _run_chunks(_duel_chunk, jobs, workers, progress)
    result = DuelResult(rules.preset or rules.id, (a, b), seed)
    for ta, tb, pts, win in rows:
        result.totals.append((ta, tb))
        if pts is not None:
            result.points.append(pts)
        result.wins.append(win)
    result.seconds = time.perf_counter() - start
    return result
