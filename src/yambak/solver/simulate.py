"""Solitaire games of optimal play, many at once, as array operations across games.

The optimal player reads the strategy table: each turn the games are grouped by
state, the turn widget is rebuilt once per distinct state, and every game picks
its best keep and box with a gather and an argmax. It obeys the joker; a struck
box never helps it, so it never strikes. The same seed gives the same games
whatever the thread count.

Only optimal play is vectorised: every other policy (random, greedy, strong...)
is played through the engine by `yambak.bots`, so that one name is one policy.
`simulate_blocks` yields the games a block at a time, for callers that fold
them (memory independent of the number of games); `simulate` keeps them all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..viewtypes import JSONObject
from . import dice as D
from ._induction import box_values, keep_values
from ._layout import SolverRules
from .table import Strategy

__all__ = [
    "BLOCK",
    "SimulationResult",
    "after_entry",
    "remaining_scores",
    "residuals",
    "simulate",
    "simulate_blocks",
]

BLOCK = 32768  # games played together: the per-turn overhead shared, small enough for memory (a few MB)

# Sorted five dice -> roll index, through a base-7 code of the sorted hand.
_CODE = np.array([7**i for i in range(D.DICE)], dtype=np.int64)
_HAND_OF_CODE = np.full(7**D.DICE, -1, dtype=np.int64)
for _r in range(D.N_ROLLS):
    _HAND_OF_CODE[np.array(D.MULTISETS[D.FULL + _r]) @ _CODE] = _r
_KEEP_DICE = np.array([(m + (0,) * D.DICE)[: D.DICE] for m in D.MULTISETS], dtype=np.int64)  # (462, 5), 0-padded
_KEEP_SIZE = np.array([len(m) for m in D.MULTISETS], dtype=np.int64)


@dataclass(frozen=True)
class SimulationResult:
    preset: str
    bot: str
    scores: np.ndarray  # final score of every game
    upper_bonus: np.ndarray  # bool: the upper bonus was reached
    yam: np.ndarray  # bool: the yam box holds a non-zero value
    seconds: float

    def summary(self) -> JSONObject:
        """The figures `yambak simulate --json` prints."""
        s = self.scores.astype(np.float64)
        pct = np.percentile(s, [5, 25, 50, 75, 95]) if len(s) else [float("nan")] * 5
        return {
            "preset": self.preset,
            "bot": self.bot,
            "games": int(len(s)),
            "mean": float(s.mean()) if len(s) else float("nan"),
            "std": float(s.std(ddof=1)) if len(s) > 1 else 0.0,
            "percentiles": {str(p): float(v) for p, v in zip((5, 25, 50, 75, 95), pct, strict=False)},
            "upper_bonus_rate": float(self.upper_bonus.mean()) if len(s) else 0.0,
            "yam_rate": float(self.yam.mean()) if len(s) else 0.0,
            "seconds": self.seconds,
        }


def _hands(dice: np.ndarray) -> np.ndarray:
    return _HAND_OF_CODE[np.sort(dice, axis=1) @ _CODE]


def _reroll(rng: np.random.Generator, keep: np.ndarray) -> np.ndarray:
    """Hands after holding multiset `keep` (global index per game) and rolling the other dice."""
    fresh = rng.integers(1, D.FACES + 1, size=(len(keep), D.DICE))
    slot = np.arange(D.DICE)[None, :]
    dice = np.where(slot < _KEEP_SIZE[keep][:, None], _KEEP_DICE[keep], fresh)
    return _hands(dice)


class _Optimal:
    """Keep and box choices read from the strategy table, one widget per distinct state."""

    def __init__(self, strategy: Strategy, threads: int) -> None:
        self.s = strategy
        self.threads = threads
        self.values = np.empty((0, 0, len(D.MULTISETS)))  # (distinct state, roll - 1, keep)
        self.inverse = np.empty(0, dtype=np.int64)

    def start_turn(self, boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray) -> None:
        sr = self.s.rules
        flat = np.asarray(sr.flat(boxes, upper, yam))
        unique, self.inverse = np.unique(flat, return_inverse=True)
        self.values = keep_values(sr, self.s.table, unique, self.threads)

    def keep(self, _rng: np.random.Generator, hand: np.ndarray, roll: int) -> np.ndarray:
        cand = D.SUBKEEPS[hand]  # (G, 32)
        _, stages, n_keeps = self.values.shape
        row = (self.inverse * stages + roll - 1) * n_keeps  # start of each game's keep values
        values = self.values.reshape(-1)[row[:, None] + cand]
        best: np.ndarray = cand[np.arange(len(hand)), values.argmax(axis=1)]
        return best

    def box(self, _rng: np.random.Generator, values: np.ndarray, _points: np.ndarray) -> np.ndarray:
        best: np.ndarray = values.argmax(axis=0)
        return best


def after_entry(
    sr: SolverRules,
    row: np.ndarray,
    hand: np.ndarray,
    points: np.ndarray,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    yam_rows: list[int] | None = None,
    yam_scored: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each game (element) writes row `row` with hand `hand`, adding `points`: the new (boxes, upper,
    yam) keys; a non-zero entry in one of `yam_rows` is marked in `yam_scored`, in place."""
    written = sr.score[row, hand]
    upper = np.where(sr.upper_face[row] > 0, np.minimum(upper + written, sr.n_upper - 1), upper)
    if sr.n_yam == 2:
        yam = np.where(row == sr.yam_row, (written > 0).astype(np.int64), yam)
    if yam_scored is not None:
        for i in yam_rows or ():
            yam_scored |= (row == i) & (written > 0)
    return sr.after_pair_entry(boxes, row, points), upper, yam  # a pair's first entry: its points


def _play_block_compiled(
    sr: SolverRules,
    strategy: Strategy,
    rng: np.random.Generator,
    games: int,
    threads: int,
    start: tuple[int | np.ndarray, int | np.ndarray, int | np.ndarray] = (0, 0, 0),
    on_turn: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], None] | None = None,
    on_entry: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_play_block` with each turn compiled (`_kernels.optimal_turns`: the widget, every keep and the
    box chosen inside the kernel, no 462-value stage per game written out): the same policy and ties.
    `start` gives the turn-start keys, one for all games or an array each (as many boxes filled);
    `on_turn(boxes, upper, yam, points so far)` is told every turn start, `on_entry(turn, row, written)`
    every turn's entry (turn 0-based; the value written in the box, bonuses apart)."""
    from concurrent.futures import ThreadPoolExecutor

    from .compiled import kernels

    K = kernels()
    rules = K.rule_args(sr)
    table = strategy.table.reshape(-1)
    boxes, upper, yam = (np.array(np.broadcast_to(v, games), dtype=np.int64) for v in start)
    score = np.zeros(games, dtype=np.int64)
    yam_rows = [i for i, r in enumerate(sr.ruleset.rows) if r.kind == "yam"]
    yam_scored = np.zeros(games, dtype=bool)
    filled = bin(int(boxes[0]) & sr.full_mask).count("1") if games else sr.n_rows
    row = np.empty(games, dtype=np.int64)
    hand = np.empty(games, dtype=np.int64)
    points = np.empty(games, dtype=np.int64)
    won = np.zeros(games, dtype=np.bool_)  # this turn's entry won the game outright
    over = np.zeros(games, dtype=bool)  # games already won: their later turns count nothing
    bounds = np.linspace(0, games, max(1, threads) + 1).astype(np.int64)
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        for _turn in range(sr.n_rows - filled):
            if on_turn is not None:
                on_turn(boxes, upper, yam, score.copy())
            faces = rng.integers(1, D.FACES + 1, size=(games, sr.rolls, D.DICE))

            def run(
                j: int, faces: np.ndarray = faces, bx: np.ndarray = boxes, up: np.ndarray = upper, ym: np.ndarray = yam
            ) -> None:
                a, b = bounds[j], bounds[j + 1]
                K.optimal_turns(
                    table, bx[a:b], up[a:b], ym[a:b], faces[a:b], rules, sr.rolls, row[a:b], hand[a:b], points[a:b],
                    won[a:b],
                )  # fmt: skip

            list(pool.map(run, range(len(bounds) - 1)))
            if on_entry is not None:
                on_entry(_turn, row.copy(), sr.score[row, hand])
            score += np.where(over, 0, points)
            over |= won
            boxes, upper, yam = after_entry(sr, row, hand, points, boxes, upper, yam, yam_rows, yam_scored)
    reached = upper >= sr.threshold if sr.threshold else np.zeros(games, dtype=bool)
    return score, reached, yam_scored, over


def _play_block(
    sr: SolverRules,
    strategy: Strategy,
    bot: _Optimal,
    rng: np.random.Generator,
    games: int,
    start: tuple[int, int, int] = (0, 0, 0),
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    boxes = np.full(games, start[0], dtype=np.int64)
    upper = np.full(games, start[1], dtype=np.int64)
    yam = np.full(games, start[2], dtype=np.int64)
    score = np.zeros(games, dtype=np.int64)
    yam_rows = [i for i, r in enumerate(sr.ruleset.rows) if r.kind == "yam"]
    yam_scored = np.zeros(games, dtype=bool)
    table, objective = strategy.table, strategy.objective
    filled = bin(start[0] & sr.full_mask).count("1")
    for _turn in range(sr.n_rows - filled):
        bot.start_turn(boxes, upper, yam)
        hand = _hands(rng.integers(1, D.FACES + 1, size=(games, D.DICE)))
        for roll in range(1, sr.rolls):
            hand = _reroll(rng, bot.keep(rng, hand, roll))
        rows = list(box_values(sr, table, objective, boxes, upper, yam, hand))
        values = np.stack([v[:, 0] for _, _, v in rows])  # (rows, G)
        points = np.stack([p for _, p, _ in rows])
        row = bot.box(rng, values, points)
        game = np.arange(games)
        score += points[row, game]
        boxes, upper, yam = after_entry(sr, row, hand, points[row, game], boxes, upper, yam, yam_rows, yam_scored)
    reached = upper >= sr.threshold if sr.threshold else np.zeros(games, dtype=bool)
    return score, reached, yam_scored


def simulate_blocks(
    strategy: Strategy,
    games: int,
    seed: int | None = 0,
    threads: int = 2,
    on_entry: Callable[[int, np.ndarray, np.ndarray], None] | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Play `games` solitaire games optimally, `BLOCK` at a time: yields (final scores, upper bonus
    reached, yam scored, won outright) per block, so a caller may fold any number of games in bounded memory;
    `on_entry(turn, row, written)` sees every turn's entries (per box figures, folded by the caller)."""
    if strategy.objective.width != 1:
        raise ValueError("optimal play needs an expected-score strategy table")
    rng = np.random.default_rng(seed)
    for first in range(0, games, BLOCK):
        yield _play_block_compiled(
            strategy.rules, strategy, rng, min(BLOCK, games - first), threads, on_entry=on_entry
        )


def remaining_scores(
    strategy: Strategy,
    boxes: int | np.ndarray,
    upper: int | np.ndarray,
    yam: int | np.ndarray,
    games: int = 2000,
    seed: int | None = 0,
    threads: int = 1,
) -> np.ndarray:
    """Points still to come from a turn-start state (the key, capped upper sum and yam flag of
    `advisor.position_state`) in `games` games of optimal play: the distribution a win chance reads.
    The keys may also be arrays of `games` states, one per game, all with as many boxes filled."""
    if strategy.objective.width != 1:
        raise ValueError("optimal play needs an expected-score strategy table")
    sr = strategy.rules
    starts = [np.broadcast_to(np.asarray(v, dtype=np.int64), games) for v in (boxes, upper, yam)]
    if games == 0 or int(starts[0][0]) & sr.full_mask == sr.full_mask:
        return np.zeros(games, dtype=np.int64)
    rng = np.random.default_rng(seed)
    out = []
    for first in range(0, games, BLOCK):
        n = min(BLOCK, games - first)
        start = (starts[0][first : first + n], starts[1][first : first + n], starts[2][first : first + n])
        out.append(_play_block_compiled(sr, strategy, rng, n, threads, start)[0])
    return np.concatenate(out)


def residuals(strategy: Strategy, games: int, seed: int | None = 0, threads: int = 2) -> np.ndarray:
    """(n_rows + 1, games): row k holds, for each of `games` games of optimal play, the points still to
    come at its turn start with k boxes open minus the table's exact expectation of them there (row 0
    is zeros). What a distribution of final scores adds to an exact expectation, turn by turn."""
    sr = strategy.rules
    out = np.zeros((sr.n_rows + 1, games))
    rng = np.random.default_rng(seed)
    for first in range(0, games, BLOCK):
        n = min(BLOCK, games - first)
        seen: list[tuple[np.ndarray, np.ndarray]] = []

        def note(
            boxes: np.ndarray,
            upper: np.ndarray,
            yam: np.ndarray,
            score: np.ndarray,
            seen: list[tuple[np.ndarray, np.ndarray]] = seen,
        ) -> None:
            seen.append((score, strategy.table[sr.flat(boxes, upper, yam), 0]))

        final = _play_block_compiled(sr, strategy, rng, n, threads, on_turn=note)[0]
        for t, (score, expected) in enumerate(seen):
            out[sr.n_rows - t, first : first + n] = final - score - expected
    return out


def simulate(
    strategy: Strategy,
    games: int = 1000,
    seed: int | None = 0,
    progress: Callable[[int], None] | None = None,
    threads: int = 2,
) -> SimulationResult:
    """Play `games` solitaire games optimally and keep every score; `progress(n)` after each block."""
    start = time.perf_counter()
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for block in simulate_blocks(strategy, games, seed, threads):
        out.append(block)
        if progress is not None:
            progress(len(block[0]))
    seconds = time.perf_counter() - start
    cat = (lambda j: np.concatenate([o[j] for o in out])) if out else (lambda _j: np.zeros(0))
    ruleset = strategy.ruleset
    return SimulationResult(
        preset=ruleset.preset or ruleset.id,
        bot="optimal",
        scores=cat(0),
        upper_bonus=cat(1).astype(bool),
        yam=cat(2).astype(bool),
        seconds=seconds,
    )
