"""Running statistics of many games, in memory that does not grow with the number of games.

`ScoreHistogram` counts final scores (one counter per distinct score; past
`MAX_BINS` distinct scores, neighbouring scores share a bin of doubled width)
and keeps exact integer sums, so the mean and standard deviation are exact and
the percentiles are numpy's (linear interpolation) on every score while the bins
are single scores. `SolitaireTally` and `DuelTally` fold whole games into it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["PERCENTILES", "DuelTally", "ScoreHistogram", "SolitaireTally", "mean_ci", "wilson"]

PERCENTILES = (5, 25, 50, 75, 95)


class ScoreHistogram:
    MAX_BINS = 1 << 16

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}  # bin start -> games
        self.width = 1
        self.n = 0
        self.total = 0  # exact sum of the scores
        self.squares = 0  # exact sum of their squares

    def add(self, score: int, count: int = 1) -> None:
        score = int(score)
        key = score - score % self.width
        self.counts[key] = self.counts.get(key, 0) + count
        self.n += count
        self.total += score * count
        self.squares += score * score * count
        if len(self.counts) > self.MAX_BINS:
            self._coarsen()

    def add_array(self, scores: np.ndarray) -> None:
        values, counts = np.unique(np.asarray(scores, dtype=np.int64), return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist(), strict=True):
            self.add(v, c)

    def _coarsen(self) -> None:
        self.width *= 2
        merged: dict[int, int] = {}
        for key, count in self.counts.items():
            k = key - key % self.width
            merged[k] = merged.get(k, 0) + count
        self.counts = merged

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else float("nan")

    @property
    def std(self) -> float:
        """Sample standard deviation (ddof 1), from the exact sums."""
        if self.n < 2:
            return 0.0
        return math.sqrt(max(self.n * self.squares - self.total * self.total, 0) / (self.n * (self.n - 1)))

    def _at(self, keys: list[int], cumulative: list[int], index: int) -> int:
        lo, hi = 0, len(keys) - 1
        while lo < hi:  # the first bin whose cumulative count passes index
            mid = (lo + hi) // 2
            if cumulative[mid] > index:
                hi = mid
            else:
                lo = mid + 1
        return keys[lo]

    def percentiles(self, qs: tuple[int, ...] = PERCENTILES) -> dict[str, float]:
        """{"5": p5, ...}: numpy's default (linear) percentiles of the scores counted."""
        if not self.n:
            return {str(q): float("nan") for q in qs}
        keys = sorted(self.counts)
        cumulative = np.cumsum([self.counts[k] for k in keys]).tolist()
        out = {}
        for q in qs:
            pos = q / 100 * (self.n - 1)
            below = math.floor(pos)
            a = self._at(keys, cumulative, below)
            b = self._at(keys, cumulative, min(below + 1, self.n - 1))
            t, diff = pos - below, b - a
            out[str(q)] = float(b - diff * (1 - t) if t >= 0.5 else a + diff * t)  # numpy's _lerp
        return out

    def bins(self) -> tuple[list[int], list[int]]:
        keys = sorted(self.counts)
        return keys, [self.counts[k] for k in keys]


@dataclass
class SolitaireTally:
    """Solitaire games folded: the score histogram and how often the upper bonus and the yam came in."""

    scores: ScoreHistogram = field(default_factory=ScoreHistogram)
    bonus_columns: int = 0  # columns that made the upper bonus
    columns: int = 0
    yams: int = 0  # yam boxes that scored
    yam_boxes: int = 0
    outright: int = 0  # games won at once (docs/rules.md §7)
    outright_points: int = 0  # the points on the sheets of those games

    def add(
        self, total: int, bonus_columns: int, columns: int, yams: int, yam_boxes: int, outright: bool = False
    ) -> None:
        self.scores.add(total)
        self.outright += outright
        self.outright_points += total if outright else 0
        self.bonus_columns += bonus_columns
        self.columns += columns
        self.yams += yams
        self.yam_boxes += yam_boxes

    def add_arrays(self, scores: np.ndarray, bonus: np.ndarray, yam: np.ndarray, won: np.ndarray) -> None:
        """One block of one-column games (the solver's simulator); `won`: the games won at once."""
        self.scores.add_array(scores)
        self.outright += int(np.count_nonzero(won))
        self.outright_points += int(scores[won].sum())
        self.bonus_columns += int(np.count_nonzero(bonus))
        self.yams += int(np.count_nonzero(yam))
        self.columns += len(scores)
        self.yam_boxes += len(scores)

    def summary(self, preset: str, bot: str, seconds: float, win_points: int | None = None) -> dict[str, Any]:
        """The figures of `yambak simulate --json`. With `win_points` (a ruleset whose entries win outright:
        docs/rulesets.md) the mean and its spread count a game won at once as its points and win_points,
        as `yambak solve` counts it; the percentiles and `sheet_mean` are the points on the sheet."""
        s = self.scores
        out = {
            "preset": preset,
            "bot": bot,
            "games": s.n,
            "mean": s.mean,
            "std": s.std,
            "percentiles": s.percentiles(),
            "upper_bonus_rate": self.bonus_columns / self.columns if self.columns else 0.0,
            "yam_rate": self.yams / self.yam_boxes if self.yam_boxes else 0.0,
            "seconds": seconds,
        }
        if win_points is not None:
            w, k = win_points, self.outright
            total = s.total + w * k
            # the squares of score + w over the games won: each adds 2 w score + w^2 to its square
            squares = s.squares + 2 * w * self.outright_points + w * w * k
            mean = total / s.n if s.n else float("nan")
            std = math.sqrt(max(s.n * squares - total * total, 0) / (s.n * (s.n - 1))) if s.n > 1 else 0.0
            out.update(
                mean=mean, std=std, sheet_mean=s.mean, win_points=w,
                outright_rate=k / s.n if s.n else 0.0,
            )  # fmt: skip
        return out


@dataclass
class _Sums:
    n: int = 0
    total: float = 0
    squares: float = 0

    def add(self, value: float) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value

    def mean_ci(self) -> tuple[float, float]:
        """(mean, half-width of the 95% normal interval)."""
        if not self.n:
            return float("nan"), float("nan")
        mean = self.total / self.n
        if self.n < 2:
            return mean, float("nan")
        var = max(self.squares - self.total * self.total / self.n, 0) / (self.n - 1)
        return mean, 1.96 * math.sqrt(var / self.n)


@dataclass
class DuelTally:
    """Duplicate games between bots A and B folded: totals, differences, match points, wins."""

    a: _Sums = field(default_factory=_Sums)
    b: _Sums = field(default_factory=_Sums)
    difference: _Sums = field(default_factory=_Sums)
    points_a: _Sums = field(default_factory=_Sums)
    points_b: _Sums = field(default_factory=_Sums)
    won: int = 0
    lost: int = 0
    shared: int = 0
    outright: tuple[int, int] = (0, 0)  # games A and B won at once (docs/rules.md §7)

    def add(
        self,
        total_a: int,
        total_b: int,
        points: tuple[float, float] | None,
        win: float,
        outright: tuple[bool, bool] = (False, False),
    ) -> None:
        self.outright = (self.outright[0] + outright[0], self.outright[1] + outright[1])
        self.a.add(total_a)
        self.b.add(total_b)
        self.difference.add(total_a - total_b)
        if points is not None:
            self.points_a.add(points[0])
            self.points_b.add(points[1])
        if win == 1.0:
            self.won += 1
        elif win == 0.0:
            self.lost += 1
        else:
            self.shared += 1

    @property
    def games(self) -> int:
        return self.a.n

    @property
    def win_rate(self) -> float:
        return (self.won + 0.5 * self.shared) / self.games if self.games else float("nan")


def mean_ci(values: list[float] | tuple[float, ...]) -> tuple[float, float]:
    """(mean, half-width of the 95% normal interval) of a list."""
    sums = _Sums()
    for v in values:
        sums.add(v)
    return sums.mean_ci()


def wilson(rate: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (sound at 0% and 100%, unlike the normal one)."""
    if n == 0:
        return float("nan"), float("nan")
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half
