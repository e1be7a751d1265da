"""The chance to win of every choice, read from distributions of final results (see `advice.py`).

A choice's final result is what this turn ends with plus what the rest of the sheet brings. The
turn is followed exactly: from the choice, hand by hand and roll by roll, the chance of ending in
each box with each value, the coach's own play deciding every keep and box (`Ends`). Then:

* **the seat's last turn** (one box open): nothing more comes, so the chances are exact, and for
  play that maximises them: a last-turn expectimax whose terminal value is P(win | this final
  sheet) (`last_turn`), the joker's extra bonus included;
* **with the exact table** (one-column rulesets): games of optimal play simulated from where the
  turn ends, from every end state when few turns remain, else one pool of games whose spread
  around each end state's exact expectation is added to every end state's (`TableFutures`);
* **elsewhere**: every open box drawn from the value model's distribution of what it gets written
  with, independently, the drawn sheets scored like the engine does (upper bonus, relations), and
  each column's mean moved onto the model's estimate (`ModelDraws`).

The other seats' final results are drawn the same way from where they stand, exact once their
sheet is full (`Rivals`). Every chance comes twice: of not losing (a win shared on equal totals
counts, as the records count it: what play for the win maximises) and of winning alone (`strict`),
so a player reads win, tie and loss apart. Equal column totals share the column's points (a
roll-off's expectation); in column-points games the winner has the most match points, then the
higher total, and a tie is equal match points on equal totals (docs/rules.md §7).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..bots.evaluate import Model, W, fingerprint, joker_hands
from ..bots.expectimax import Plan, follow_values, keep_transition, plan_for, turn_ends
from ..engine import GameState, Sheet
from ..rules import Ruleset
from ..solver import Position, Strategy, cache_dir
from ..solver import advise as exact_advice
from ..solver import dice as D
from ..solver.advisor import TurnTable, position_state
from ..solver.simulate import remaining_scores, residuals
from ..solver.table import TABLE_MODE

__all__ = [
    "Ends",
    "LastTurn",
    "ModelDraws",
    "Rivals",
    "TableFutures",
    "box_ends",
    "column_totals",
    "draws_of",
    "last_turn",
    "plan_ends",
    "rivals_of",
    "table_box",
    "table_ends",
]

RIVAL_DRAWS = 1000  # draws of every other seat's final result
MODEL_DRAWS = 1000  # draws of the seat's own open boxes (value model)
POOL_GAMES = 20_000  # exact table: games whose spread around the table's expectation is pooled
STATE_GAMES = 300  # exact table: games from each end state, when few turns remain
SMALL = 12_000  # ... when end states x STATE_GAMES x turns left stays under this
FEW = 8  # exact table: another seat's games are simulated from its own state with this many turns left
RIVAL_GAMES = 1500  # ... this many (in the tails, where a lopsided game is decided, the pool's shape is not theirs)
_CACHE: dict[Any, Any] = {}


def _cached(key: Any, make: Any) -> Any:
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        hit = _CACHE[key] = make()
    return hit


# --- scoring drawn sheets ----------------------------------------------------------------------


def column_totals(rules: Ruleset, scores: np.ndarray) -> np.ndarray:
    """(..., n_cols) column totals of full sheets given as (..., n_boxes) entry scores (after any
    entry-time voiding): the engine's `column_scores`, array-wise (upper bonus, max_gt_min, minimax)."""
    n = rules.n_rows
    return np.stack(
        [column_total(rules, scores[..., c * n : (c + 1) * n]) * col.multiplier for c, col in enumerate(rules.columns)],
        -1,
    )


def column_total(rules: Ruleset, column: np.ndarray) -> np.ndarray:
    """(...) the totals of one column given as (..., n_rows) entry scores (see `column_totals`), before the
    column's multiplier."""
    s = column.astype(np.int64)
    extra = np.zeros(s.shape[:-1], dtype=np.int64)
    for rel in rules.relations:
        hi, lo = rules.row_index[rel.high], rules.row_index[rel.low]
        if rel.kind == "max_gt_min":
            bad = s[..., hi] <= s[..., lo]
            s[..., hi] = np.where(bad, 0, s[..., hi])
            s[..., lo] = np.where(bad, 0, s[..., lo])
        elif rel.kind == "minimax":
            extra += (s[..., hi] - s[..., lo]) * s[..., rules.row_index[rel.factor]]
            s[..., hi] = 0
            s[..., lo] = 0
    total = s.sum(axis=-1) + extra
    ub = rules.upper_bonus
    if ub is not None:
        upper = s[..., [i for i, r in enumerate(rules.rows) if r.is_upper]].sum(axis=-1)
        bonus = np.zeros(upper.shape, dtype=np.int64)
        for threshold, points in ub.all_steps:  # a stepped bonus: each step replaces the one below
            bonus = np.where(upper >= threshold, points, bonus)
        total = total + bonus
    return total  # type: ignore[no-any-return]


def entry_scores(sheet: Sheet) -> np.ndarray:
    """(n_boxes,) the sheet's entry scores, 0 for open boxes."""
    return np.array([v if (v := sheet.entry_score(b)) is not None else 0 for b in range(len(sheet.written))])


def _voided(state: GameState, p: int, box: int, written: np.ndarray) -> np.ndarray:
    """`written` in `box` after entry-time voiding against the sheet's filled partners (the engine's bounds)."""
    out = np.asarray(written, dtype=np.int64)
    for bound in state.entry_bounds(box, p):
        if bound.effect == "voids-entry":
            out = np.where(bound.hits(out), 0, out)
    return out


# --- the other seats ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Rivals:
    """The other seats' final results, independent of each other: `finals` each seat's drawn totals
    (any number of draws each); for column points `totals` (N, R) and `cols` (N, R, C), N draws of all."""

    rules: Ruleset
    finals: tuple[np.ndarray, ...]
    totals: np.ndarray
    cols: np.ndarray
    key: Hashable

    @property
    def by_total(self) -> bool:
        """The winner is the higher total (total rulesets, and one column whatever its points)."""
        return self.rules.match.kind != "column_points" or len(self.rules.columns) == 1

    def total_cdf(self) -> np.ndarray:
        """cdf[t] = P(every other seat ends with at most t), t = 0 .. the highest drawn total."""

        def make() -> np.ndarray:
            top = int(max(np.rint(f).max() for f in self.finals))
            t = np.arange(max(top, 0) + 1)
            cdf = np.ones(len(t))
            for f in self.finals:
                cdf *= np.searchsorted(np.sort(np.rint(f)), t, side="right") / len(f)
            return cdf

        return _cached(("cdf", self.key), make)  # type: ignore[no-any-return]

    def win_by_total(self, totals: np.ndarray, strict: bool = False) -> np.ndarray:
        """P(not losing), or with `strict` P(winning alone), for each of my final totals (any shape)."""
        cdf = self.total_cdf()
        t = np.rint(np.asarray(totals, dtype=float)).astype(np.int64) - (1 if strict else 0)
        return np.where(t < 0, 0.0, cdf[np.clip(t, 0, len(cdf) - 1)])

    def win_fixed(self, cols: np.ndarray, totals: np.ndarray, strict: bool = False) -> np.ndarray:
        """(K,) P(not losing) (`strict`: P(winning alone)) of K exactly known final sheets of mine
        ((K, C) columns, (K,) totals)."""
        if self.by_total:
            return self.win_by_total(totals, strict)
        won = _points_win(self.rules, cols[:, None, :], totals[:, None], self.cols, self.totals, strict)
        return won.mean(axis=1)  # type: ignore[no-any-return]

    def win_drawn(self, cols: np.ndarray, totals: np.ndarray, strict: bool = False) -> np.ndarray:
        """P(not losing) (`strict`: P(winning alone)) of my drawn final sheets ((..., N, C), (..., N)),
        each draw against one of the others' (N at most as many as theirs): (...)."""
        if self.by_total:
            return self.win_by_total(totals, strict).mean(axis=-1)  # type: ignore[no-any-return]
        n = totals.shape[-1]
        return _points_win(self.rules, cols, totals, self.cols[:n], self.totals[:n], strict).mean(axis=-1)  # type: ignore[no-any-return]


def _points_win(
    rules: Ruleset, cols: np.ndarray, tot: np.ndarray, r_cols: np.ndarray, r_tot: np.ndarray, strict: bool = False
) -> np.ndarray:
    """Column points: mine (..., C), (...); theirs (..., R, C), (..., R), broadcast against mine ->
    (...) 1.0 where I do not lose (`strict`: where I win alone)."""
    weights = np.array([c.points for c in rules.columns], dtype=float)
    if r_cols.shape[-2] == 1:  # one other seat: what I do not win of a column, it does
        theirs, their_tot = r_cols[..., 0, :], r_tot[..., 0]
        share = np.where(cols > theirs, 1.0, np.where(cols == theirs, 0.5, 0.0))
        mine = share @ weights + rules.match.total_points * np.where(
            tot > their_tot, 1.0, np.where(tot == their_tot, 0.5, 0.0)
        )
        half = (weights.sum() + rules.match.total_points) / 2
        level = np.abs(mine - half) <= 1e-9
        ahead = (tot > their_tot) if strict else (tot >= their_tot)
        return ((mine > half + 1e-9) | (level & ahead)).astype(float)  # type: ignore[no-any-return]
    shape = np.broadcast_shapes(cols.shape[:-1], r_cols.shape[:-2])
    allc = np.concatenate([np.broadcast_to(cols, shape + cols.shape[-1:])[..., None, :],
                           np.broadcast_to(r_cols, shape + r_cols.shape[-2:])], axis=-2)  # fmt: skip
    allt = np.concatenate(
        [np.broadcast_to(tot, shape)[..., None], np.broadcast_to(r_tot, shape + r_tot.shape[-1:])], -1
    )
    top = allc == allc.max(axis=-2, keepdims=True)
    points = (top / top.sum(axis=-2, keepdims=True) * weights).sum(axis=-1)
    ttop = allt == allt.max(axis=-1, keepdims=True)
    points = points + rules.match.total_points * ttop / ttop.sum(axis=-1, keepdims=True)
    me, others = points[..., :1], points[..., 1:]
    level = np.abs(me - others) <= 1e-9
    higher = (allt[..., :1] > allt[..., 1:]) if strict else (allt[..., :1] >= allt[..., 1:])
    ahead = (me > others + 1e-9) | (level & higher)
    return ahead.all(axis=-1).astype(float)  # type: ignore[no-any-return]


def rivals_of(state: GameState, p: int, model: Model, strategy: Strategy | None) -> Rivals:
    """The other seats' final results (see the module docstring): exact for a full sheet; with the
    exact table, games of optimal play from the seat's own state (its first turns: the table's
    expectation plus the pooled spread, which early on is theirs); else the value model's draws."""
    rules = state.rules
    others = [o for o in range(len(state.players)) if o != p]
    key = ("rivals", model.fingerprint, strategy is not None, tuple((state.sheets[o].written, state.sheets[o].voided,
           state.sheets[o].extra_bonus) for o in others))  # fmt: skip

    def make() -> Rivals:
        finals, totals, cols = [], [], []
        for i, o in enumerate(others):
            sheet = state.sheets[o]
            left = sheet.written.count(None)
            if sheet.full:
                c = np.array([s.total for s in state.column_scores(o)], dtype=float)
                t = np.full(RIVAL_DRAWS, float(state.total(o)))
                c = np.broadcast_to(c, (RIVAL_DRAWS, len(c)))
            elif strategy is not None:
                filled = {rules.rows[b].id: int(v) for b, v in enumerate(sheet.written) if v is not None}
                start = Position(filled, extra_bonus=sheet.extra_bonus)
                if left <= FEW:
                    boxes, upper, yam, score = position_state(strategy, start)
                    t = score + remaining_scores(strategy, boxes, upper, yam, RIVAL_GAMES, seed=17 + i).astype(float)
                else:
                    t = exact_advice(strategy, start).value + pools_for(strategy)[left]
                c = t[:, None]
            else:
                c, t = ModelDraws(model, state, o, RIVAL_DRAWS, seed=17 + i, after_turn=False).final()
            finals.append(t)
            totals.append(t[:RIVAL_DRAWS])
            cols.append(c[:RIVAL_DRAWS])
        return Rivals(rules, tuple(finals), np.stack(totals, axis=1), np.stack(cols, axis=1), key)

    return _cached(key, make)  # type: ignore[no-any-return]


POOL_VERSION = 1


def pools_for(strategy: Strategy) -> np.ndarray:
    """`simulate.residuals` of POOL_GAMES games of the strategy, made once per ruleset and kept beside
    the solver's tables (a few seconds the first time)."""

    def make() -> np.ndarray:
        path = cache_dir() / "coach" / f"pools-{POOL_VERSION}-{fingerprint(strategy.ruleset)}-{POOL_GAMES}.npy"
        try:
            return np.load(path)  # type: ignore[no-any-return]
        except (OSError, ValueError):
            pass
        pools = residuals(strategy, POOL_GAMES, seed=POOL_VERSION).astype(np.float32)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as f:
                np.save(f, pools)
            os.chmod(f.name, TABLE_MODE)
            os.replace(f.name, path)
        except OSError:
            pass  # a read-only cache: made again by the next process
        return pools

    return _cached(("pools", id(strategy)), make)  # type: ignore[no-any-return]


# --- where this turn ends ----------------------------------------------------------------------


@dataclass(frozen=True)
class Ends:
    """The outcomes a choice's turn can end with, as parallel arrays (one entry per outcome)."""

    prob: np.ndarray
    box: np.ndarray  # box index
    written: np.ndarray  # the value written (0 struck); exact table: the points the entry adds
    extra: np.ndarray  # joker extra bonus won by the entry
    value: np.ndarray  # the coach's value after it (exact table: expected final total; model: the gain)
    after: np.ndarray | None = None  # exact table: (J, 3) turn-start keys after the entry


def box_ends(box: int, written: int, value: float, extra: int = 0, after: npt.ArrayLike | None = None) -> Ends:
    """The end of a choice that fills `box` now."""
    return Ends(
        np.ones(1), np.array([box]), np.array([written]), np.array([extra]), np.array([value]),
        None if after is None else np.asarray(after).reshape(1, 3),
    )  # fmt: skip


def table_ends(tt: TurnTable, rolls: int, roll: int, keep: tuple[int, ...]) -> Ends:
    """Exact table: the ends of keeping `keep` after roll `roll` and playing optimally on (the table's
    best row per hand, the first in sheet order among equals)."""
    start = keep_transition()[D.keep_index(keep)]
    best = tt.values.max(axis=0)
    q = turn_ends([best] * rolls, tt.keeps, start, roll + 1)
    row = tt.values.argmax(axis=0)
    parts = []
    for m in range(roll + 1, rolls + 1):
        h = np.nonzero(q[m])[0]
        parts.append((q[m][h], row[h], h))
    prob = np.concatenate([p for p, _, _ in parts])
    rows = np.concatenate([r for _, r, _ in parts])
    hands = np.concatenate([h for _, _, h in parts])
    pts = tt.points[rows, hands]
    return Ends(prob, rows, pts, np.zeros_like(pts), tt.values[rows, hands], tt.after[rows, hands])


def table_box(tt: TurnTable, row: int, hand: int) -> Ends:
    return box_ends(row, int(tt.points[row, hand]), float(tt.values[row, hand]), 0, tt.after[row, hand])


def plan_ends(
    state: GameState, p: int, model: Model, plan: Plan, keep: tuple[int, ...] | None = None, announce: int | None = None
) -> Ends:
    """Value model: the ends of keeping `keep` (or announcing box `announce`) after this roll, the
    plan deciding every later keep and box."""
    rules = state.rules
    turn = state.turns[p]
    k = len(turn.rolls)
    L = D.lattice(rules.dice)
    hand = L.roll_index(turn.dice)
    R = len(plan.T)  # the turn's rolls (saved ones included)
    n = rules.n_rows
    last = model.table.shape[1] - 1
    choose: Callable[[int], np.ndarray]
    if announce is not None:
        terminal, keeps = plan.announced(announce, model.table)
        q = turn_ends(terminal, keeps, np.eye(L.N_ROLLS)[hand], k)
        choose = lambda _m: np.full(L.N_ROLLS, announce)  # noqa: E731
    else:
        q = turn_ends(plan.T, plan.E, keep_transition(rules.dice)[L.keep_index(keep or ())], k + 1)
        choose = plan.choice
    sheet = state.sheets[p]
    jokers: dict[tuple[int, int], dict[int, tuple[int, int]]] = {}
    probs, boxes, written, extras, values = [], [], [], [], []
    for m in range(k, R + 1):
        h = np.nonzero(q[m])[0]
        if not len(h):
            continue
        b = choose(m)[h]
        ok = b >= 0
        h, b = h[ok], b[ok]
        w = model.table[b % n, min(m, last), h].astype(np.int64)
        x = np.zeros(len(h), dtype=np.int64)
        if sheet.joker_on(rules):
            for i in np.nonzero(np.isin(h, [L.roll_index((v,) * rules.dice) for v in range(1, 7)]))[0]:
                key = (m, int(b[i]))
                if key not in jokers:
                    jokers[key] = {hd: (ww, xx) for hd, opts in joker_hands(rules, sheet, [int(b[i])], m)
                                   for bb, ww, xx in opts}  # fmt: skip
                if int(h[i]) in jokers[key]:
                    w[i], x[i] = jokers[key][int(h[i])]
        v = np.empty(len(h))
        for bb in np.unique(b):
            at = b == bb
            by_roll = plan.values[int(bb)][m]
            v[at] = by_roll[h[at]] if by_roll is not None else plan.values[int(bb)][0][w[at]]  # type: ignore[index]
        probs.append(q[m][h])
        boxes.append(b)
        written.append(w)
        extras.append(x)
        values.append(v)
    return Ends(
        np.concatenate(probs), np.concatenate(boxes), np.concatenate(written), np.concatenate(extras),
        np.concatenate(values),
    )  # fmt: skip


# --- what the rest of the sheet brings ---------------------------------------------------------


class ModelDraws:
    """Draws of one seat's final column totals under the value model (see the module docstring):
    every open box drawn independently from its D[c][r], the sheet scored, each column's mean moved
    to the model's estimate. `after_turn`: the seat is choosing now, so its turn ends in one box
    (the calibration of a sheet with one box fewer)."""

    def __init__(self, model: Model, state: GameState, p: int, n: int, seed: int, after_turn: bool) -> None:
        rules = model.rules
        self.rules, self.state, self.p = rules, state, p
        sheet = state.sheets[p]
        nr = rules.n_rows
        rng = np.random.default_rng(seed)
        x = np.tile(entry_scores(sheet), (n, 1))
        open_boxes = [b for b, v in enumerate(sheet.written) if v is None]
        u = rng.random((n, len(open_boxes)))
        for j, b in enumerate(open_boxes):
            cdf = np.cumsum(model.dist[b // nr, b % nr])
            x[:, b] = _voided(state, p, b, np.minimum(np.searchsorted(cdf, u[:, j] * cdf[-1]), W - 1))
        for rel in rules.relations:  # two open boxes of an at-entry pair: the later entry (taken as the low one) voided
            if rel.kind != "min_lt_max_at_entry":
                continue
            hi, lo = rules.row_index[rel.high], rules.row_index[rel.low]
            for c in range(len(rules.columns)):
                bh, bl = c * nr + hi, c * nr + lo
                if sheet.written[bh] is None and sheet.written[bl] is None:
                    broken = (x[:, bh] <= x[:, bl]) & (x[:, bh] > 0) & (x[:, bl] > 0)
                    x[:, bl] = np.where(broken, 0, x[:, bl])
        self.scores = x
        self.cols = cols = column_totals(rules, x)
        self.shift = np.array(
            [model.column_estimate(sheet, c)[0] for c in range(len(rules.columns))], dtype=float
        ) - cols.mean(axis=0)
        left = len(open_boxes) - (1 if after_turn else 0)
        self.total_shift = sheet.extra_bonus + model.joker_term(sheet) + model.offset(max(left, 0))
        self.uniform = rng.random(n)  # common to every choice: the end each draw takes
        self.voiding = [b for b in open_boxes if any(e.effect == "voids-entry" for e in state.entry_bounds(b, p))]

    def final(self) -> tuple[np.ndarray, np.ndarray]:
        """((N, C) column totals, (N,) totals) of the drawn final sheets."""
        cols = np.rint(self.cols + self.shift)
        return cols, cols.sum(axis=1) + self.total_shift

    def finals(self, choices: list[Ends]) -> tuple[np.ndarray, np.ndarray]:
        """`final` after each of K choices, this turn ending as its `Ends` say: ((K, N, C) column totals,
        (K, N) totals). Each draw takes its end by the same uniform number for every choice (common
        random numbers: the choices compare closely)."""
        k, n = len(choices), len(self.uniform)
        box = np.empty((k, n), dtype=np.int64)
        written = np.empty((k, n), dtype=np.int64)
        extra = np.empty((k, n))
        for i, ends in enumerate(choices):
            cum = np.cumsum(ends.prob)
            j = np.minimum(np.searchsorted(cum, self.uniform * cum[-1], side="right"), len(cum) - 1)
            box[i], written[i], extra[i] = ends.box[j], ends.written[j], ends.extra[j]
        for b in self.voiding:
            at = box == b
            written[at] = _voided(self.state, self.p, b, written[at])
        cols = np.broadcast_to(self.cols, (k,) + self.cols.shape).copy()
        rows = self.rules.n_rows
        for c in np.unique(box // rows):  # only the column each entry lands in is scored again
            kk, nn = np.nonzero(box // rows == c)
            x = self.scores[nn, c * rows : (c + 1) * rows].copy()
            x[np.arange(len(nn)), box[kk, nn] - c * rows] = written[kk, nn]
            cols[kk, nn, c] = column_total(self.rules, x) * self.rules.columns[c].multiplier
        cols = np.rint(cols + self.shift)
        return cols, cols.sum(axis=-1) + self.total_shift + extra


def draws_of(model: Model, state: GameState, p: int) -> ModelDraws:
    """The seat's `ModelDraws` while it chooses (kept between the calls of one turn)."""
    sheet = state.sheets[p]
    key = ("draws", model.fingerprint, sheet.written, sheet.voided, sheet.extra_bonus)
    return _cached(key, lambda: ModelDraws(model, state, p, MODEL_DRAWS, seed=7, after_turn=True))  # type: ignore[no-any-return]


class TableFutures:
    """Exact table: the points still to come after this turn (see the module docstring): games of
    optimal play from every end state when few turns remain (kept between calls), else the table's
    exact expectation at each end state plus the pooled spread of `pools_for`."""

    def __init__(self, strategy: Strategy, score: int, ends: list[Ends], left: int) -> None:
        self.score = score
        keys = np.unique(np.concatenate([e.after for e in ends if e.after is not None]), axis=0)
        self.per_state = len(keys) * STATE_GAMES * left <= SMALL
        self.games: dict[tuple[int, ...], np.ndarray] = {}
        self.pool = pools_for(strategy)[left] if not self.per_state else None
        if self.per_state:
            names = [tuple(k) for k in keys.tolist()]
            self.games = {k: g for k in names if (g := _CACHE.get(("state", id(strategy), k))) is not None}
            todo = [k for k in names if k not in self.games]
            if todo:
                reps = np.repeat(np.array(todo), STATE_GAMES, axis=0)
                seed = hash(tuple(todo)) & 0xFFFF
                games = remaining_scores(strategy, reps[:, 0], reps[:, 1], reps[:, 2], len(reps), seed=seed)
                for k, g in zip(todo, games.reshape(len(todo), STATE_GAMES).astype(float), strict=True):
                    self.games[k] = _cached(("state", id(strategy), k), lambda g=g: g)

    def win(self, ends: Ends, rivals: Rivals, strict: bool = False) -> float:
        """P(not losing) (`strict`: P(winning alone)) of a choice whose turn ends as `ends` says."""
        if self.per_state:
            assert ends.after is not None
            keys, inv = np.unique(np.column_stack([ends.after, ends.written]), axis=0, return_inverse=True)
            weights = np.bincount(inv.reshape(-1), weights=ends.prob)
            games = np.stack([self.games[tuple(k[:3])] for k in keys.tolist()])
            chances = rivals.win_by_total(self.score + keys[:, 3:4] + games, strict).mean(axis=1)
            return float(weights @ chances / weights.sum())
        values, inv = np.unique(np.rint(ends.value).astype(np.int64), return_inverse=True)
        weights = np.bincount(inv.reshape(-1), weights=ends.prob)
        return float(weights @ self._spread(rivals, values, strict) / weights.sum())

    def _spread(self, rivals: Rivals, values: np.ndarray, strict: bool) -> np.ndarray:
        """P(win) of ending at `values` (whole points) plus the pooled spread: sum over r of P(r) cdf(v + r),
        the spread's draws counted to the whole point once per rivals."""
        assert self.pool is not None
        key = ("spread", id(self.pool), rivals.key, strict)
        lo, counts = _cached(("hist", id(self.pool)), lambda: _histogram(self.pool))
        table = _CACHE.get(key)
        if table is None or table[0] > values.min() or table[0] + len(table[1]) <= values.max():
            v = np.arange(min(values.min(), 0), max(values.max(), len(rivals.total_cdf())) + 1)
            shifted = v[:, None] + lo + np.arange(len(counts))[None, :]
            table = _CACHE[key] = (int(v[0]), rivals.win_by_total(shifted, strict) @ counts / counts.sum())
        return table[1][values - table[0]]  # type: ignore[no-any-return]


def _histogram(draws: np.ndarray) -> tuple[int, np.ndarray]:
    """(lowest whole value, counts of every whole value from it) of real-valued draws."""
    whole = np.rint(draws).astype(np.int64)
    lo = int(whole.min())
    return lo, np.bincount(whole - lo).astype(float)


# --- the last turn: exact, for play to win -----------------------------------------------------


# Among choices as likely not to lose, play for winning alone: a millionth of the chance to win alone is
# added to the chance of not losing the last turn is played for (far below any difference a player reads).
ALONE_WEIGHT = 1e-6


@dataclass(frozen=True)
class LastTurn:
    """The seat's last turn, played for the win: every choice's (P(not losing), P(winning alone)).
    `keeps` by the dice held, `boxes` and `announces` by box index, `struck` a box struck now."""

    keeps: dict[tuple[int, ...], tuple[float, float]]
    boxes: dict[int, tuple[float, float]]
    announces: dict[int, tuple[float, float]]
    struck: Callable[[int], tuple[float, float]]


def last_turn(state: GameState, p: int, model: Model, rivals: Rivals) -> LastTurn:
    """The seat's last turn (one box open) by an exact expectimax whose terminal value is P(not losing |
    final sheet) (ties broken toward winning alone), the joker's extra bonus included; each choice's two
    chances followed through the same play (`follow_values`)."""
    rules = state.rules
    sheet = state.sheets[p]
    base = entry_scores(sheet)
    R = rules.rolls_per_turn
    n = rules.n_rows
    last = model.table.shape[1] - 1
    memo: dict[tuple[int, int, bool], np.ndarray] = {}

    def chances(box: int, extra: int, strict: bool) -> np.ndarray:
        """(W,) P(not losing) (`strict`: P(winning alone)) of writing each value in `box`."""
        if (box, extra, strict) not in memo:
            reach = np.unique(np.concatenate([model.table[box % n, m] for m in range(1, R + 1)] + [np.zeros(1, int)]))
            reach = reach[reach < W]
            joker = [w for _, opts in joker_hands(rules, sheet, [box], 1) for _, w, _ in opts]
            reach = np.union1d(reach, np.array(joker, dtype=np.int64))
            x = np.tile(base, (len(reach), 1))
            x[:, box] = _voided(state, p, box, reach)
            cols = column_totals(rules, x)
            out = np.zeros(W)
            out[reach] = rivals.win_fixed(cols.astype(float), cols.sum(axis=1) + sheet.extra_bonus + extra, strict)
            memo[(box, extra, strict)] = out
        return memo[(box, extra, strict)]

    def played(box: int, extra: int) -> np.ndarray:
        return chances(box, extra, False) + ALONE_WEIGHT * chances(box, extra, True)

    plan = plan_for(state, p, model, lambda b: played(b, 0), ("win", rivals.key), lambda b, w, x: played(b, x)[w])

    def entry(box: int, m: int, strict: bool) -> np.ndarray:
        """(hands,) the chance of ending the turn in `box` after roll m with each hand (as `_terminal` writes)."""
        written = model.table[box % n, min(m, last)]
        if not sheet.needed_scored(rules, box):
            written = np.zeros_like(written)
        v: np.ndarray = chances(box, 0, strict)[written]
        if rules.rows[box % n].wins_by_roll >= m and rules.win_points is not None:  # an outright win
            v = np.where(written > 0, 1.0, v)
        for hand, opts in joker_hands(rules, sheet, [box], m):
            for _, w, x in opts:
                v[hand] = chances(box, x, strict)[w]
        return v

    def reported(m: int, strict: bool) -> np.ndarray:
        choice = plan.choice(m)
        out = np.zeros(len(choice))
        for b in np.unique(choice[choice >= 0]):
            at = choice == b
            out[at] = entry(int(b), m, strict)[at]
        return out

    turn = state.turns[p]
    k = len(turn.rolls)
    rolls = len(plan.T)
    L = D.lattice(rules.dice)
    hand = L.roll_index(turn.dice)
    both = (False, True)
    boxes = {b: (float(entry(b, k, False)[hand]), float(entry(b, k, True)[hand])) for b in state.legal_boxes(p)}
    keeps: dict[tuple[int, ...], tuple[float, float]] = {}
    if k < state.rolls_allowed(p) and state.can_roll(p):
        E = [follow_values(plan.T, plan.E, [reported(m, s) for m in range(1, rolls + 1)])[1][k] for s in both]
        for i in L.SUBKEEPS[hand, : L.N_SUBKEEPS[hand]]:
            if i != L.FULL + hand:  # holding all the dice is not a roll
                keeps[L.MULTISETS[int(i)]] = (float(E[0][i]), float(E[1][i]))
    announces: dict[int, tuple[float, float]] = {}
    for a in plan.announce if k == 1 and plan.V_announce is not None else ():
        terminal, stages = plan.announced(a, model.table)
        V = [follow_values(terminal, stages, [entry(a, m, s) for m in range(1, rolls + 1)])[0][1] for s in both]
        announces[a] = (float(V[0][hand]), float(V[1][hand]))

    def struck(box: int) -> tuple[float, float]:
        return float(chances(box, 0, False)[0]), float(chances(box, 0, True)[0])

    return LastTurn(keeps, boxes, announces, struck)
