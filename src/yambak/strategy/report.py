"""What the best play scores and how it opens: the figures of a strategy page, built from the solver.

With the exact table (one-column rulesets the solver handles): the expected score is the table's; the
distribution of final scores, each box's mean, how often it ends at zero and in which turn it is filled,
and the upper bonus's chance come from games of optimal play (`solver.simulate_blocks`, folded as the
games finish); the worth of being k points over or under par in the upper section is read from the
table; the opening of every distinct first roll is the advisor's. Elsewhere the same figures come from
games of the strong bot through the engine, labelled with their number and standard error (and
the openings are the coach's estimate, the strong bot's valuation).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..bots.stats import ScoreHistogram
from ..engine import GameState
from ..rules import Ruleset
from ..solver import Position, Strategy, UnsupportedRuleset, advise, simulate_blocks, solve, table_states
from ..solver import dice as D
from .chance import BoxOdds, box_ids, odds
from .openings import Opening, OpeningRule, opening_rules

__all__ = [
    "DATA_VERSION",
    "BoxStats",
    "Par",
    "ScoreSummary",
    "StrategyData",
    "build",
    "fingerprint",
    "has_table",
]

DATA_VERSION = 1  # raise when the figures or their JSON change
PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
MAX_TABLE_STATES = 1 << 25  # the tables `build` solves (every one-column preset's is smaller)


def fingerprint(ruleset: Ruleset) -> str:
    """The ruleset's content (every rule the figures depend on) and DATA_VERSION, hashed: a shipped file
    whose fingerprint differs was built from other rules."""
    parts = (DATA_VERSION, repr(ruleset), ruleset.options)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ScoreSummary:
    games: int
    mean: float
    std: float
    stderr: float
    percentiles: dict[str, float]  # "50" is the median
    histogram: tuple[tuple[int, int], ...]  # (bin start, games), bins of `bin_width` points
    bin_width: int


@dataclass(frozen=True)
class BoxStats:
    box: str
    mean: float  # the value the box ends with, on average
    zero: float  # share of games it ends at 0 (scratched)
    mean_turn: float | None  # 1-based turn it is filled in, on average (None where not followed)
    usual_turn: int | None  # the turn it is most often filled in


@dataclass(frozen=True)
class Par:
    """Being `k` points over (under, k < 0) par in the upper section at a fixed point of the game
    (`filled`: the upper rows written, everything else open): `future` the table's difference in
    expected points still to come, `worth` = k + future, the difference in expected final score."""

    filled: tuple[str, ...]
    par: int
    k: int
    future: float
    worth: float


@dataclass(frozen=True)
class StrategyData:
    preset: str
    options: dict[str, Any]
    fingerprint: str
    exact: bool
    expected_score: float
    games: int
    stderr: float  # of the expected score: 0 where exact
    bot: str
    odds: tuple[BoxOdds, ...]
    scores: ScoreSummary | None
    boxes: tuple[BoxStats, ...]
    bonus_chance: dict[str, float]  # column id -> chance of the upper bonus
    bonus_steps: dict[str, dict[str, float]]  # column id -> {threshold: chance} where the bonus has steps
    par: tuple[Par, ...]
    openings: tuple[Opening, ...]
    rules: tuple[OpeningRule, ...]
    # Where an entry wins the game at once (Generala): the points the table counts such a win as, so the
    # expected score is the table's objective, while the simulated scores count the points written.
    win_points: int | None = None

    def to_json(self) -> dict[str, Any]:
        """One JSON-able object: what `yambak strategy --json` prints and the shipped files hold."""
        return {
            "preset": self.preset,
            "options": self.options,
            "fingerprint": self.fingerprint,
            "version": DATA_VERSION,
            "exact": self.exact,
            "expected_score": self.expected_score,
            "games": self.games,
            "stderr": self.stderr,
            "bot": self.bot,
            "odds": {b.box: list(b.chances) for b in self.odds},
            **({"odds_with_saved_rolls": {b.box: list(b.saved) for b in self.odds}} if self.odds[0].saved else {}),
            "expected_sums": sorted(b.box for b in self.odds if b.expected_sum),
            "minimised": sorted(b.box for b in self.odds if b.minimise),
            "scores": None if self.scores is None else {
                "games": self.scores.games,
                "mean": self.scores.mean,
                "std": self.scores.std,
                "stderr": self.scores.stderr,
                "median": self.scores.percentiles["50"],
                "percentiles": self.scores.percentiles,
                "bin_width": self.scores.bin_width,
                "histogram": [list(b) for b in self.scores.histogram],
            },
            "boxes": {
                b.box: {"mean": b.mean, "zero": b.zero, "mean_turn": b.mean_turn, "usual_turn": b.usual_turn}
                for b in self.boxes
            },
            "bonus_chance": self.bonus_chance,
            "bonus_steps": self.bonus_steps,
            "par": [{"filled": list(p.filled), "par": p.par, "k": p.k, "future": p.future, "worth": p.worth}
                    for p in self.par],
            "openings": [o.to_json() for o in self.openings],
            "rules": [r.to_json() for r in self.rules],
            **({"win_points": self.win_points} if self.win_points is not None else {}),
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any], ruleset: Ruleset) -> StrategyData:
        """The data back from `to_json` (the odds' flags from the ruleset's rows)."""
        sums, lows = set(data["expected_sums"]), set(data["minimised"])
        ids = box_ids(ruleset)
        cols = [c.id for c in ruleset.columns for _ in ruleset.rows]
        rows = [r.id for _ in ruleset.columns for r in ruleset.rows]
        saved = data.get("odds_with_saved_rolls", {})
        odds_ = tuple(
            BoxOdds(
                box, rows[i], cols[i], tuple(data["odds"][box]), box in sums, box in lows, tuple(saved.get(box, ()))
            )
            for i, box in enumerate(ids)
        )
        s = data["scores"]
        scores = None if s is None else ScoreSummary(
            s["games"], s["mean"], s["std"], s["stderr"], s["percentiles"],
            tuple((int(a), int(b)) for a, b in s["histogram"]), s["bin_width"],
        )  # fmt: skip
        return cls(
            preset=data["preset"],
            options=data["options"],
            fingerprint=data["fingerprint"],
            exact=data["exact"],
            expected_score=data["expected_score"],
            games=data["games"],
            stderr=data["stderr"],
            bot=data["bot"],
            odds=odds_,
            scores=scores,
            boxes=tuple(BoxStats(k, **v) for k, v in data["boxes"].items()),
            bonus_chance=data["bonus_chance"],
            bonus_steps=data["bonus_steps"],
            par=tuple(Par(tuple(p["filled"]), p["par"], p["k"], p["future"], p["worth"]) for p in data["par"]),
            openings=tuple(Opening.from_json(o) for o in data["openings"]),
            rules=tuple(OpeningRule(**r) for r in data["rules"]),
            win_points=data.get("win_points"),
        )


def has_table(ruleset: Ruleset) -> bool:
    """Whether the solver gives this ruleset an exact table `build` will use."""
    if len(ruleset.columns) != 1 or ruleset.rolled_dice != D.DICE:
        return False
    try:
        return table_states(ruleset) <= MAX_TABLE_STATES
    except (UnsupportedRuleset, TypeError):
        return False


def options_of(ruleset: Ruleset) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in ruleset.options}


class _BoxFold:
    """Per row: the sum of what it ends with, its zeros, and a histogram of the turn it is filled in."""

    def __init__(self, n_rows: int) -> None:
        self.total = np.zeros(n_rows)
        self.zeros = np.zeros(n_rows, dtype=np.int64)
        self.turns = np.zeros((n_rows, n_rows), dtype=np.int64)  # [row, turn]
        self.upper: np.ndarray = np.zeros(0, dtype=np.int64)  # this block's upper sums so far

    def entry(self, faces: np.ndarray, turn: int, row: np.ndarray, written: np.ndarray) -> None:
        if turn == 0:
            self.upper = np.zeros(len(row), dtype=np.int64)
        np.add.at(self.total, row, written)
        np.add.at(self.zeros, row, written == 0)
        np.add.at(self.turns, (row, np.full(len(row), turn)), 1)
        self.upper += np.where(faces[row] > 0, written, 0)


def _box_stats(box: str, mean: float, zero: float, turns: np.ndarray) -> BoxStats:
    """A box's figures; `turns[t]` the games it was filled in turn t + 1."""
    filled = int(turns.sum())
    if not filled:
        return BoxStats(box, float(mean), float(zero), None, None)
    mean_turn = float(turns @ np.arange(1, len(turns) + 1) / filled)
    return BoxStats(box, float(mean), float(zero), mean_turn, int(turns.argmax()) + 1)


def _summary(hist: ScoreHistogram) -> ScoreSummary:
    width = 10
    bins: dict[int, int] = {}
    for start, count in zip(*hist.bins(), strict=True):
        key = start - start % width
        bins[key] = bins.get(key, 0) + count
    return ScoreSummary(
        games=hist.n,
        mean=hist.mean,
        std=hist.std,
        stderr=hist.std / math.sqrt(hist.n) if hist.n > 1 else 0.0,
        percentiles=hist.percentiles(PERCENTILES),
        histogram=tuple(sorted(bins.items())),
        bin_width=width,
    )


def par_worth(strategy: Strategy) -> tuple[Par, ...]:
    """The table's worth of the upper sum at one fixed point: the upper rows of the four lowest faces
    written, everything else open; par = the bonus threshold's share of those faces (three of each
    where the threshold is 63)."""
    sr = strategy.rules
    ruleset = strategy.ruleset
    bonus = ruleset.upper_bonus
    if bonus is None:
        return ()
    upper = sorted((r.face, i, r.id) for i, r in enumerate(ruleset.rows) if r.kind == "upper")
    chosen = upper[:4]
    faces = sum(f for f, _, _ in chosen)
    par = round(bonus.threshold * faces / sum(f for f, _, _ in upper))
    boxes = sum(1 << i for _, i, _ in chosen)
    top = sum(5 * f for f, _, _ in chosen)

    def future(u: int) -> float:
        return float(strategy.table[sr.flat(boxes, min(u, sr.n_upper - 1), 0), 0])

    base = future(par)
    out = []
    for k in range(-12, 13):
        if 0 <= par + k <= top:
            diff = future(par + k) - base
            out.append(Par(tuple(r for _, _, r in chosen), par, k, diff, k + diff))
    return tuple(out)


def openings_exact(strategy: Strategy) -> tuple[Opening, ...]:
    """The advisor's best and runner-up choice on each distinct first roll of an empty sheet."""
    out = []
    for r in range(D.N_ROLLS):
        roll = D.MULTISETS[D.FULL + r]
        advice = advise(strategy, Position(filled={}, dice=roll, roll=1))
        choices = sorted(advice.keeps + advice.boxes, key=lambda c: -c.value)
        best = advice.best
        assert best is not None
        runner = next((c for c in choices if c is not best), None)
        loss = best.value - runner.value if runner is not None else 0.0
        out.append(Opening(roll, best.to_dict(), runner.to_dict() if runner else None, loss))
    return tuple(out)


def openings_estimated(ruleset: Ruleset, progress: Callable[[int], None] | None = None) -> tuple[Opening, ...]:
    """The coach's estimate (the strong bot's valuation) of every choice on each distinct first roll of an
    empty sheet: best and runner-up as `yambak hint --json` writes them there. Empty where the coach gives
    no advice (five of six dice counting)."""
    from ..coach.advice import CoachError
    from ..coach.advice import advise as coach_advise
    from ..engine import ManualDice, Roll, new_game

    if ruleset.rolled_dice != ruleset.dice:
        return ()
    L = D.lattice(ruleset.rolled_dice)
    start = new_game(ruleset, ["you"], dice=ManualDice())
    out = []
    for r in range(L.N_ROLLS):
        roll = L.MULTISETS[L.FULL + r]
        state, _ = start.apply(Roll(start.current, dice=roll))
        try:
            advice = coach_advise(state, wins=False)
        except CoachError:
            return ()
        choices = sorted(advice.options, key=lambda o: -o.value)
        best = advice.best or choices[0]
        runner = next((o for o in choices if o is not best), None)
        loss = best.value - runner.value if runner is not None else 0.0
        out.append(Opening(roll, best.to_dict(), runner.to_dict() if runner else None, loss))
        if progress is not None:
            progress(1)
    return tuple(out)


def _exact(
    ruleset: Ruleset, games: int, seed: int, threads: int, progress: Callable[[int], None] | None
) -> StrategyData:
    strategy = solve(ruleset)
    sr = strategy.rules
    fold = _BoxFold(sr.n_rows)
    faces = np.array([r.face if r.kind == "upper" else 0 for r in ruleset.rows])
    hist = ScoreHistogram()
    bonus = ruleset.upper_bonus
    steps = bonus.all_steps if bonus is not None else ()
    reached = np.zeros(len(steps), dtype=np.int64)
    for scores, _bonus, _yam, _won in simulate_blocks(
        strategy, games, seed, threads, on_entry=lambda t, row, written: fold.entry(faces, t, row, written)
    ):
        hist.add_array(scores)
        for j, (threshold, _) in enumerate(steps):
            reached[j] += int(np.count_nonzero(fold.upper >= threshold))
        if progress is not None:
            progress(len(scores))
    n = max(hist.n, 1)
    column = ruleset.columns[0].id
    boxes = [
        _box_stats(row.id, fold.total[i] / n, fold.zeros[i] / n, fold.turns[i]) for i, row in enumerate(ruleset.rows)
    ]
    chances = {str(t): float(reached[j] / n) for j, (t, _) in enumerate(steps)}
    openings = openings_exact(strategy)
    return StrategyData(
        preset=ruleset.preset or ruleset.id,
        options=options_of(ruleset),
        fingerprint=fingerprint(ruleset),
        exact=True,
        expected_score=float(strategy.expected_score),
        games=hist.n,
        stderr=0.0,
        bot="optimal",
        odds=tuple(odds(ruleset)),
        scores=_summary(hist) if hist.n else None,
        boxes=tuple(boxes),
        bonus_chance={column: chances[str(bonus.threshold)]} if bonus is not None else {},
        bonus_steps={column: chances} if bonus is not None and bonus.steps else {},
        par=par_worth(strategy),
        openings=openings,
        rules=opening_rules(openings, ruleset),
        win_points=ruleset.win_points if ruleset.wins_outright else None,
    )


@dataclass
class _StrongFold:
    """Strong games folded: final scores, and per box the sum of its values, its zeros and the turns it
    was filled in; the upper bonus per column. Chunks of games fold separately and merge."""

    scores: list[int]
    total: np.ndarray
    zeros: np.ndarray
    turns: np.ndarray  # [box, turn]
    bonus: np.ndarray  # [column]

    @classmethod
    def empty(cls, ruleset: Ruleset) -> _StrongFold:
        n = ruleset.n_boxes
        return cls([], np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros((n, n), dtype=np.int64),
                   np.zeros(len(ruleset.columns), dtype=np.int64))  # fmt: skip

    def add(self, ruleset: Ruleset, state: GameState) -> None:
        self.scores.append(int(state.total(0)))
        for t, record in enumerate(state.history):
            box = ruleset.parse_box(record.box)
            if box is not None and t < ruleset.n_boxes:
                self.turns[box, t] += 1
        for c, col in enumerate(state.column_scores(0)):
            self.bonus[c] += col.bonus > 0
            for i, row in enumerate(ruleset.rows):
                value = col.boxes[row.id] or 0
                self.total[c * ruleset.n_rows + i] += value
                self.zeros[c * ruleset.n_rows + i] += value == 0

    def merge(self, other: _StrongFold) -> None:
        self.scores += other.scores
        self.total += other.total
        self.zeros += other.zeros
        self.turns += other.turns
        self.bonus += other.bonus


def _strong_chunk(job: tuple[Ruleset, int, range]) -> _StrongFold:
    """Games `indices` of the strong bot (game g's dice seeded by `seed` and g: the same games whatever
    the workers)."""
    from ..bots.play import play_game

    ruleset, seed, indices = job
    fold = _StrongFold.empty(ruleset)
    for g in indices:
        fold.add(ruleset, play_game(ruleset, ["strong"], f"strategy:{seed}:{g}"))
    return fold


STRONG_CHUNK = 20  # games per job of a worker process


def _estimated(
    ruleset: Ruleset,
    games: int,
    seed: int,
    progress: Callable[[int], None] | None,
    with_openings: bool = True,
    workers: int = 1,
) -> StrategyData:
    fold = _StrongFold.empty(ruleset)
    jobs = [(ruleset, seed, range(a, min(games, a + STRONG_CHUNK))) for a in range(0, games, STRONG_CHUNK)]
    if workers <= 1:
        parts: Iterable[_StrongFold] = map(_strong_chunk, jobs)
    else:
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(max_workers=workers)
        parts = pool.map(_strong_chunk, jobs)
    try:
        for part in parts:
            fold.merge(part)
            if progress is not None:
                progress(len(part.scores))
    finally:
        if workers > 1:
            pool.shutdown(cancel_futures=True)
    hist = ScoreHistogram()
    for score in fold.scores:
        hist.add(score)
    ids = box_ids(ruleset)
    n = max(hist.n, 1)
    summary = _summary(hist)
    openings = openings_estimated(ruleset) if with_openings else ()
    return StrategyData(
        preset=ruleset.preset or ruleset.id,
        options=options_of(ruleset),
        fingerprint=fingerprint(ruleset),
        exact=False,
        expected_score=summary.mean,
        games=hist.n,
        stderr=summary.stderr,
        bot="strong",
        odds=tuple(odds(ruleset)),
        scores=summary,
        boxes=tuple(_box_stats(b, fold.total[i] / n, fold.zeros[i] / n, fold.turns[i]) for i, b in enumerate(ids)),
        bonus_chance=(
            {c.id: float(fold.bonus[j] / n) for j, c in enumerate(ruleset.columns)}
            if ruleset.upper_bonus is not None
            else {}
        ),
        bonus_steps={},
        par=(),
        openings=openings,
        rules=opening_rules(openings, ruleset) if openings else (),
    )


def build(
    ruleset: Ruleset,
    games: int | None = None,
    seed: int = 0,
    threads: int = 1,
    progress: Callable[[int], None] | None = None,
    workers: int = 1,
) -> StrategyData:
    """Every figure of the ruleset's strategy page: exact where the solver has a table (`games` of optimal
    play, 100,000 by default, on `threads` threads), else `games` of the strong bot (2,000 by default, in
    `workers` processes: the same games whatever their number)."""
    if has_table(ruleset):
        return _exact(ruleset, 100_000 if games is None else games, seed, threads, progress)
    return _estimated(ruleset, 2_000 if games is None else games, seed, progress, workers=workers)
