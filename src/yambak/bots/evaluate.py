"""An estimate of a sheet's final total, and of what filling one box changes in it.

For every column and row the model holds a distribution D[c][r] of the value the
box gets written with (fitted to self-play games of the strong bot, see
`fit.py`; an analytic "chase" distribution where nothing was fitted). From it:

* a plain open box is worth its mean ("par");
* a column's multiplier (Triple Yahtzee's x2, x3) scales everything its boxes add: value, bonus, pairs;
* the upper bonus is worth bonus x P(upper sum so far + the open upper boxes'
  values reach the threshold), the open boxes' values drawn independently
  from their D (a convolution, tabulated per set of open upper rows);
* a related pair (max/min, plus/min) is worth the expectation of the pair's
  score over the open boxes' D: both 0 when max <= min (`max_gt_min`), the
  second entry 0 when it breaks min < max (`min_lt_max_at_entry`); Yamb's
  minimax adds (E max - E min) x E ones.

`Model.box_gain(sheet, box)` returns, for every value w the box could be written
with, the change of the estimated final total; a turn's terminal values are
that array gathered at the points each hand writes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import Sheet
from ..engine.scoresheet import column_scores, joker_boxes
from ..rules import Ruleset, row_score
from ..solver import dice as D
from ._widget import best_keep, hand_dice, keep_transition, turn_stages

__all__ = [
    "MODEL_VERSION",
    "Model",
    "W",
    "bonus_steps",
    "build_model",
    "fingerprint",
    "joker_hands",
    "prior_distributions",
]

MODEL_VERSION = 1
W = 160  # written values are 0..W-1 (Yamb's yam tops out at 80)


def score_table(rules: Ruleset) -> np.ndarray:
    """(n_rows, rolls + 1, hands): points each hand writes in each row after roll m (index 0 unused; 252
    hands of five dice, 462 of six)."""
    hands = hand_dice(rules.dice)
    out = np.zeros((rules.n_rows, rules.rolls_per_turn + 1, len(hands)), dtype=np.int64)
    for i, row in enumerate(rules.rows):
        for m in range(1, rules.rolls_per_turn + 1):
            out[i, m] = [row_score(row, h, m) for h in hands]
    return np.clip(out, 0, W - 1)  # the model's values: 0..W-1 (a custom ruleset may write more, or less)


def _pair_rows(rules: Ruleset) -> dict[int, tuple[str, int, int, int]]:
    """row -> (relation kind, high row, low row, factor row or -1) for rows inside a relation."""
    out: dict[int, tuple[str, int, int, int]] = {}
    for rel in rules.relations:
        hi, lo = rules.row_index[rel.high], rules.row_index[rel.low]
        f = rules.row_index[rel.factor] if rel.factor else -1
        for r in (hi, lo) + ((f,) if f >= 0 else ()):
            out[r] = (rel.kind, hi, lo, f)
    return out


def chase_distribution(rules: Ruleset, table: np.ndarray, row: int, rolls: int | None, sign: int) -> np.ndarray:
    """Distribution of the value written in `row` by a player who plays the turn for that row
    alone (maximising sign x value), with the column's roll restriction: the prior for D."""
    R = rules.rolls_per_turn
    n_hands = table.shape[2]
    objective = [
        (sign * table[row, m].astype(float)) if rolls is None or rolls == m else np.full(n_hands, -np.inf)
        for m in range(1, R + 1)
    ]
    _, keeps = turn_stages(objective)
    trans = keep_transition(rules.dice)
    p = D.lattice(rules.dice).ROLL_PROB.copy()
    dist = np.zeros(W)
    for m in range(1, R + 1):
        if m < R:
            go_value, keep = best_keep(keeps[m])
            stop = objective[m - 1] >= go_value
        else:
            stop = np.ones(n_hands, dtype=bool)
            keep = np.zeros(n_hands, dtype=np.int64)
        np.add.at(dist, table[row, m][stop], p[stop])
        if m < R:
            go = ~stop
            p = (p[go][:, None] * trans[keep[go]]).sum(axis=0)
    normed: np.ndarray = dist / dist.sum()
    return normed


@dataclass(eq=False)
class Model:
    rules: Ruleset
    table: np.ndarray  # score_table
    dist: np.ndarray  # (n_cols, n_rows, W) written-value distributions
    mean: np.ndarray  # (n_cols, n_rows)
    var: np.ndarray  # (n_cols, n_rows)
    plain: np.ndarray  # (n_rows,) bool: the row's own written value is its score
    upper_rows: list[int]
    surv: list[np.ndarray]  # per column: (2**n_upper, W) P(sum of the open upper rows >= t)
    pairs: dict[int, tuple[str, int, int, int]]
    source: str = "prior"  # prior | fitted (shipped with the package or cached after a fit)
    # The learned part L(sheet) = sum over open boxes i of (a_i + b_i T + 1/2 sum over open j of C_ij)
    # + joker x T x [yam written non-zero], T = the fraction of the sheet still open (see the module docstring).
    a: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (n_boxes,)
    b: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (n_boxes,)
    C: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))  # (n_boxes, n_boxes) symmetric, zero diagonal
    joker: float = 0.0
    bonus_scale: float = 0.0  # the upper bonus chance's term is (1 + bonus_scale) x bonus x P
    saved: float = 0.0  # save_rolls: what one saved roll is worth, times T (learned)
    d: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (n_boxes,) open upper box x its column's gap
    e: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (n_boxes,) open box x T squared
    # calibration[k]: what play adds, on average, to `estimate` of a sheet with k boxes open (fitted after the
    # value iteration, from the bot's own games). Every choice of a turn ends in a sheet with one box
    # fewer, so the term moves no decision; it makes the figures shown (expected final scores, win
    # chances) agree with how the bot plays.
    calibration: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (n_boxes + 1,) or empty
    fingerprint: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    cache: dict[Any, Any] = field(default_factory=dict)
    gains: dict[Any, np.ndarray] = field(default_factory=dict)  # box_gain per (sheet, box)

    # -- the learned part --------------------------------------------------------------
    def _open(self, sheet: Sheet) -> np.ndarray:
        return np.fromiter((v is None for v in sheet.written), dtype=float, count=len(sheet.written))

    def _yam_box(self) -> int:
        joker = self.rules.joker
        return self.rules.box_index(self.rules.columns[0].id, joker.row) if joker is not None else -1

    def par(self, sheet: Sheet) -> np.ndarray:
        """(n_boxes,) what filling each open box takes from the learned part L (the box's "par", where
        the prior has the mean of its D), the time shift for every other open box included."""
        key = ("par", sheet.written)
        hit: np.ndarray | None = self.cache.get(key)
        if hit is not None:
            return hit
        o = self._open(sheet)
        n = len(o)
        t = o.sum() / n
        others_b = float(self.b @ o) - self.b * o  # the other open boxes' time terms, each losing 1/n
        others_e = float(self.e @ o) - self.e * o
        hit = self.a + self.b * t + self.e * t * t + self.C @ o + others_b / n + self.d * self.gaps(sheet)
        hit = hit + others_e * (t * t - (t - 1.0 / n) ** 2)
        y = self._yam_box()
        if self.joker and y >= 0 and sheet.written[y] is not None and sheet.entry_score(y):
            hit = hit + self.joker / n  # one turn less to roll a further yam
        self.cache[key] = hit
        return hit

    def learned(self, sheet: Sheet) -> np.ndarray:
        """(n_boxes,) each open box's share of L (0 for filled boxes); L is their sum plus the joker term."""
        o = self._open(sheet)
        t = o.sum() / len(o)
        shares: np.ndarray = o * (self.a + self.b * t + self.e * t * t + 0.5 * (self.C @ o) + self.d * self.gaps(sheet))
        return shares

    @property
    def upper_mask(self) -> np.ndarray:
        """(n_boxes,) 1.0 for the upper boxes of a sheet with an upper bonus (where a gap term lives)."""
        out = np.zeros(self.rules.n_boxes)
        if self.rules.upper_bonus is not None:
            n = self.rules.n_rows
            for c in range(len(self.rules.columns)):
                for r in self.upper_rows:
                    out[c * n + r] = 1.0
        return out

    def _gap(self, s: int | np.ndarray) -> np.ndarray:
        ub = self.rules.upper_bonus
        if ub is None or ub.threshold <= 0:
            return np.zeros(np.shape(s))
        missing: np.ndarray = np.clip(ub.threshold - np.asarray(s, dtype=float), 0.0, ub.threshold) / ub.threshold
        return missing

    def gaps(self, sheet: Sheet) -> np.ndarray:
        """(n_boxes,) for each upper box, how far its column is from the upper bonus, 0..1 (0 elsewhere)."""
        key = ("gaps", sheet.written)
        hit: np.ndarray | None = self.cache.get(key)
        if hit is not None:
            return hit
        n = self.rules.n_rows
        out = np.zeros(self.rules.n_boxes)
        if self.rules.upper_bonus is not None and self.upper_rows:
            for c in range(len(self.rules.columns)):
                s, _ = self._upper_state(self._col(sheet, c))
                gap = float(self._gap(s))
                for r in self.upper_rows:
                    out[c * n + r] = gap
        self.cache[key] = out
        return out

    def bonus_feature(self, sheet: Sheet) -> float:
        """Sum over columns of bonus x P(reaching the bonus) for columns not there yet (bonus_scale's feature;
        a stepped bonus: each step's increase x P(reaching its threshold))."""
        if self.rules.upper_bonus is None or not self.upper_rows:
            return 0.0
        out = 0.0
        for c in range(len(self.rules.columns)):
            s, mask = self._upper_state(self._col(sheet, c))
            for threshold, more in bonus_steps(self.rules):
                if s < threshold:
                    t = threshold - s
                    out += more * self.rules.columns[c].multiplier * (float(self.surv[c][mask, t]) if t < W else 0.0)
        return out

    def joker_term(self, sheet: Sheet) -> float:
        y = self._yam_box()
        if not self.joker or y < 0 or sheet.written[y] is None or not sheet.entry_score(y):
            return 0.0
        return self.joker * sheet.written.count(None) / len(sheet.written)

    def saved_term(self, sheet: Sheet) -> float:
        """Saved rolls (save_rolls): each worth `saved` x T, T the fraction of the sheet still open."""
        if not sheet.saved:
            return 0.0
        return self.saved * sheet.saved * sheet.written.count(None) / len(sheet.written)

    def saved_change(self, sheet: Sheet, roll: int) -> float:
        """What ending this turn after roll `roll` does to the saved rolls' term (0 unless save_rolls)."""
        if not self.rules.save_rolls or not self.saved:
            return 0.0
        n = len(sheet.written)
        after = (sheet.saved + self.rules.rolls_per_turn - roll) * (sheet.written.count(None) - 1) / n
        return self.saved * after - self.saved_term(sheet)

    def estimate(self, sheet: Sheet) -> float:
        """The model's own final total of a sheet (what the fit's Bellman targets are about)."""
        cols = len(self.rules.columns)
        out = sum(self.column_estimate(sheet, c)[0] for c in range(cols)) + sheet.extra_bonus
        return out + self.joker_term(sheet) + self.saved_term(sheet)

    def offset(self, open_boxes: int) -> float:
        """The calibration of a sheet with this many boxes open (0 without one)."""
        return float(self.calibration[open_boxes]) if len(self.calibration) else 0.0

    def value(self, sheet: Sheet) -> float:
        """The expected final total of a sheet under the bot's play: the estimate, calibrated."""
        return self.estimate(sheet) + self.offset(sheet.written.count(None))

    # -- the column's state ------------------------------------------------------------
    def _col(self, sheet: Sheet, c: int) -> list[int | None]:
        n = self.rules.n_rows
        return [sheet.entry_score(c * n + r) for r in range(n)]

    def _upper_state(self, col: list[int | None]) -> tuple[int, int]:
        s = mask = 0
        for j, r in enumerate(self.upper_rows):
            if col[r] is None:
                mask |= 1 << j
            else:
                s += col[r]  # type: ignore[operator]
        return s, mask

    def box_gain(self, sheet: Sheet, box: int) -> np.ndarray:
        """(W,) change of the estimated final total when `box` is written with w = 0..W-1 (kept per sheet:
        a turn's plan and the coach's figures ask for the same boxes)."""
        key = (sheet.written, sheet.voided, box)
        hit = self.gains.get(key)
        if hit is None:
            if len(self.gains) > 2048:
                self.gains.clear()
            hit = self.gains[key] = self._box_gain(sheet, box)
        return hit

    def _box_gain(self, sheet: Sheet, box: int) -> np.ndarray:
        c, r = divmod(box, self.rules.n_rows)
        col = self._col(sheet, c)
        w = np.arange(W, dtype=float)
        times = float(self.rules.columns[c].multiplier)  # the rules' own arithmetic counts this many times
        gain = times * w if self.plain[r] else np.zeros(W)
        gain -= self.par(sheet)[box]
        if self.joker and box == self._yam_box():
            n_open = sheet.written.count(None)
            gain += np.where(w > 0, self.joker * (n_open - 1) / len(sheet.written), 0.0)
        ub = self.rules.upper_bonus
        if ub is not None and r in self.upper_rows:
            s, mask = self._upper_state(col)
            j = self.upper_rows.index(r)
            # P(open upper values >= t); a custom threshold may lie beyond the model's W values: 0 there
            surv = np.pad(self.surv[c], ((0, 0), (0, 1)))
            for threshold, more in bonus_steps(self.rules):  # one step (the usual bonus) or several
                before = surv[mask, min(max(threshold - s, 0), W)]
                after = surv[mask & ~(1 << j), np.clip(threshold - s - np.arange(W), 0, W)]
                if s < threshold:  # the learned scale applies to the chance, not to a bonus won
                    k = 1.0 + self.bonus_scale
                    reach = threshold - s - np.arange(W) <= 0
                    gain += times * more * np.where(reach, 1.0 - k * before, k * (after - before))
            # the other open upper boxes' gap terms move with the upper sum
            n = self.rules.n_rows
            others = sum(float(self.d[c * n + q]) for q in self.upper_rows if q != r and col[q] is None)
            if others:
                gain += others * (self._gap(s + np.arange(W)) - self._gap(s))
        if r in self.pairs:
            gain += times * self._pair_gain(col, c, r, w)
        return gain

    def _known_or_mean(self, col: list[int | None], c: int, r: int) -> float:
        v = col[r]
        return float(v) if v is not None else float(self.mean[c, r])

    def _pair_gain(self, col: list[int | None], c: int, r: int, w: np.ndarray) -> np.ndarray:
        kind, hi, lo, f = self.pairs[r]
        if kind == "minimax":
            gain: np.ndarray
            if r == f:
                gain = (self._known_or_mean(col, c, hi) - self._known_or_mean(col, c, lo)) * (w - self.mean[c, r])
            else:
                sign = 1.0 if r == hi else -1.0
                gain = sign * (w - self.mean[c, r]) * self._known_or_mean(col, c, f)
            return gain
        after = self._pair_after(col, c, r)
        return after - float(self.dist[c, r] @ after)

    def _pair_after(self, col: list[int | None], c: int, r: int) -> np.ndarray:
        """(W,) expected score of a max/min pair once row r is written with w (partner known or open)."""
        kind, hi, lo, _ = self.pairs[r]
        partner = lo if r == hi else hi
        x = col[partner]
        w = np.arange(W, dtype=float)
        if x is not None:
            ok = (w > x) if r == hi else (w < x)
            if kind == "max_gt_min":
                return np.where(ok, w + x, 0.0)
            # min_lt_max_at_entry: the new entry alone is voided; a 0 partner imposes no bound
            return x + np.where(ok | (x == 0), w, 0.0)
        key = ("pair-open", c, r)
        hit: np.ndarray | None = self.cache.get(key)
        if hit is None:
            pd = self.dist[c, partner]
            ok2 = (w[:, None] > w[None, :]) if r == hi else (w[:, None] < w[None, :])
            if kind == "max_gt_min":
                hit = (np.where(ok2, w[:, None] + w[None, :], 0.0) * pd[None, :]).sum(axis=1)
            else:  # the partner comes second: voided when it breaks the order (unless w is 0)
                ok2 = ok2 | (w[:, None] == 0)
                hit = w + (np.where(ok2, w[None, :], 0.0) * pd[None, :]).sum(axis=1)
            self.cache[key] = hit
        return hit

    def column_estimate(self, sheet: Sheet, c: int) -> tuple[float, float]:
        """(estimated final total, variance of what is still open) of column c."""
        key = ("col", sheet.written, sheet.voided, c)
        hit: tuple[float, float] | None = self.cache.get(key)
        if hit is not None:
            return hit
        rules = self.rules
        col = self._col(sheet, c)
        total = float(column_scores(rules, sheet)[c].total)
        var = 0.0
        for r, v in enumerate(col):
            if v is None:
                var += float(self.var[c, r])
        n = rules.n_rows
        total += float(self.learned(sheet)[c * n : (c + 1) * n].sum())
        times = rules.columns[c].multiplier  # the rules' own arithmetic below counts this many times
        if rules.upper_bonus is not None and self.upper_rows:
            s, mask = self._upper_state(col)
            for threshold, more in bonus_steps(rules):
                if s < threshold:
                    t = threshold - s
                    total += times * (1.0 + self.bonus_scale) * more * (float(self.surv[c][mask, t]) if t < W else 0.0)
        # Related rows still open: the expected pair value minus what the sheet already counts.
        done: set[tuple[int, int]] = set()
        for kind, hi, lo, f in self.pairs.values():
            if (hi, lo) in done or (col[hi] is not None and col[lo] is not None and (f < 0 or col[f] is not None)):
                continue
            done.add((hi, lo))
            if kind == "minimax":
                total += (
                    times
                    * (self._known_or_mean(col, c, hi) - self._known_or_mean(col, c, lo))
                    * self._known_or_mean(col, c, f)
                )
                continue
            open_row = hi if col[hi] is None else lo
            partner = lo if open_row == hi else hi
            expected = float(self.dist[c, open_row] @ self._pair_after(col, c, open_row))
            total += times * (expected - (col[partner] or 0))
        if len(self.cache) > 4096:
            self.cache = {k: v for k, v in self.cache.items() if k[0] == "pair-open"}
        self.cache[key] = (total, var)
        return total, var


def _survival(dists: list[np.ndarray]) -> np.ndarray:
    n = len(dists)
    out = np.zeros((1 << n, W))
    for mask in range(1 << n):
        d = np.array([1.0])
        for j in range(n):
            if mask >> j & 1:
                d = np.convolve(d, dists[j])
        d = d[:W] if len(d) >= W else np.pad(d, (0, W - len(d)))
        tail = np.cumsum(d[::-1])[::-1]  # P(sum >= t)
        out[mask] = np.minimum(tail, 1.0)
    return out


def _yam_hands(dice: int) -> list[tuple[int, int]]:
    L = D.lattice(dice)
    return [(L.roll_index((v,) * dice), v) for v in range(1, D.FACES + 1)]


def bonus_steps(rules: Ruleset) -> list[tuple[int, int]]:
    """The upper bonus as (threshold, increase) steps: one for the usual bonus; a stepped bonus's steps each
    add what they raise the bonus by (Kismet: 35 at 63, 20 more at 71, 20 more at 78)."""
    ub = rules.upper_bonus
    if ub is None:
        return []
    out, before = [], 0
    for threshold, points in ub.all_steps:
        out.append((threshold, points - before))
        before = points
    return out


def joker_hands(rules: Ruleset, sheet: Sheet, boxes: list[int], m: int) -> list[tuple[int, list[tuple[int, int, int]]]]:
    """The joker (docs/rules.md §6, docs/rulesets.md) as the plan foresees it once the yam box is filled:
    for each yam hand, the boxes among `boxes` the engine lets it go to (forced: `joker_boxes`; free or
    none: any), as (box, written value, extra bonus)."""
    if rules.joker is None or not sheet.joker_on(rules):
        return []
    extra = sheet.joker_extra(rules)
    placement = rules.joker.placement
    n = rules.n_rows
    out = []
    for hand, face in _yam_hands(rules.dice):
        dice = (face,) * rules.dice
        targets = joker_boxes(rules, boxes, face) if placement == "forced" else list(boxes)
        scores = placement == "forced" or (placement == "free" and not sheet.face_open(rules, face))
        out.append((hand, [(b, min(row_score(rules.rows[b % n], dice, m, scores), W - 1), extra) for b in targets]))
    return out


def fingerprint(rules: Ruleset) -> str:
    """The model's key: the ruleset's variant key (options and modifiers included; not the duplicate
    modifier, which changes who gets which dice, not what a sheet is worth) and the model's version."""
    parts = (MODEL_VERSION, rules.variant_key(duplicate=False))
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def prior_distributions(rules: Ruleset, table: np.ndarray | None = None) -> np.ndarray:
    """(n_cols, n_rows, W): the analytic "chase" distribution of every box (see `chase_distribution`)."""
    table = score_table(rules) if table is None else table
    lows = {rules.row_index[rel.low] for rel in rules.relations}
    dist = np.zeros((len(rules.columns), rules.n_rows, W))
    chase: dict[tuple[int, int | None], np.ndarray] = {}
    for c, column in enumerate(rules.columns):
        for r in range(rules.n_rows):
            key = (r, column.rolls)
            if key not in chase:
                chase[key] = chase_distribution(rules, table, r, column.rolls, -1 if r in lows else 1)
            dist[c, r] = chase[key]
    return dist


def build_model(rules: Ruleset, params: dict[str, Any] | None = None, source: str | None = None) -> Model:
    """The model from fitted parameters (`dist`, `a`, `b`, `C`, `joker`, `meta`; see `models.py`), or the
    prior where there are none: chase distributions, each box's par its mean, no interactions."""
    table = score_table(rules)
    pairs = _pair_rows(rules)
    n_cols, n_rows = len(rules.columns), rules.n_rows
    plain = np.ones(n_rows, dtype=bool)
    for rel in rules.relations:
        plain[rules.row_index[rel.high]] = False
        plain[rules.row_index[rel.low]] = False
    params = params or {}
    dist = params.get("dist")
    if dist is None:
        dist = prior_distributions(rules, table)
    dist = np.asarray(dist, dtype=float)
    dist = dist / dist.sum(axis=-1, keepdims=True)
    mean = dist @ np.arange(W)
    var = dist @ (np.arange(W) ** 2.0) - mean**2
    upper_rows = [i for i, row in enumerate(rules.rows) if row.is_upper]
    surv = [_survival([dist[c, r] for r in upper_rows]) for c in range(n_cols)] if rules.upper_bonus else []
    n = rules.n_boxes
    times = np.array([c.multiplier for c in rules.columns], dtype=float)[:, None]  # a column's multiplier
    a = np.asarray(params["a"], dtype=float) if "a" in params else (mean * plain[None, :] * times).reshape(n)
    b = np.asarray(params.get("b", np.zeros(n)), dtype=float)
    C = np.asarray(params.get("C", np.zeros((n, n))), dtype=float)
    d = np.asarray(params.get("d", np.zeros(n)), dtype=float)
    e = np.asarray(params.get("e", np.zeros(n)), dtype=float)
    calibration = np.asarray(params.get("calibration", ()), dtype=float)
    if len(calibration) != n + 1:
        calibration = np.zeros(0)
    return Model(
        rules, table, dist, mean, var, plain, upper_rows, surv, pairs,
        source=source or ("fitted" if "a" in params else "prior"),
        a=a, b=b, C=C, d=d, e=e, joker=float(params.get("joker", 0.0)),
        bonus_scale=float(params.get("bonus_scale", 0.0)), calibration=calibration,
        saved=float(params.get("saved", 0.0)),
        fingerprint=fingerprint(rules), meta=dict(params.get("meta", {})),
    )  # fmt: skip
