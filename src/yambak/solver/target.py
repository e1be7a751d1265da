"""Playing to reach a score: the `TargetProbability` objective, solved so that it is practical.

`solve_target(rules, target)` gives, for every turn-start state s and every k = 0..target points
still needed, the best chance P_s(k) of scoring at least k more points (each k maximised on its
own, which is exactly the policy that maximises the chance to reach a target). The plain
`solve(..., objective=TargetProbability(t))` stores a dense float64 (states x (t+1)) table and
builds every batch at full width; here:

* **only where the target can still matter**: P_s(k) = 0 for every k above M(s), an upper bound
  of the points still to come from s (the best score of each open row, the upper bonus while it
  is reachable, the joker bonus per open row while it can still be won), and no game aiming at t
  ever needs more than t - m(s) in s, m(s) the points s shows are on the sheet (its upper sum and
  bonus, a yam box holding a value); so state s stores only k = 0..min(M(s), t - m(s)) (and a 0
  after them, so the compiled lookup needs no branch). Late
  states store a handful of numbers whatever the target, and the table answers any target <= t;
* **float32** storage, ragged (one offset per state), level by level: a batch reads only the
  level below it, and a batch of states of similar bound runs at its own width;
* **cached** on disk beside the mean tables (`<ruleset>-target<t>-...npz`).

The table answers `chance(boxes, upper, yam, need)` and the advisor `advise_target` (every keep
and box of a position with its chance to reach the target). Relations (max/min) are not
supported (an entry that zeroes a pair takes points back), as for the plain objective.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules import Ruleset
from ..viewtypes import JSONObject
from . import dice as D
from ._induction import box_values, last_roll_values
from ._layout import SolverRules, UnsupportedRuleset, solver_rules
from .advisor import Choice, Position, position_key
from .objective import TargetProbability
from .table import TABLE_MODE, TABLE_VERSION, _fingerprint, cache_dir

LANES_AT_ONCE = 4_000_000  # (state, need) lanes built at once: about 130 MB of index arrays

__all__ = ["TargetAdvice", "TargetTable", "advise_target", "max_remaining", "min_scored", "solve_target"]


def max_remaining(sr: SolverRules, flat: np.ndarray) -> np.ndarray:
    """An upper bound of the points still to come from each turn-start state (flat indices)."""
    boxes, upper, _ = sr.unflat(flat)
    bound = np.zeros(len(flat), dtype=np.int64)
    n_open = np.zeros(len(flat), dtype=np.int64)
    upper_open = np.zeros(len(flat), dtype=bool)
    for i in range(sr.n_rows):
        is_open = (boxes >> i & 1) == 0
        best = int(sr.score[i].max())
        if sr.n_yam == 2:
            best = max(best, int(sr.joker_score[i].max()))
        bound += np.where(is_open, best, 0)
        n_open += is_open
        if sr.upper_face[i]:
            upper_open |= is_open
    if sr.threshold:
        bound += np.where(upper_open & (upper < sr.threshold), sr.bonus, 0)
    if sr.n_yam == 2:  # a further yam scores the joker bonus only while the yam box holds a value > 0
        boxes_, _, yam = sr.unflat(flat)
        yam_open = (boxes_ >> sr.yam_row & 1) == 0
        bound += sr.joker_bonus * np.where(yam_open, np.maximum(n_open - 1, 0), np.where(yam > 0, n_open, 0))
    return bound


def min_scored(sr: SolverRules, flat: np.ndarray) -> np.ndarray:
    """A lower bound of the points already on the sheet in each state: its upper sum (and bonus), a
    yam box holding a value; a game aiming at the target never needs more than target - this there."""
    _, upper, yam = sr.unflat(flat)
    out = upper.astype(np.int64)
    if sr.threshold:
        out = out + np.where(upper >= sr.threshold, sr.bonus, 0)
    if sr.n_yam == 2:
        positive = sr.score[sr.yam_row][sr.score[sr.yam_row] > 0]
        out = out + np.where(yam > 0, int(positive.min()) if len(positive) else 0, 0)
    return out


@dataclass(eq=False)
class TargetTable:
    """P_s(k) for every turn-start state s and k = 0..width[s]-1 (0 beyond), float32, ragged."""

    rules: SolverRules
    target: int
    offset: np.ndarray  # (n_states + 1,) int64: state s holds values[offset[s]:offset[s + 1] - 1], then a 0
    values: np.ndarray  # float32
    seconds: float = 0.0
    loaded: bool = False

    @property
    def ruleset(self) -> Ruleset:
        return self.rules.ruleset

    @property
    def nbytes(self) -> int:
        return int(self.offset.nbytes + self.values.nbytes)

    def dense(self, flat: np.ndarray, width: int) -> np.ndarray:
        """(flat.shape + (width,)) float64: P(k) for k < width, 0 where the state stores nothing."""
        flat = np.asarray(flat)
        start = self.offset[flat]
        have = self.offset[flat + 1] - start - 1  # the trailing 0 is not a stored k
        k = np.arange(width)
        idx = start[..., None] + k
        ok = k < have[..., None]
        out = np.zeros(flat.shape + (width,))
        out[ok] = self.values[idx[ok]]
        return out

    def chance(self, boxes: int, upper: int, yam: int, need: int) -> float:
        """P(at least `need` more points) from this turn-start state; ValueError for a need no game
        aiming at `target` has there (more than target - the points the state shows on the sheet)."""
        if need <= 0:
            return 1.0
        flat = int(self.rules.flat(boxes, min(upper, self.rules.n_upper - 1), yam))
        if need > self.target - int(min_scored(self.rules, np.array([flat]))[0]):
            raise ValueError(f"need {need} is beyond what a table for target {self.target} answers here")
        start, stop = int(self.offset[flat]), int(self.offset[flat + 1]) - 1
        return float(self.values[start + need]) if need < stop - start else 0.0

    @property
    def start_chance(self) -> float:
        """The chance to reach the target from an empty sheet."""
        return self.chance(0, 0, 0, self.target)


class _Ragged:
    """What `last_roll_values` reads as `table[flat]`: the dense view at one batch's width."""

    def __init__(self, table: TargetTable, width: int) -> None:
        self.table = table
        self.width = width

    def __getitem__(self, flat: npt.ArrayLike) -> np.ndarray:
        return self.table.dense(np.asarray(flat), self.width)


def _path(ruleset: Ruleset, target: int, folder: Path) -> Path:
    objective = TargetProbability(target)
    name = re.sub(r"[^A-Za-z0-9_-]", "_", ruleset.id)[:40]
    return folder / f"{name}-ragged2{objective.key}-v{TABLE_VERSION}-{_fingerprint(ruleset, objective)}.npz"


def solve_target(
    rules: Ruleset,
    target: int,
    *,
    cache: bool = True,
    folder: Path | None = None,
    threads: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TargetTable:
    """The target table of a one-column ruleset (module docstring); loaded from the cache when there."""
    if target < 0:
        raise ValueError("the target must be at least 0")
    sr = solver_rules(rules)
    if sr.rel_high >= 0:
        raise UnsupportedRuleset("relations are solved for the expected score (MeanScore) only")
    if sr.any_byroll or sr.needs_row >= 0 or sr.stepped or sr.joker_placement != 0 or sr.order:
        raise UnsupportedRuleset(
            "not supported: target chances for points by roll, outright wins, prerequisites, stepped bonuses, "
            "a joker other than the forced one or a column filled in order; the expected score is solved"
        )
    path = _path(rules, target, folder or cache_dir())
    if cache and path.exists():
        t0 = time.perf_counter()
        try:
            with np.load(path) as data:
                offset, values = data["offset"], data["values"]
            if len(offset) == sr.n_states + 1:
                return TargetTable(sr, target, offset, values, time.perf_counter() - t0, loaded=True)
        except (OSError, ValueError, KeyError):
            pass
    t0 = time.perf_counter()
    table = _induction(sr, target, threads, progress)
    table.seconds = time.perf_counter() - t0
    if cache:
        _store(path, table)
    return table


def _induction(
    sr: SolverRules, target: int, threads: int | None, progress: Callable[[int, int], None] | None
) -> TargetTable:
    """Level by level from the last turn back; one compiled lane per (state, points still needed)."""
    from .compiled import kernels

    K = kernels()
    rules = K.rule_args(sr)
    n = sr.n_states
    flat = np.arange(n, dtype=np.int64)
    width = np.minimum(max_remaining(sr, flat), np.maximum(target - min_scored(sr, flat), 0)) + 1  # k = 0..width-1
    offset = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(width + 1, out=offset[1:])  # + 1: a trailing 0 (P beyond what the state stores)
    values = np.zeros(int(offset[-1]), dtype=np.float32)
    values[offset[:-1]] = 1.0  # k = 0: reached (a full sheet stores only this)
    table = TargetTable(sr, target, offset, values)
    levels = list(range(sr.n_rows - 1, -1, -1))
    workers = threads or min(2, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for done, n_filled in enumerate(levels):
            level = sr.level_states(n_filled)
            per_state = width[level] - 1  # lanes: k = 1..width-1
            ends = np.cumsum(per_state)
            first = 0
            while first < len(level):  # groups of states of at most LANES_AT_ONCE lanes: bounded memory
                base = ends[first - 1] if first else 0
                last = max(first + 1, int(np.searchsorted(ends, base + LANES_AT_ONCE, side="right")))
                states, per = level[first:last], per_state[first:last]
                first = last
                lane_state = np.repeat(states, per)
                starts = np.repeat(np.cumsum(per) - per, per)
                lane_need = np.arange(len(lane_state), dtype=np.int64) - starts + 1
                out = np.empty(len(lane_state))
                parts = max(1, min(4 * workers, len(lane_state) // 4096))
                bounds = np.linspace(0, len(lane_state), parts + 1).astype(np.int64)

                def run(
                    j: int,
                    ls: np.ndarray = lane_state,
                    ln: np.ndarray = lane_need,
                    o: np.ndarray = out,
                    bd: np.ndarray = bounds,
                ) -> None:
                    a, b = bd[j], bd[j + 1]
                    K.target_turn_starts(values, offset, ls[a:b], ln[a:b], rules, sr.rolls, o[a:b])

                list(pool.map(run, range(parts)))
                values[offset[lane_state] + lane_need] = out  # a level reads only the levels below it
            if progress:
                progress(done + 1, len(levels))
    return table


def _store(path: Path, table: TargetTable) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, offset=table.offset, values=table.values, target=np.int64(table.target))
        os.chmod(tmp, TABLE_MODE)
        os.replace(tmp, path)
    except OSError:
        pass


@dataclass(frozen=True)
class TargetAdvice:
    """Every keep and legal box of a position with its chance to reach the target (best first)."""

    target: int
    score: int  # points already on the sheet
    chance: float  # the position's chance under the best play
    keeps: tuple[Choice, ...] = ()
    boxes: tuple[Choice, ...] = ()

    @property
    def best(self) -> Choice | None:
        choices = self.keeps + self.boxes
        return max(choices, key=lambda c: c.value) if choices else None

    def to_dict(self) -> JSONObject:
        best = self.best
        return {
            "target": self.target,
            "score": self.score,
            "chance": self.chance,
            "best": best.to_dict() if best else None,
            "keeps": [c.to_dict() for c in self.keeps],
            "boxes": [c.to_dict() for c in self.boxes],
        }


def advise_target(table: TargetTable, position: Position) -> TargetAdvice:
    """The chance to reach `table.target` (final score) after every keep and box of `position`."""
    sr = table.rules
    boxes, upper, yam, score = position_key(sr, position)
    need = table.target - score
    if position.roll == 0:
        return TargetAdvice(table.target, score, table.chance(boxes, upper, yam, need))
    if need <= 0:
        width = 1
    else:
        width = need + 1
    objective = TargetProbability(width - 1)
    ragged: Any = _Ragged(table, width)  # read as a table by the numpy forms
    b, u, y = (np.array([v], dtype=np.int64) for v in (boxes, upper, yam))
    k = max(need, 0)
    hand = D.roll_index(position.dice)
    rows: list[Choice] = []
    for i, pts, value in box_values(sr, ragged, objective, b, u, y, np.array(hand)):
        if np.isfinite(value[0, k]):
            rows.append(Choice(value=float(value[0, k]), box=sr.ruleset.rows[i].id, points=int(pts[0])))
    keeps: list[Choice] = []
    if position.roll < sr.rolls:
        last = last_roll_values(sr, ragged, objective, b, u, y)[:, 0, k]  # (252,)
        x = np.empty(len(D.MULTISETS))
        x[D.FULL :] = last
        for j in range(sr.rolls - 1, position.roll - 1, -1):  # as `_induction._numpy_keep_values`
            D.down(x)  # keep values after roll j
            if j > position.roll:
                D.up(x)  # hand values after roll j (holding all five = stopping: its best box)
        held = D.keep_index(position.held)
        for kk in D.SUBKEEPS[hand, : D.N_SUBKEEPS[hand]]:
            if kk == D.FULL + hand:
                continue
            keeps.append(Choice(value=float(x[kk]), keep=D.MULTISETS[kk], current=bool(kk == held)))
    order = lambda c: -c.value  # noqa: E731
    best = max([c.value for c in keeps + rows], default=0.0)
    return TargetAdvice(table.target, score, best, tuple(sorted(keeps, key=order)), tuple(sorted(rows, key=order)))
