"""Play for category points (Balut, docs/rules.md §12): the boxes valued by what they do to the points.

A `category_points` game is decided by the points each row earns on its boxes across the columns and
by a table of the grand total, not by pips. The terminal value of writing w in a box is the change in
expected category points, read off the rules (no ruleset named here):

* a row's `table` step (Balut's fours from 52): P(written sum + w + the row's other open boxes >= the
  step), those boxes' values drawn independently from the value model's D[c][r] (an exact convolution);
* `every_box` (four straights): P(every box of the row scores), the product of each open box's chance
  not to be 0 under D, nothing once a box is 0;
* `per_box` (each balut): the expected count of boxes that score;
* `rank`: the row's expected place among the seats, each opponent's row total drawn the same way,
  level seats sharing the places they take (docs/rules.md §12);
* `match.total_table`: the grand total by a normal law around the model's expected final total
  (`Model.value`) with the variance of the boxes still open.

`PIPS_WEIGHT` category points per point of the change in estimated total count the pips beside the
total table, since equal points (frequent) are decided by the grand total (docs/rules.md §7). The
strong bot (`strong.py`) plays the turn expectimax with these values in category_points games; greedy
(`baseline.py`) picks its box by them. This module imports no policy, so that both may use it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..engine import GameState, Sheet
from ..engine.scoresheet import column_scores
from ..rules import Ruleset
from ..rules.model import CategoryPoints
from .evaluate import Model, W

__all__ = [
    "PIPS_WEIGHT",
    "RowState",
    "category_terms",
    "expected_row_points",
    "rank_points",
    "row_states",
    "steps",
]

# Category points per point of estimated total, beside the total table's own slope: equal points are
# frequent (they come in steps of 1 to 4) and the grand total decides them. Balut duels against the pip bot
# (docs/bots.md) won 55% at 0.002 and 57-61% from 0.01 to 0.1 (400 games each, the last three within noise).
PIPS_WEIGHT = 0.05


_ERF = np.frompyfunc(math.erf, 1, 1)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    """The standard normal law's P(Z <= x), elementwise."""
    out: np.ndarray = 0.5 * (1.0 + np.asarray(_ERF(x / math.sqrt(2.0)), dtype=float))
    return out


@dataclass(frozen=True, slots=True)
class RowState:
    """One seat's boxes of one row across the columns, as the engine counts them for category points."""

    total: int  # the written boxes' sum (after relations, as `scoresheet.category_points` reads them)
    scored: int  # written boxes that scored (not 0)
    spoiled: bool  # a written box is 0: `every_box` is lost
    open: tuple[int, ...]  # the columns whose box of this row is still open


def steps(table: tuple[tuple[int, float], ...]) -> list[tuple[int, float]]:
    """A points table as (threshold, increase) steps: the points of a value are the increases of the
    thresholds it reaches (`CategoryPoints.step`)."""
    out, before = [], 0.0
    for threshold, points in table:
        out.append((threshold, points - before))
        before = points
    return out


def row_states(rules: Ruleset, sheet: Sheet) -> dict[int, RowState]:
    """Each awarding row's state on the sheet, by row index."""
    cols = column_scores(rules, sheet)
    n = rules.n_rows
    out = {}
    for r, row in enumerate(rules.rows):
        if row.category_points is None:
            continue
        written = [(c, cs.boxes[row.id]) for c, cs in enumerate(cols) if sheet.written[c * n + r] is not None]
        out[r] = RowState(
            total=sum(v or 0 for _, v in written),
            scored=sum(1 for _, v in written if v),
            spoiled=any(not v for _, v in written),
            open=tuple(c for c in range(len(rules.columns)) if sheet.written[c * n + r] is None),
        )
    return out


def _sum_dist(model: Model, r: int, cols: tuple[int, ...]) -> np.ndarray:
    """The distribution of the sum of row r's open boxes in `cols` (independent draws from D)."""
    out = np.ones(1)
    for c in cols:
        out = np.convolve(out, model.dist[c, r])
    return out


def _at_least(dist: np.ndarray, need: np.ndarray) -> np.ndarray:
    """P(X >= need) for X ~ dist on 0..len-1, elementwise over `need` (1 where need <= 0)."""
    tail = np.concatenate([np.cumsum(dist[::-1])[::-1], [0.0]])  # tail[k] = P(X >= k), 0 past the end
    out: np.ndarray = np.minimum(tail[np.clip(np.asarray(need, dtype=np.int64), 0, len(dist))], 1.0)
    return out


def rank_points(rank: tuple[float, ...], theirs: list[np.ndarray], size: int) -> np.ndarray:
    """(size,) the expected rank points of a seat whose row total is v = 0..size-1 against opponents
    whose totals are independent with distributions `theirs` (index = total), level seats sharing the
    points of the places they take together (as `scoresheet.category_points` awards them)."""
    places = list(rank) + [0.0] * (len(theirs) + 1)
    # joint[i][j]: P(i opponents above and j level), per v
    joint = {(0, 0): np.ones(size)}
    for y in theirs:
        y = np.pad(y, (0, max(0, size + 1 - len(y))))
        level = y[:size]
        above = 1.0 - np.cumsum(y)[:size]  # P(Y > v)
        below = np.clip(1.0 - above - level, 0.0, 1.0)
        nxt: dict[tuple[int, int], np.ndarray] = {}
        for (i, j), p in joint.items():
            for key, q in (((i + 1, j), above), ((i, j + 1), level), ((i, j), below)):
                nxt[key] = nxt.get(key, 0.0) + p * q
        joint = nxt
    out = np.zeros(size)
    for (i, j), p in joint.items():
        out += p * (sum(places[i : i + j + 1]) / (j + 1))
    return out


def _row_expected(
    award: CategoryPoints,
    model: Model,
    r: int,
    total: np.ndarray,
    scored: np.ndarray,
    ok: np.ndarray,
    cols: tuple[int, ...],
    rank_value: np.ndarray | None,
) -> np.ndarray:
    """The row's expected category points when its written boxes sum to `total`, `scored` of them
    scored and `ok` none is 0 (arrays, one entry per case), with the boxes of `cols` still open."""
    x = _sum_dist(model, r, cols)
    hits = [1.0 - float(model.dist[c, r, 0]) for c in cols]  # each open box's chance to score
    out = np.zeros(len(total))
    for threshold, more in steps(award.table):
        out += more * _at_least(x, threshold - total)
    if award.per_box:
        out += award.per_box * (scored + sum(hits))
    if award.every_box:
        out += award.every_box * ok * math.prod(hits)
    if rank_value is not None:
        padded = np.pad(rank_value, (0, len(x)), mode="edge")
        windows = sliding_window_view(padded, len(x))  # windows[t][k] = value at total t + k
        out += windows[np.clip(total, 0, len(rank_value) - 1)] @ x
    return out


def expected_row_points(
    rules: Ruleset, model: Model, r: int, rs: RowState, rank_value: np.ndarray | None = None
) -> float:
    """Row r's expected category points in state `rs` (`rank_value`: the rank points by the row's final
    total, `rank_points`; None where the row has no rank)."""
    award = rules.rows[r].category_points
    if award is None:
        return 0.0
    total, scored, ok = np.array([rs.total]), np.array([rs.scored]), np.array([not rs.spoiled])
    return float(_row_expected(award, model, r, total, scored, ok, rs.open, rank_value)[0])


def _opponent_totals(model: Model, rules: Ruleset, sheet: Sheet, r: int) -> np.ndarray:
    """An opponent's final row total distribution (its written sum, then its open boxes drawn from D)."""
    rs = row_states(rules, sheet)[r]
    return np.concatenate([np.zeros(rs.total), _sum_dist(model, r, rs.open)])


def category_terms(state: GameState, player: int, model: Model) -> tuple[Callable[[int], np.ndarray], Any, float]:
    """(gain_fn, plan cache key, expected category points now) for seat `player`: a box's terminal value
    is the change in expected category points (see the module docstring) plus `PIPS_WEIGHT` per point
    of estimated total."""
    rules = state.rules
    n = rules.n_rows
    sheet = state.sheets[player]
    mine = row_states(rules, sheet)
    others = [s for o, s in enumerate(state.sheets) if o != player]
    size = len(rules.columns) * W  # every row total the model can reach, 0..size-1
    ranks: dict[int, np.ndarray] = {}
    for r in mine:
        award = rules.rows[r].category_points
        if award is not None and award.rank and others:
            ranks[r] = rank_points(award.rank, [_opponent_totals(model, rules, s, r) for s in others], size)
        elif award is not None and award.rank:  # alone: first place
            ranks[r] = np.full(size, award.rank[0])

    rows_now = {r: expected_row_points(rules, model, r, rs, ranks.get(r)) for r, rs in mine.items()}
    table = steps(rules.match.total_table)
    open_var = float(sum(model.var[divmod(b, n)] for b, v in enumerate(sheet.written) if v is None))
    k_open = sheet.written.count(None)
    level = model.value(sheet)

    def total_points(mu: np.ndarray | float, var: float) -> np.ndarray:
        sd = math.sqrt(max(var, 1e-6))
        out = np.zeros(np.shape(mu))
        for threshold, more in table:
            out = out + more * _normal_cdf((np.asarray(mu, dtype=float) - threshold + 0.5) / sd)  # totals are whole
        return out

    total_now = float(total_points(level, open_var)) if table else 0.0

    def gain(box: int) -> np.ndarray:
        c, r = divmod(box, n)
        pips = model.box_gain(sheet, box)
        out: np.ndarray = PIPS_WEIGHT * pips
        if table:
            after = level + pips + model.offset(k_open - 1) - model.offset(k_open)
            out = out + total_points(after, open_var - float(model.var[c, r])) - total_now
        award = rules.rows[r].category_points
        if award is not None:
            rs = mine[r]
            w = np.arange(W)
            got = w > 0
            rest = tuple(x for x in rs.open if x != c)
            row = _row_expected(
                award, model, r, rs.total + w, rs.scored + got, got & (not rs.spoiled), rest, ranks.get(r)
            )
            out = out + row - rows_now[r]
        return out

    now = sum(rows_now.values()) + total_now
    key = ("category", tuple((s.written, s.voided) for s in others) if ranks else ())
    return gain, key, now
