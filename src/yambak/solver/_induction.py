"""Backward induction over turn-start states, level by level, a batch of states at a time.

The turn widget of a state, on values indexed by multiset (see `dice`):

    roll 3:  V[r]  = best legal box for hand r     (`box_values`)
    keep 2:  E[k]  = mean over d of E[k + d]        (down pass)
    roll 2:  V[r]  = max over keeps k <= r of E[k] (up pass)
    ...      and once more for roll 1, then the first roll's expectation.

Keeping all five dice is the same as scoring now (no ruleset the solver accepts
scores by roll number), so "stop after roll 1" needs no separate case.

The hot path is compiled (`_kernels`); this module keeps the general,
objective-agnostic numpy forms (`box_values`, `best_box_value`,
`last_roll_values`), which the advisor and simulator use for the final box
choice, the solver uses for objectives other than MeanScore, and the tests use
as the oracle of the kernels.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import dice as D
from ._layout import SolverRules
from .objective import MeanScore, Objective

__all__ = ["box_values", "best_box_value", "last_roll_values", "keep_values", "solve_table", "CHUNK", "NUMPY_STATES"]

CHUNK = 1024  # states per batch handed to a thread


def box_values(
    sr: SolverRules,
    table: np.ndarray,
    objective: Objective,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    roll: np.ndarray,
    m: int | None = None,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield (row, points, value of filling that row) for every row; value -inf where it may not be filled.

    `boxes`, `upper`, `yam` describe turn-start states and `roll` the final hand
    (roll index); all four broadcast together to a shape B. `points` (shape B) is
    what the entry adds to the total (upper bonus and joker bonus included) and
    each value has shape B + (width,). Only the open rows the column's order allows may be filled
    (`SolverRules.allowed`). The joker of docs/rules.md §6 restricts the legal rows
    and changes the scores when the hand is a yam and the yam box is filled. `m` is the roll
    number the hand was rolled on (the last by default): points by roll number and outright wins
    read it; an entry that wins outright is worth its points and `win_points`, with no future.
    """
    roll = np.asarray(roll)
    m = sr.rolls if m is None else m
    score = sr.score_by_roll[m] if sr.any_byroll else sr.score
    shape = np.broadcast_shapes(np.shape(boxes), np.shape(upper), np.shape(yam), roll.shape)
    neg = -np.inf
    active = None
    forced = sr.joker_placement == 0
    allowed = sr.allowed(boxes)  # the open rows the column's order lets be filled now
    if sr.has_joker:
        face = sr.yam_face[roll]
        active = ((boxes >> sr.yam_row) & 1).astype(bool) & (face > 0)
        row_of_face = np.full(D.FACES + 1, -1, dtype=np.int64)
        for i, f in enumerate(sr.upper_face):
            if f:
                row_of_face[f] = i
        face_row = row_of_face[face]
        face_open = (face_row >= 0) & (((boxes >> np.maximum(face_row, 0)) & 1) == 0)
        # the forced joker chooses among the boxes the order allows (the engine's `joker_boxes`)
        face_next = (face_row >= 0) & (((allowed >> np.maximum(face_row, 0)) & 1) == 1)
        lower_mask = sr.full_mask & ~sr.upper_mask
        lower_open = (allowed & lower_mask) != 0
        extra = sr.joker_bonus * yam * active
    cap = sr.n_upper - 1
    for i in range(sr.n_rows):
        bit = 1 << i
        is_open = np.asarray(allowed & bit) != 0
        nb = boxes | bit
        pts = score[i][roll]
        if sr.upper_face[i]:
            nu = np.minimum(upper + pts, cap)
            pts = pts + sr.bonus_gain(upper, pts)
            ny = yam
        elif i == sr.yam_row:
            ny = (pts > 0).astype(np.int64)
            nu = upper
        else:
            nu, ny = upper, yam
        if i in (sr.rel_high, sr.rel_low):  # the max_gt_min pair: see `_pair_entry`
            nb, pts, value = _pair_entry(sr, table, objective, boxes, upper, yam, i, pts)
            yield i, np.broadcast_to(pts, shape), np.where(is_open[..., None], value, neg)
            continue
        legal = is_open
        if i == sr.needs_row:  # only once the flag row is filled, and 0 unless it scored
            legal = legal & (((boxes >> sr.yam_row) & 1) == 1)
            pts = np.where(yam == 1, pts, 0)
        if active is not None:
            if sr.upper_face[i]:
                ok = (face_row == i) | (~face_next & ~lower_open) if forced else np.ones_like(is_open)
            else:
                ok = ~face_next if forced else np.ones_like(is_open)
                if sr.joker_placement == 0:
                    pts = np.where(active, sr.joker_score[i][roll], pts)
                elif sr.joker_placement == 1:  # free: a joker's value once its face's upper box is filled
                    pts = np.where(active & ~face_open, sr.joker_score[i][roll], pts)
            legal = legal & (~active | ok)
            pts = pts + extra
        value = objective.after_box(pts, table[sr.flat(nb, nu, ny)])
        if sr.wins[i] >= m:  # an outright win: the game ends
            won = objective.after_box(pts + sr.win_points, objective.terminal())
            value = np.where((np.asarray(pts) > 0)[..., None], won, value)
        if sr.strike_any and sr.upper_face[i]:
            # A struck upper box adds nothing to the upper sum; never better under
            # a monotone objective, but cheap to honour exactly.
            struck = objective.after_box(np.zeros((), np.int64), table[sr.flat(nb, upper, yam)])
            pts = np.where((struck > value).any(axis=-1), 0, pts)
            value = np.maximum(value, struck)
        yield i, np.broadcast_to(pts, shape), np.where(legal[..., None], value, neg)


def _pair_entry(
    sr: SolverRules,
    table: np.ndarray,
    objective: Objective,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    i: int,
    written: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(next key, points, value) of filling row i of the max_gt_min pair with `written` points, or struck.

    docs/rules.md §5 with docs/decisions.md: the first box of the pair adds its
    value and the key remembers it; the second adds its own, unless then
    high <= low, when both score 0: the entry takes back the first box's value.
    A struck box (strike_any) is the value 0 in the comparison.
    """
    bit = 1 << i
    high = i == sr.rel_high
    partner = sr.rel_low if high else sr.rel_high
    mask = (boxes & sr.full_mask) | bit
    second = ((boxes >> partner) & 1).astype(bool)
    held = sr.pend_values[np.where(second, boxes >> sr.n_rows, 0)]

    def entry(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        zeroed = (w <= held) if high else (held <= w)
        if sr.rel_at_entry:  # the second entry alone scores 0; a partner that scored 0 imposes no bound
            pts = np.where(second & zeroed & (held > 0), 0, w)
        else:
            pts = np.where(second, np.where(zeroed, -held, w), w)
        nb = np.where(second, mask, mask | (sr.pend_index[w] << sr.n_rows))
        return nb, pts, objective.after_box(pts, table[sr.flat(nb, upper, yam)])

    nb, pts, value = entry(np.asarray(written))
    if sr.strike_any:
        snb, spts, struck = entry(np.zeros_like(np.asarray(written)))
        better = (struck > value).any(axis=-1)
        nb, pts = np.where(better, snb, nb), np.where(better, spts, pts)
        value = np.maximum(value, struck)
    return nb, pts, value


def best_box_value(
    sr: SolverRules,
    table: np.ndarray,
    objective: Objective,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    roll: np.ndarray,
    m: int | None = None,
) -> np.ndarray:
    """Max over legal rows of `box_values` (shape B + (width,))."""
    best = None
    for _, _, value in box_values(sr, table, objective, boxes, upper, yam, roll, m):
        best = value if best is None else np.maximum(best, value, out=best)
    assert best is not None
    return best


_COUNT_OF_FACE = D.COUNTS[D.FULL :].T  # (7, 252): dice of face v in each full hand


def last_roll_values(
    sr: SolverRules, table: np.ndarray, objective: Objective, boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray
) -> np.ndarray:
    """`best_box_value` for every final hand of a batch of states (1-D arrays): shape (252, S, width).

    The solver's hot path. A closed row gets a -inf future instead of a mask; an
    upper row has only six outcomes (how many dice show its face), computed once
    and spread over the 252 hands by a row gather; the joker, which only touches
    the six yams, is patched in afterwards with the general `box_values`.
    """
    if sr.rel_high >= 0 or sr.stepped or sr.needs_row >= 0 or sr.any_byroll or sr.joker_placement or sr.order:
        # the general form covers the relation's pair and the newer rules
        return best_box_value(sr, table, objective, boxes[None], upper[None], yam[None], np.arange(D.N_ROLLS)[:, None])
    size, width = len(boxes), objective.width
    best = np.full((D.N_ROLLS, size, width), -np.inf)
    cap = sr.n_upper - 1
    for i in range(sr.n_rows):
        bit = 1 << i
        closed = (boxes & bit) != 0
        nb = boxes | bit
        face = int(sr.upper_face[i])
        if face:
            gain = face * np.arange(D.DICE + 1)[:, None]  # (6, 1)
            nu = np.minimum(upper + gain, cap)
            pts = gain
            if sr.threshold:
                pts = gain + sr.bonus * ((upper < sr.threshold) & (upper + gain >= sr.threshold))
            fut = table[sr.flat(nb, nu, yam)]
            fut[:, closed] = -np.inf
            six = objective.after_box(pts, fut)
            if sr.strike_any:
                struck = table[sr.flat(nb, upper, yam)]
                struck[closed] = -np.inf
                np.maximum(six, objective.after_box(np.zeros((), np.int64), struck)[None], out=six)
            np.maximum(best, six[_COUNT_OF_FACE[face]], out=best)
        elif i == sr.yam_row:
            pts = sr.score[i]
            fut = table[sr.flat(nb[None, :], upper[None, :], np.arange(2)[:, None])]  # (2, S, width)
            fut[:, closed] = -np.inf
            np.maximum(best, objective.after_box(pts[:, None], fut[(pts > 0).astype(np.int64)]), out=best)
        else:
            fut = table[sr.flat(nb, upper, yam)]
            fut[closed] = -np.inf
            np.maximum(best, objective.after_box(sr.score[i][:, None], fut[None]), out=best)
    if sr.n_yam == 2:
        sel = np.flatnonzero((boxes >> sr.yam_row) & 1)
        if len(sel):
            yams = np.flatnonzero(sr.yam_face)
            best[np.ix_(yams, sel)] = best_box_value(
                sr, table, objective, boxes[sel][None], upper[sel][None], yam[sel][None], yams[:, None]
            )
    return best


def keep_values(
    sr: SolverRules, table: np.ndarray, states: np.ndarray, threads: int = 1, kernel: bool | None = None
) -> np.ndarray:
    """Keep values of the widget of each state of a MeanScore table: shape (len(states), rolls - 1, 462).

    out[s, j - 1, k] is the expected value, after roll j, of holding multiset k
    and rolling the other dice (see `_kernels.mean_keep_values`): all that a
    keep decision reads. Large batches run compiled and are split over
    `threads` threads; a few states (`kernel` None) or `kernel=False` run in
    numpy, bit for bit the same values without importing numba (0.3 s), which
    is what keeps a one-position `yambak hint` fast.
    """
    if table.shape[1:] != (1,):
        raise ValueError("keep values are built from expected-score (width 1) tables")
    states = np.ascontiguousarray(states, dtype=np.int64)
    if not (kernel if kernel is not None else len(states) > NUMPY_STATES):
        return _numpy_keep_values(sr, table, states)
    from .compiled import kernels

    K = kernels()
    flat, rules = table.reshape(-1), K.rule_args(sr)
    out = np.empty((len(states), max(sr.rolls - 1, 0), len(D.MULTISETS)))
    bounds = np.linspace(0, len(states), max(1, min(threads, len(states) // 256)) + 1).astype(int)

    def run(part: int) -> None:
        lo, hi = bounds[part], bounds[part + 1]
        K.mean_keep_values(flat, states[lo:hi], rules, sr.rolls, out[lo:hi])

    if len(bounds) == 2:
        run(0)
    else:
        with ThreadPoolExecutor(max_workers=len(bounds) - 1) as pool:
            list(pool.map(run, range(len(bounds) - 1)))
    return out


NUMPY_STATES = 4  # up to this many states, `keep_values` runs in numpy


def _numpy_keep_values(sr: SolverRules, table: np.ndarray, states: np.ndarray) -> np.ndarray:
    """`_kernels.mean_keep_values` in numpy: the same additions in the same order, the same maxima."""
    out = np.empty((len(states), max(sr.rolls - 1, 0), len(D.MULTISETS)))
    if not len(states) or sr.rolls < 2:
        return out
    boxes, upper, yam = sr.unflat(states)
    x = np.empty((len(D.MULTISETS), len(states)))
    x[D.FULL :] = last_roll_values(sr, table, MeanScore(), boxes, upper, yam)[..., 0]
    hands = np.arange(D.N_ROLLS)[:, None]
    for j in range(sr.rolls - 1, 0, -1):
        D.down(x)
        if sr.any_byroll:  # the full hand after roll j: stopping there (the kernels' `_byroll_stage`)
            x[D.FULL :] = best_box_value(sr, table, MeanScore(), boxes[None], upper[None], yam[None], hands, j)[..., 0]
        out[:, j - 1, :] = x.T
        if j > 1:
            D.up(x)
    return out


def solve_table(
    sr: SolverRules, objective: Objective, chunk: int = CHUNK, threads: int | None = None
) -> tuple[np.ndarray, int]:
    """The value of every reachable turn-start state, level by level from the last turn back.

    Returns (table of shape (n_states, width), number of reachable states).
    Unreachable entries hold the terminal value and are never read. Batches of
    one level only read the level below, so they run on `threads` threads (the
    compiled kernels release the GIL). MeanScore, the common case, runs wholly
    compiled (`_kernels.mean_turn_starts`); other objectives build the last
    roll with numpy (`last_roll_values`) and run the compiled keep lattice on it.
    """
    from ._layout import UnsupportedRuleset
    from .compiled import kernels

    if sr.rel_high >= 0 and not isinstance(objective, MeanScore):
        # An entry that zeroes the pair takes points back, which a target's "points still needed" cannot hold.
        raise UnsupportedRuleset("relations are solved for the expected score (MeanScore) only")
    if (sr.any_byroll or sr.needs_row >= 0 or sr.stepped or sr.joker_placement) and not isinstance(
        objective, MeanScore
    ):
        raise UnsupportedRuleset("these rules are solved for the expected score (MeanScore) only")
    table = np.empty((sr.n_states, objective.width))
    table[:] = objective.terminal()
    count = len(sr.level_states(sr.n_rows))
    K = kernels()  # numba: 0.3 s
    rules = K.rule_args(sr)
    flat = table.reshape(-1)  # a view: the mean kernel writes the table in place

    def run(idx: np.ndarray) -> None:
        if isinstance(objective, MeanScore):
            K.mean_turn_starts(flat, idx, rules, sr.rolls)
            return
        last = last_roll_values(sr, table, objective, *sr.unflat(idx))
        table[idx] = K.turn_starts(last.reshape(D.N_ROLLS, -1), sr.rolls).reshape(len(idx), objective.width)

    workers = threads or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for n_filled in range(sr.n_rows - 1, -1, -1):
            states = sr.level_states(n_filled)
            count += len(states)
            batches = [states[s : s + chunk] for s in range(0, len(states), chunk)]
            for _ in pool.map(run, batches):
                pass
    return table, count
