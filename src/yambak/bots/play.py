"""Playing whole games with bots through the engine: solitaire runs and duplicate duels.

Every game is seeded from (seed, game number), for its dice and for the bots'
random choices, so a run is reproducible whatever the number of worker processes.
Games are handed out lazily, a chunk at a time with a few chunks in flight, and
come back in order, so memory does not grow with the number of games: callers
fold them (`stats.SolitaireTally`, `stats.DuelTally`).
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TypeVar

from ..engine import DuplicateDice, GameState, new_game
from ..rules import Ruleset
from ..viewtypes import JSONObject, JSONValue
from .policies import choose_action, resolve
from .stats import DuelTally, SolitaireTally, mean_ci, wilson

_J = TypeVar("_J")
_R = TypeVar("_R")

__all__ = [
    "DuelResult",
    "GameStats",
    "check_bot",
    "duel",
    "mean_ci",
    "play_game",
    "simulate_details",
    "simulate_games",
    "simulate_stream",
    "simulate_tally",
    "wilson",
]

SOLITAIRE_CHUNK = 25  # games per job
DUEL_CHUNK = 10


def check_bot(name: str) -> str:
    """The policy a bot or level name stands for (ValueError for an unknown name)."""
    return resolve(name)


def play_game(rules: Ruleset, bots: Sequence[str], seed: int | str, duplicate: bool = False) -> GameState:
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
    """One finished solitaire game: its total, how many of its columns made the upper bonus and
    how many of its yam boxes scored (the engine's scores, read, not recomputed)."""

    total: int
    bonus_columns: int
    columns: int
    yams: int
    yam_boxes: int
    outright: bool = False  # won at once (docs/rules.md §7): the ruleset's win_points count it

    @classmethod
    def of(cls, state: GameState) -> GameStats:
        columns = state.column_scores(0)
        yam_rows = [r.id for r in state.rules.rows if r.kind == "yam"]
        yams = [c.boxes[r] for c in columns for r in yam_rows]
        return cls(
            state.total(0),
            sum(c.bonus > 0 for c in columns),
            len(columns),
            sum(1 for v in yams if v),
            len(yams),
            state.outright is not None,
        )


def _solitaire_chunk(args: tuple[Ruleset, str, int, range]) -> list[GameStats]:
    rules, bot, seed, indices = args
    return [GameStats.of(play_game(rules, [bot], f"{seed}:{i}")) for i in indices]


def _in_order(fn: Callable[[_J], list[_R]], jobs: Iterable[_J], workers: int) -> Iterator[list[_R]]:
    """fn(job) for each job, in order; with workers > 1 in worker processes, at most 2 x workers in flight."""
    if workers <= 1:
        for job in jobs:
            yield fn(job)
        return
    todo = iter(jobs)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[list[_R]]] = deque(pool.submit(fn, job) for job in islice(todo, 2 * workers))
        while pending:
            part = pending.popleft().result()
            for job in islice(todo, 1):
                pending.append(pool.submit(fn, job))
            yield part


def _chunks(games: int, size: int) -> Iterator[range]:
    return (range(s, min(games, s + size)) for s in range(0, games, size))


def simulate_stream(rules: Ruleset, bot: str, games: int, seed: int = 0, workers: int = 1) -> Iterator[list[GameStats]]:
    """`games` solitaire games of any ruleset played by the named bot (or level), a chunk at a time."""
    policy = check_bot(bot)
    jobs = ((rules, policy, seed, idx) for idx in _chunks(games, SOLITAIRE_CHUNK))
    return _in_order(_solitaire_chunk, jobs, workers)


def simulate_tally(
    rules: Ruleset,
    bot: str,
    games: int,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int], object] | None = None,
    tally: SolitaireTally | None = None,
) -> SolitaireTally:
    """The games of `simulate_stream` folded into a tally; `progress(n)` after every chunk of n games."""
    tally = tally or SolitaireTally()
    for part in simulate_stream(rules, bot, games, seed, workers):
        for g in part:
            tally.add(g.total, g.bonus_columns, g.columns, g.yams, g.yam_boxes, g.outright)
        if progress is not None:
            progress(len(part))
    return tally


def simulate_details(
    rules: Ruleset,
    bot: str,
    games: int,
    seed: int = 0,
    progress: bool | Callable[[int], object] = False,
    workers: int = 1,
) -> list[GameStats]:
    """Every game of `simulate_stream` in a list (for a few games; the command line folds them).

    `progress`: False, True (a tqdm bar on stderr) or a callable taking a game count."""
    bar = None
    if progress is True:
        from tqdm import tqdm

        bar = tqdm(total=games, desc=f"{rules.id} {bot}", unit="game", leave=False)
        progress = bar.update
    out: list[GameStats] = []
    try:
        for part in simulate_stream(rules, bot, games, seed, workers):
            out.extend(part)
            if callable(progress):
                progress(len(part))
    finally:
        if bar is not None:
            bar.close()
    return out


def simulate_games(
    rules: Ruleset,
    bot: str,
    games: int,
    seed: int = 0,
    progress: bool | Callable[[int], object] = False,
    workers: int = 1,
) -> list[int]:
    """Final totals of `games` solitaire games of any ruleset played by the named bot."""
    return [g.total for g in simulate_details(rules, bot, games, seed, progress, workers)]


@dataclass
class DuelResult:
    rules: str
    bots: tuple[str, str]
    seed: int
    tally: DuelTally = field(default_factory=DuelTally)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:  # read back by `yambak duel` (bots/commands.py)
        t = self.tally
        n = t.games
        bots: list[JSONValue] = []
        out: dict[str, Any] = {"rules": self.rules, "games": n, "seed": self.seed, "bots": bots}
        for name, sums, points in ((self.bots[0], t.a, t.points_a), (self.bots[1], t.b, t.points_b)):
            mean, half = sums.mean_ci()
            entry: JSONObject = {"bot": name, "mean": mean, "ci95": [mean - half, mean + half]}
            if points.n:
                pm, ph = points.mean_ci()
                entry["match_points"] = pm
                entry["match_points_ci95"] = [pm - ph, pm + ph]
            else:
                entry["match_points"] = None
            bots.append(entry)
        rate = t.win_rate
        out["win_rate"] = rate  # of the first bot; shared wins count half
        out["win_rate_ci95"] = list(wilson(rate, n))
        out["wins"], out["losses"], out["shared"] = t.won, t.lost, t.shared
        out["outright"] = [*t.outright]  # games each bot won at once (docs/rules.md §7), in the wins above
        diff, dh = t.difference.mean_ci()
        out["mean_difference"] = diff
        out["mean_difference_ci95"] = [diff - dh, diff + dh]
        out["seconds"] = self.seconds
        return out


def _duel_chunk(
    args: tuple[Ruleset, str, str, int, range],
) -> list[tuple[int, int, tuple[float, float] | None, float, tuple[bool, bool]]]:
    rules, a, b, seed, indices = args
    out = []
    for i in indices:
        seats = [a, b] if i % 2 == 0 else [b, a]  # alternate who plays first
        state = play_game(rules, seats, f"{seed}:{i}", duplicate=True)
        ia, ib = (0, 1) if i % 2 == 0 else (1, 0)
        totals = state.totals()
        points = state.match_points()
        winners = state.winners()
        win = (0.5 if len(winners) > 1 else 1.0) if ia in winners else 0.0
        won = state.outright.seats if state.outright is not None else ()  # docs/rules.md §7: a win at once
        out.append((totals[ia], totals[ib], (points[ia], points[ib]) if points else None, win, (ia in won, ib in won)))
    return out


def duel(
    rules: Ruleset,
    a: str,
    b: str,
    games: int,
    seed: int = 0,
    progress: Callable[[int], object] | None = None,
    workers: int = 1,
) -> DuelResult:
    """Duplicate games between two bots or levels (docs/rules.md §8: both get the same dice), folded."""
    pa, pb = check_bot(a), check_bot(b)
    start = time.perf_counter()
    jobs = ((rules, pa, pb, seed, idx) for idx in _chunks(games, DUEL_CHUNK))
    result = DuelResult(rules.preset or rules.id, (a, b), seed)
    for part in _in_order(_duel_chunk, jobs, workers):
        for ta, tb, pts, win, outright in part:
            result.tally.add(ta, tb, pts, win, outright)
        if progress:
            progress(len(part))
    result.seconds = time.perf_counter() - start
    return result
