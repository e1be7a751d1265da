"""Backward induction over turn-start states, a whole batch of states per array operation.

The turn widget for a batch of S states works on arrays shaped (multiset, S, width):

    roll 3:  V[r]  = best legal box for hand r     (`box_values`, one pass per row)
    keep 2:  E[k]  = mean over d of E[k + d]        (down pass, `_down`)
    roll 2:  V[r]  = max over keeps k <= r of E[k] (up pass, `_up`)
    ...      and once more for roll 1, then the first roll's expectation.

Keeping all five dice is the same as scoring now (no ruleset the solver accepts
scores by roll number), so "stop after roll 1" needs no separate case.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _dice as D
from ._layout import SolverRules
from .objective import Objective

__all__ = ["box_values", "best_box_value", "last_roll_values", "keep_stages", "solve_table", "CHUNK"]

CHUNK = 1024  # states per batch: amortises numpy calls, stays near cache size

_ADD = [D.ADD[D.LEVELS[n]] for n in range(D.DICE + 1)]
_REMOVE = [D.REMOVE[D.LEVELS[n]] for n in range(D.DICE + 1)]


def box_values(
    sr: SolverRules, table: np.ndarray, objective: Objective,
    boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray, roll: np.ndarray,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (row, points, value of filling that row) for every row; value -inf where it may not be filled.

    `boxes`, `upper`, `yam` describe turn-start states and `roll` the final hand
    (roll index); all four broadcast together to a shape B. `points` (shape B) is
    what the entry adds to the total (upper bonus and joker bonus included) and
    each value has shape B + (width,). The joker of RULES.md section 6 restricts the legal rows
    and changes the scores when the hand is a yam and the yam box is filled.
    """
    roll = np.asarray(roll)
    shape = np.broadcast_shapes(np.shape(boxes), np.shape(upper), np.shape(yam), roll.shape)
    neg = -np.inf
    active = None
    if sr.n_yam == 2:
        face = sr.yam_face[roll]
        active = ((boxes >> sr.yam_row) & 1).astype(bool) & (face > 0)
        row_of_face = np.full(D.FACES + 1, -1, dtype=np.int64)
        for i, f in enumerate(sr.upper_face):
            if f:
                row_of_face[f] = i
        face_row = row_of_face[face]
        face_open = (face_row >= 0) & (((boxes >> np.maximum(face_row, 0)) & 1) == 0)
        lower_mask = sr.full_mask & ~sr.upper_mask
        lower_open = (boxes & lower_mask) != lower_mask
        extra = sr.joker_bonus * yam * active
    cap = sr.n_upper - 1
    for i in range(sr.n_rows):
        bit = 1 << i
        is_open = (boxes & bit) == 0
        nb = boxes | bit
        pts = sr.score[i][roll]
        if sr.upper_face[i]:
            nu = np.minimum(upper + pts, cap)
            if sr.threshold:
                pts = pts + sr.bonus * ((upper < sr.threshold) & (upper + pts >= sr.threshold))
            ny = yam
        elif i == sr.yam_row:
            ny = (pts > 0).astype(np.int64)
            nu = upper
        else:
            nu, ny = upper, yam
        legal = is_open
        if active is not None:
            if sr.upper_face[i]:
                ok = (face_row == i) | (~face_open & ~lower_open)
            else:
                ok = ~face_open
                pts = np.where(active, sr.joker_score[i][roll], pts)
            legal = legal & (~active | ok)
            pts = pts + extra
        value = objective.after_box(pts, table[sr.flat(nb, nu, ny)])
        if sr.strike_any and sr.upper_face[i]:
            # A struck upper box adds nothing to the upper sum; never better under
            # a monotone objective, but cheap to honour exactly.
            struck = objective.after_box(np.zeros((), np.int64), table[sr.flat(nb, upper, yam)])
            pts = np.where((struck > value).any(axis=-1), 0, pts)
            value = np.maximum(value, struck)
        yield i, np.broadcast_to(pts, shape), np.where(legal[..., None], value, neg)


def best_box_value(sr: SolverRules, table: np.ndarray, objective: Objective,
                   boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray, roll: np.ndarray) -> np.ndarray:
    """Max over legal rows of `box_values` (shape B + (width,))."""
    best = None
    for _, _, value in box_values(sr, table, objective, boxes, upper, yam, roll):
        best = value if best is None else np.maximum(best, value, out=best)
    assert best is not None
    return best


_COUNT_OF_FACE = D.COUNTS[D.FULL:].T  # (7, 252): dice of face v in each full hand


def last_roll_values(sr: SolverRules, table: np.ndarray, objective: Objective,
                     boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray) -> np.ndarray:
    """`best_box_value` for every final hand of a batch of states (1-D arrays): shape (252, S, width).

    The solver's hot path. A closed row gets a -inf future instead of a mask; an
    upper row has only six outcomes (how many dice show its face), computed once
    and spread over the 252 hands by a row gather; the joker, which only touches
    the six yams, is patched in afterwards with the general `box_values`.
    """
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
                sr, table, objective, boxes[sel][None], upper[sel][None], yam[sel][None], yams[:, None])
    return best


def _down(x: np.ndarray) -> None:
    """Fill keep values (levels 4..0) from full hands: E[k] = mean_d E[k + d], in place.

    One contiguous-row gather per face: bigger fused gathers spill out of cache.
    """
    for n in range(D.DICE - 1, -1, -1):
        add = _ADD[n]
        acc = x[add[:, 0]]
        for j in range(1, D.FACES):
            acc += x[add[:, j]]
        acc *= 1.0 / D.FACES
        x[D.LEVELS[n]] = acc


def _up(x: np.ndarray) -> None:
    """Turn keep values into best-keep values: M[k] = max(E[k], M[k - d] for d in k), in place."""
    for n in range(1, D.DICE + 1):
        level = x[D.LEVELS[n]]  # a view: updated in place
        remove = _REMOVE[n]
        for j in range(D.DICE):
            np.maximum(level, x[remove[:, j]], out=level)


def keep_stages(last: np.ndarray, rolls: int) -> list[np.ndarray]:
    """From the values of the final hands (252, ...) build every stage of the turn.

    Returns `stages` with stages[j] (j = 1..rolls-1) the (462, ...) keep values
    after roll j: stages[j][k] is the expected value of holding k and rolling the
    other dice (for a full hand k: of going on with exactly that hand, which never
    beats the best of stopping and a proper keep, see RULES.md §1 on all-held rolls).
    stages[0] is the (462, ...) array whose entry 0 is the turn-start value.
    """
    x = np.empty((len(D.MULTISETS),) + last.shape[1:])
    x[D.FULL:] = last
    stages: list[np.ndarray] = [x] * rolls
    for j in range(rolls - 1, 0, -1):
        _down(x)
        stages[j] = x.copy()
        _up(x)
    _down(x)
    stages[0] = x
    return stages


def _turn_start(last: np.ndarray, rolls: int) -> np.ndarray:
    """Turn-start value only (the solver's inner loop: no stage copies)."""
    x = np.empty((len(D.MULTISETS),) + last.shape[1:])
    x[D.FULL:] = last
    for _ in range(rolls - 1):
        _down(x)
        _up(x)
    _down(x)
    return x[0]


def solve_table(sr: SolverRules, objective: Objective, chunk: int = CHUNK,
                threads: int | None = None) -> tuple[np.ndarray, int]:
    """The value of every reachable turn-start state, level by level from the last turn back.

    Returns (table of shape (n_states, width), number of reachable states).
    Unreachable entries hold the terminal value and are never read. Batches of
    one level only read the level below, so they run on `threads` threads
    (numpy releases the GIL inside its array loops).
    """
    table = np.empty((sr.n_states, objective.width))
    table[:] = objective.terminal()
    count = len(sr.level_states(sr.n_rows))

    def run(idx: np.ndarray) -> None:
        last = last_roll_values(sr, table, objective, *sr.unflat(idx))
        table[idx] = _turn_start(last, sr.rolls)

    workers = threads or min(4, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for n_filled in range(sr.n_rows - 1, -1, -1):
            states = sr.level_states(n_filled)
            count += len(states)
            batches = [states[s:s + chunk] for s in range(0, len(states), chunk)]
            for _ in pool.map(run, batches):
                pass
    return table, count
