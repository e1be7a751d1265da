"""Compiled (numba) kernels for the turn widget: the solver's, the simulator's and the advisor's hot path.

The numpy formulation (`_induction.last_roll_values` plus whole-batch lattice
passes) streams (462, 1024) arrays through memory a hundred times per batch and
spends as long in numpy call overhead as in arithmetic. Here a batch is cut
into blocks of `LANES` states whose whole widget, (462, LANES) float64, stays in
cache, and every inner loop runs over the lanes (one row of the widget), so
LLVM vectorises it. Blocks of 8 or 16 lanes fit L1 but are slower: LLVM unrolls
such short loops completely and then cannot vectorise them, since it cannot
prove the rows of one array distinct; 64 lanes (236 KiB, in L2) vectorise.

Results are bit-identical to the numpy formulation: every value is the same
single addition of points to a table entry, maxima are exact, and each keep's
mean adds its six terms in the same order and then multiplies by 1/6, exactly
as `numpy` did (no fastmath, which could reassociate).

All kernels release the GIL (callers run them on threads) and are cached on
disk (`cache=True`), so the few seconds of compilation are paid once per
machine, not once per process.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import dice as D
from ._layout import SolverRules

__all__ = [
    "LANES",
    "mean_keep_values",
    "mean_turn_starts",
    "optimal_turns",
    "position_values",
    "rule_args",
    "target_turn_starts",
    "turn_starts",
]

LANES = 64  # states per block (see the module docstring)

_N = len(D.MULTISETS)
_FULL = D.FULL
_N_ROLLS = D.N_ROLLS
_LEVEL_START = np.array([D.LEVELS[n].start for n in range(D.DICE + 1)] + [_N], dtype=np.int64)
_ADD = D.ADD
_REMOVE = D.REMOVE
# Distinct faces of multiset k: REMOVE[k, :_N_REMOVE[k]] are its distinct one-die-fewer subsets.
_N_REMOVE = np.array([len(set(m)) for m in D.MULTISETS], dtype=np.int64)
_COUNTS = D.COUNTS
_SIXTH = 1.0 / D.FACES  # the numpy passes multiplied by this double; so do we

# The ruleset's fields as the kernels take them (`rule_args`).
RuleArgs = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
    int, int, int, int, int, int, int, bool, int, int, int,
    np.ndarray, np.ndarray,
    int, bool, int, bool, np.ndarray, np.ndarray, int, np.ndarray, float, bool, int, int,
]  # fmt: skip


def rule_args(sr: SolverRules) -> RuleArgs:
    """The ruleset fields the kernels read, as a tuple numba can take.

    (score, joker_score, upper_face, yam_face, row_of_face, threshold, bonus,
    n_upper, n_yam, yam_row, joker_bonus, lower_mask, strike_any, rel_high,
    rel_low, n_rows, pend_values, pend_index, joker_placement, has_joker,
    needs_row, stepped, bonus_at, score_by_roll, byroll_mask, wins, win_points,
    rel_at_entry, order, start_mask), as in `SolverRules` (byroll_mask: the by-roll rows as bits);
    row_of_face[f] is the upper row of face f (-1: none) and lower_mask the
    bits of the rows that are not upper rows.
    """
    row_of_face = np.full(D.FACES + 1, -1, dtype=np.int64)
    for i, f in enumerate(sr.upper_face):
        if f:
            row_of_face[f] = i
    lower_mask = sr.full_mask & ~sr.upper_mask
    return (
        np.ascontiguousarray(sr.score, dtype=np.int64),
        np.ascontiguousarray(sr.joker_score, dtype=np.int64),
        np.ascontiguousarray(sr.upper_face, dtype=np.int64),
        np.ascontiguousarray(sr.yam_face, dtype=np.int64),
        row_of_face,
        int(sr.threshold),
        int(sr.bonus),
        int(sr.n_upper),
        int(sr.n_yam),
        int(sr.yam_row),
        int(sr.joker_bonus),
        int(lower_mask),
        bool(sr.strike_any),
        int(sr.rel_high),
        int(sr.rel_low),
        int(sr.n_rows),
        np.ascontiguousarray(sr.pend_values, dtype=np.int64),
        np.ascontiguousarray(sr.pend_index, dtype=np.int64),
        int(sr.joker_placement),
        bool(sr.has_joker),
        int(sr.needs_row),
        bool(sr.stepped),
        np.ascontiguousarray(sr.bonus_at, dtype=np.int64),
        np.ascontiguousarray(sr.score_by_roll, dtype=np.int64),
        int(sum(1 << i for i in range(sr.n_rows) if sr.byroll[i])),
        np.ascontiguousarray(sr.wins, dtype=np.int64),
        float(sr.win_points),
        bool(sr.rel_at_entry),
        int(sr.order),
        int(sr.start_mask),
    )


@njit(cache=True, nogil=True, inline="always")
def _flat(key: int, u: int, y: int, rules: RuleArgs) -> int:
    """`SolverRules.flat` for one state."""
    n_upper, n_yam, hi, lo, n_rows, n_pend = rules[7], rules[8], rules[13], rules[14], rules[15], len(rules[16])
    if hi < 0:
        return (key * n_upper + u) * n_yam + y
    a, b = min(hi, lo), max(hi, lo)
    mask = key & ((1 << n_rows) - 1)
    pend = key >> n_rows
    low_bits = (1 << a) - 1
    mid_bits = ((1 << (b - 1)) - 1) ^ low_bits
    other = (mask & low_bits) | ((mask >> 1) & mid_bits) | ((mask >> 2) & ~((1 << (b - 1)) - 1))
    h, l_ = (mask >> hi) & 1, (mask >> lo) & 1
    if h and l_:
        p = 1 + 2 * n_pend
    elif h:
        p = 1 + pend
    elif l_:
        p = 1 + n_pend + pend
    else:
        p = 0
    return ((other * (2 + 2 * n_pend) + p) * n_upper + u) * n_yam + y


@njit(cache=True, nogil=True, inline="always")
def _shut(key: int, rules: RuleArgs) -> int:
    """The key with every open row the column's order does not allow now marked filled (as
    `SolverRules.allowed`): a row is fillable exactly where this has its bit clear."""
    order = rules[28]
    if order == 0:
        return key
    n_rows = rules[15]
    full = (1 << n_rows) - 1
    mask = key & full
    open_ = full & ~mask
    if order == 4:  # middle: next to the filled block, or the start pair
        if mask == 0:
            allowed = rules[29]
        else:
            high = 1
            while high << 1 <= mask:
                high <<= 1
            allowed = (((mask & -mask) >> 1) | (high << 1)) & open_
    else:
        allowed = 0
        if open_ and order != 2:
            allowed |= open_ & -open_  # the topmost open row
        if open_ and order != 1:
            high = 1
            while high << 1 <= open_:
                high <<= 1
            allowed |= high  # the bottommost open row
    return key | (open_ & ~allowed)


@njit(cache=True, nogil=True, inline="always")
def _unslot(slot: int, rules: RuleArgs) -> int:
    """`SolverRules.unslot` for one state."""
    hi, lo, n_rows, n_pend = rules[13], rules[14], rules[15], len(rules[16])
    if hi < 0:
        return slot
    a, b = min(hi, lo), max(hi, lo)
    width = 2 + 2 * n_pend
    other = slot // width
    p = slot - other * width
    low_bits = (1 << a) - 1
    mid_bits = ((1 << (b - 1)) - 1) ^ low_bits
    mask = (other & low_bits) | ((other & mid_bits) << 1) | ((other >> (b - 1)) << (b + 1))
    if p == 1 + 2 * n_pend:
        return mask | (1 << hi) | (1 << lo)
    if p >= 1 and p <= n_pend:
        return mask | (1 << hi) | ((p - 1) << n_rows)
    if p > n_pend:
        return mask | (1 << lo) | ((p - 1 - n_pend) << n_rows)
    return mask


# ---------------------------------------------------------------------------------------------
# The keep lattice (objective-agnostic: every lane is one independent value component).


@njit(cache=True, nogil=True)
def _down(x: np.ndarray) -> None:
    """Keep values from full-hand values, in place: E[k] = mean over faces d of E[k + d], levels 4..0."""
    for n in range(D.DICE - 1, -1, -1):
        for k in range(_LEVEL_START[n], _LEVEL_START[n + 1]):
            a0, a1, a2, a3, a4, a5 = _ADD[k, 0], _ADD[k, 1], _ADD[k, 2], _ADD[k, 3], _ADD[k, 4], _ADD[k, 5]
            for w in range(LANES):
                acc = x[a0, w]
                acc += x[a1, w]
                acc += x[a2, w]
                acc += x[a3, w]
                acc += x[a4, w]
                acc += x[a5, w]
                x[k, w] = acc * _SIXTH


@njit(cache=True, nogil=True)
def _up(x: np.ndarray) -> None:
    """Best-keep values from keep values, in place: M[k] = max(E[k], M[k - d] for each face d in k).

    A multiset has at most five distinct faces (REMOVE pads by repeating the
    first); one fused pass per keep with a fixed count of rows lets LLVM keep the
    running maximum in registers, so the three cases cover 1-2, 3 and 4-5 faces.
    """
    for n in range(1, D.DICE + 1):
        for k in range(_LEVEL_START[n], _LEVEL_START[n + 1]):
            s0, s1, s2, s3, s4 = _REMOVE[k, 0], _REMOVE[k, 1], _REMOVE[k, 2], _REMOVE[k, 3], _REMOVE[k, 4]
            if _N_REMOVE[k] <= 2:
                for w in range(LANES):
                    x[k, w] = max(max(x[k, w], x[s0, w]), x[s1, w])
            elif _N_REMOVE[k] == 3:
                for w in range(LANES):
                    x[k, w] = max(max(max(x[k, w], x[s0, w]), x[s1, w]), x[s2, w])
            else:
                for w in range(LANES):
                    x[k, w] = max(max(max(max(max(x[k, w], x[s0, w]), x[s1, w]), x[s2, w]), x[s3, w]), x[s4, w])


@njit(cache=True, nogil=True)
def _turn_start(x: np.ndarray, rolls: int) -> None:
    """Full-hand values in x[FULL:] (one block, (462, LANES)) to turn-start values in x[0], in place."""
    for _ in range(rolls - 1):
        _down(x)
        _up(x)
    _down(x)


@njit(cache=True, nogil=True)
def turn_starts(last: np.ndarray, rolls: int) -> np.ndarray:
    """Turn-start values (N,) from the values of the final hands (252, N), any N components.

    For objectives other than MeanScore, whose last roll is built with numpy.
    """
    count = last.shape[1]
    out = np.empty(count)
    x = np.empty((_N, LANES))
    for start in range(0, count, LANES):
        for w in range(LANES):
            for r in range(_N_ROLLS):
                x[_FULL + r, w] = last[r, min(start + w, count - 1)]
        _turn_start(x, rolls)
        for w in range(min(LANES, count - start)):
            out[start + w] = x[0, w]
    return out


# ---------------------------------------------------------------------------------------------
# The last roll under MeanScore (value = points + table entry).


@njit(cache=True, nogil=True)
def _last_roll(
    table: np.ndarray,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    rules: RuleArgs,
    x: np.ndarray,
    m: int,
    mask: int,
    reset: bool,
) -> None:
    """x[FULL + r, w] = best legal box for final hand r in state w after roll m (MeanScore), as
    `best_box_value`, over the rows in the bit `mask` (-1: all), into x as it is unless `reset`.

    Same scheme as the numpy `last_roll_values`: a closed row gets a -inf future,
    an upper row's six outcomes (how many dice show its face) are computed once
    and spread over the hands, rows closed in every lane are skipped, and the
    joker (yam box filled, hand a yam) is recomputed for the six yams.
    """
    upper_face, threshold, bonus, n_upper, yam_row, strike_any = (
        rules[2],
        rules[5],
        rules[6],
        rules[7],
        rules[9],
        rules[12],
    )
    rel_high, rel_low, has_joker, needs_row, stepped, bonus_at = (
        rules[13],
        rules[14],
        rules[19],
        rules[20],
        rules[21],
        rules[22],
    )
    score = rules[23][m]  # the points each hand writes in each row after roll m
    wins, win_points = rules[25], rules[26]
    lanes = x.shape[1]
    cap = n_upper - 1
    neg = -np.inf
    fut = np.empty(lanes)
    fut1 = np.empty(lanes)
    six = np.empty((D.DICE + 1, lanes))
    shut = np.empty(lanes, dtype=np.int64)  # the rows closed to this turn: filled, or not next in order
    for w in range(lanes):
        shut[w] = _shut(boxes[w], rules)
    if reset:
        for r in range(_N_ROLLS):
            for w in range(lanes):
                x[_FULL + r, w] = neg
    for i in range(score.shape[0]):
        if not (mask >> i) & 1:
            continue
        bit = 1 << i
        any_open = False
        for w in range(lanes):
            if shut[w] & bit == 0:
                any_open = True
        if not any_open:
            continue
        face = upper_face[i]
        if face:
            for c in range(D.DICE + 1):
                gain = face * c
                for w in range(lanes):
                    if shut[w] & bit:
                        six[c, w] = neg
                        continue
                    nb, u = boxes[w] | bit, upper[w]
                    pts = gain
                    if stepped:
                        pts += bonus_at[min(u + gain, cap)] - bonus_at[u]
                    elif threshold and u < threshold and u + gain >= threshold:
                        pts += bonus
                    v = table[_flat(nb, min(u + gain, cap), yam[w], rules)] + pts
                    if strike_any:  # a struck upper box adds nothing to the upper sum
                        v = max(v, table[_flat(nb, u, yam[w], rules)] + 0.0)
                    six[c, w] = v
            for r in range(_N_ROLLS):
                c = _COUNTS[_FULL + r, face]
                for w in range(lanes):
                    x[_FULL + r, w] = max(x[_FULL + r, w], six[c, w])
        elif i == rel_high or i == rel_low:
            _pair_row(table, boxes, upper, yam, rules, i, x)
        else:
            is_yam = i == yam_row
            for w in range(lanes):
                if shut[w] & bit or (i == needs_row and not (boxes[w] >> yam_row) & 1):
                    fut[w] = neg  # closed, or waiting for the box it needs
                    fut1[w] = neg
                else:
                    base = _flat(boxes[w] | bit, upper[w], 0, rules)
                    if is_yam:  # the yam flag becomes "this box holds a non-zero value"
                        fut[w] = table[base]
                        fut1[w] = table[base + 1]
                    else:
                        fut[w] = table[base + yam[w]]
            if i == needs_row:  # scores only once the needed box scored (the flag)
                for r in range(_N_ROLLS):
                    pts = score[i, r]
                    for w in range(lanes):
                        x[_FULL + r, w] = max(x[_FULL + r, w], fut[w] + (pts if yam[w] else 0))
            elif wins[i] >= m:  # an entry that scores wins at once: its points and win_points, no future
                for r in range(_N_ROLLS):
                    pts = score[i, r]
                    for w in range(lanes):
                        if fut[w] == neg:
                            continue
                        v = pts + win_points if pts > 0 else fut[w]
                        x[_FULL + r, w] = max(x[_FULL + r, w], v)
            else:
                for r in range(_N_ROLLS):
                    pts = score[i, r]
                    src = fut1 if is_yam and pts > 0 else fut
                    for w in range(lanes):
                        x[_FULL + r, w] = max(x[_FULL + r, w], src[w] + pts)
    if has_joker and mask == -1:
        for w in range(lanes):
            if boxes[w] >> yam_row & 1:
                _joker(table, boxes[w], upper[w], yam[w], rules, x[_FULL:, w])


@njit(cache=True, nogil=True)
def _byroll_stage(
    table: np.ndarray,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    rules: RuleArgs,
    x: np.ndarray,
    base: np.ndarray,
    m: int,
) -> None:
    """x[FULL:] = the best box after roll m: the rows whose points do not depend on the roll (kept in
    `base`), and the by-roll rows (points by roll number, outright wins) at m."""
    for r in range(_N_ROLLS):
        for w in range(x.shape[1]):
            x[_FULL + r, w] = base[r, w]
    _last_roll(table, boxes, upper, yam, rules, x, m, rules[24], False)


@njit(cache=True, nogil=True)
def _byroll_base(
    table: np.ndarray, boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray, rules: RuleArgs, x: np.ndarray, rolls: int
) -> np.ndarray:
    """The rows whose points do not depend on the roll number: their best per hand (252, lanes)."""
    _last_roll(table, boxes, upper, yam, rules, x, rolls, ~rules[24], True)
    return x[_FULL:].copy()


@njit(cache=True, nogil=True)
def _pair_row(
    table: np.ndarray, boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray, rules: RuleArgs, i: int, x: np.ndarray
) -> None:
    """The last-roll values of filling row i of the max_gt_min pair (docs/rules.md §5), merged into x.

    The first box of the pair writes its value (or 0 when struck) and the key
    remembers it; the second writes its value, unless high <= low, when it
    takes back the first box's value instead (both score 0), struck or not.
    As in `box_values`: each entry adds its points to one table entry.
    """
    score, strike_any, rel_high, rel_low, n_rows, pend_values, pend_index = (
        rules[0],
        rules[12],
        rules[13],
        rules[14],
        rules[15],
        rules[16],
        rules[17],
    )
    at_entry = rules[27]  # min_lt_max_at_entry: a second entry breaking the order scores 0 itself
    lanes = x.shape[1]
    n_pend = len(pend_values)
    bit = 1 << i
    partner = rel_low if i == rel_high else rel_high
    high = i == rel_high
    neg = -np.inf
    first = np.empty((n_pend, lanes))  # partner open: future per value written
    second = np.empty(lanes)  # partner filled: future of the completed pair
    held = np.zeros(lanes, dtype=np.int64)  # the partner's value
    kind = np.zeros(lanes, dtype=np.int64)  # 0 closed, 1 first of the pair, 2 second
    struck = np.full(lanes, neg)
    for w in range(lanes):
        b = boxes[w]
        if _shut(b, rules) & bit:
            continue
        mask = (b & ((1 << n_rows) - 1)) | bit
        if b >> partner & 1:
            kind[w] = 2
            held[w] = pend_values[b >> n_rows]
            second[w] = table[_flat(mask, upper[w], yam[w], rules)]
            if strike_any:
                zeroed = (0 <= held[w]) if high else (held[w] <= 0)
                struck[w] = second[w] + (-held[w] if zeroed and not at_entry else 0)
        else:
            kind[w] = 1
            for j in range(n_pend):
                first[j, w] = table[_flat(mask | (j << n_rows), upper[w], yam[w], rules)]
            if strike_any:
                struck[w] = first[pend_index[0], w] + 0
    for r in range(_N_ROLLS):
        pts = score[i, r]
        j = pend_index[pts]
        for w in range(lanes):
            if kind[w] == 1:
                v = first[j, w] + pts
            elif kind[w] == 2:
                zeroed = (pts <= held[w]) if high else (held[w] <= pts)
                if at_entry:  # a partner that scored 0 imposes no bound
                    v = second[w] + (0 if zeroed and held[w] > 0 else pts)
                else:
                    v = second[w] + (-held[w] if zeroed else pts)
            else:
                v = neg
            x[_FULL + r, w] = max(x[_FULL + r, w], max(v, struck[w]))


@njit(cache=True, nogil=True)
def _joker(table: np.ndarray, b: int, u: int, y: int, rules: RuleArgs, last: np.ndarray) -> None:
    """Overwrite the six yam hands of one state whose yam box is filled with their joker value.

    docs/rules.md §6, as in `box_values`: the upper box of the face if open,
    else any open lower box (joker scores), else any open box; +joker_bonus
    while the yam box holds a non-zero value.
    """
    (
        score,
        joker_score,
        upper_face,
        yam_face,
        row_of_face,
        threshold,
        bonus,
        n_upper,
        n_yam,
        yam_row,
        joker_bonus,
        lower_mask,
        strike_any,
    ) = rules[:13]
    placement, stepped, bonus_at = rules[18], rules[21], rules[22]
    forced = placement == 0  # free and none: any open box
    cap = n_upper - 1
    shut = _shut(b, rules)  # the forced joker chooses among the boxes the order allows
    lower_open = (shut & lower_mask) != lower_mask
    extra = joker_bonus * y
    for r in range(_N_ROLLS):
        face = yam_face[r]
        if face == 0:
            continue
        face_row = row_of_face[face]
        face_open = face_row >= 0 and (b >> face_row & 1) == 0
        face_next = face_row >= 0 and (shut >> face_row & 1) == 0
        best = -np.inf
        for i in range(score.shape[0]):
            if shut >> i & 1:
                continue
            nb = b | (1 << i)
            pts = score[i, r]
            nu, ny = u, y
            if upper_face[i]:
                if forced and not (face_row == i or (not face_next and not lower_open)):
                    continue
                nu = min(u + pts, cap)
                if stepped:
                    pts += bonus_at[nu] - bonus_at[u]
                elif threshold and u < threshold and u + pts >= threshold:
                    pts += bonus
            else:
                if forced and face_next:
                    continue
                if i == yam_row:
                    ny = 1 if pts > 0 else 0
                # placement none: a further yam scores as the dice are; free: as a joker only once its
                # face's upper box is filled
                if placement == 0 or (placement == 1 and not face_open):
                    pts = joker_score[i, r]
            value = table[(nb * n_upper + nu) * n_yam + ny] + (pts + extra)
            if strike_any and upper_face[i]:
                value = max(value, table[(nb * n_upper + u) * n_yam + y] + 0.0)
            best = max(best, value)
        last[r] = best


# ---------------------------------------------------------------------------------------------
# Whole widgets for a batch of states, block by block.


@njit(cache=True, nogil=True)
def _load_block(
    states: np.ndarray, start: int, rules: RuleArgs, boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray
) -> int:
    """Unflatten states[start:start + LANES] into the lane arrays (a short tail repeats its last state)."""
    n_upper, n_yam = rules[7], rules[8]
    count = min(LANES, len(states) - start)
    for w in range(LANES):
        s = states[start + min(w, count - 1)]
        rest = s // n_yam
        yam[w] = s - rest * n_yam
        slot = rest // n_upper
        upper[w] = rest - slot * n_upper
        boxes[w] = _unslot(slot, rules)
    return count


@njit(cache=True, nogil=True)
def mean_turn_starts(table: np.ndarray, states: np.ndarray, rules: RuleArgs, rolls: int) -> None:
    """table[s] = turn-start value of each state s (MeanScore), from the entries of states with more boxes filled.

    `table` is the flat (n_states,) table, read and written in place: the solver's inner loop.
    """
    x = np.empty((_N, LANES))
    boxes = np.empty(LANES, dtype=np.int64)
    upper = np.empty(LANES, dtype=np.int64)
    yam = np.empty(LANES, dtype=np.int64)
    byroll = rules[24] != 0
    for start in range(0, len(states), LANES):
        count = _load_block(states, start, rules, boxes, upper, yam)
        if byroll:
            _turn_start_byroll(table, boxes, upper, yam, rules, x, rolls)
        else:
            _last_roll(table, boxes, upper, yam, rules, x, rolls, -1, True)
            _turn_start(x, rolls)
        for w in range(count):
            table[states[start + w]] = x[0, w]


@njit(cache=True, nogil=True)
def _turn_start_byroll(
    table: np.ndarray, boxes: np.ndarray, upper: np.ndarray, yam: np.ndarray, rules: RuleArgs, x: np.ndarray, rolls: int
) -> None:
    """`_last_roll` and `_turn_start` where some rows score by roll number: after each roll m the hand in
    x[FULL + r] is the best box at m (stopping), never the hand carried on (all dice held is no roll)."""
    base = _byroll_base(table, boxes, upper, yam, rules, x, rolls)
    _byroll_stage(table, boxes, upper, yam, rules, x, base, rolls)
    for m in range(rolls - 1, 0, -1):
        _down(x)
        _byroll_stage(table, boxes, upper, yam, rules, x, base, m)
        _up(x)
    _down(x)


@njit(cache=True, nogil=True)
def mean_keep_values(table: np.ndarray, states: np.ndarray, rules: RuleArgs, rolls: int, out: np.ndarray) -> None:
    """Keep values of the widget of each state (MeanScore): out[s, j - 1, k] for rolls j = 1..rolls-1.

    out (len(states), rolls - 1, 462): out[s, j - 1, k] is the expected value,
    after roll j, of holding multiset k and rolling the other dice (for a full
    hand k: of going on with exactly that hand, which never beats the best of
    stopping and a proper keep; docs/rules.md §1 on all-held rolls; where rows
    score by roll number: of stopping after roll j). A keep decision needs nothing
    else, so the turn-start stage is not built.
    """
    x = np.empty((_N, LANES))
    boxes = np.empty(LANES, dtype=np.int64)
    upper = np.empty(LANES, dtype=np.int64)
    yam = np.empty(LANES, dtype=np.int64)
    byroll = rules[24] != 0
    base = np.empty((1, 1))
    for start in range(0, len(states), LANES):
        count = _load_block(states, start, rules, boxes, upper, yam)
        if byroll:
            base = _byroll_base(table, boxes, upper, yam, rules, x, rolls)
            _byroll_stage(table, boxes, upper, yam, rules, x, base, rolls)
        else:
            _last_roll(table, boxes, upper, yam, rules, x, rolls, -1, True)
        for j in range(rolls - 1, 0, -1):
            _down(x)
            if byroll:
                _byroll_stage(table, boxes, upper, yam, rules, x, base, j)
            for w in range(count):
                for k in range(_N):
                    out[start + w, j - 1, k] = x[k, w]
            if j > 1:
                _up(x)


# ---------------------------------------------------------------------------------------------
# The chance to reach a target (`target.py`): one lane per (state, points still needed).


@njit(cache=True, nogil=True, inline="always")
def _chance(values: np.ndarray, offset: np.ndarray, s: int, need: int) -> float:
    """P_s(need) of a ragged target table, without a branch: a state stores k = 0 (1.0) .. n-1 and a
    trailing 0.0, so need <= 0 reads the 1 and need >= n the 0."""
    start = offset[s]
    n = offset[s + 1] - start - 1
    chance: float = values[start + min(max(need, 0), n)]
    return chance


@njit(cache=True, nogil=True)
def _target_last_roll(
    values: np.ndarray,
    offset: np.ndarray,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    need: np.ndarray,
    rules: RuleArgs,
    x: np.ndarray,
) -> None:
    """x[FULL + r, w] = best chance over the legal boxes for final hand r in lane w (state, need), as
    `best_box_value` under `TargetProbability` (joker and strike_any included; no relations)."""
    score, upper_face, threshold, bonus, n_upper, yam_row, strike_any = (
        rules[0],
        rules[2],
        rules[5],
        rules[6],
        rules[7],
        rules[9],
        rules[12],
    )
    n_yam = rules[8]
    lanes = x.shape[1]
    cap = n_upper - 1
    neg = -np.inf
    start0 = np.empty(lanes, dtype=np.int64)  # the successor's first value (yam flag 0 for the yam row)
    last0 = np.empty(lanes, dtype=np.int64)  # its stored count - 1 (the sentinel's index)
    start1 = np.empty(lanes, dtype=np.int64)  # the yam row's successor with the flag on
    last1 = np.empty(lanes, dtype=np.int64)
    shift = np.empty(lanes, dtype=np.int64)
    six = np.empty((D.DICE + 1, lanes))
    for r in range(_N_ROLLS):
        for w in range(lanes):
            x[_FULL + r, w] = neg
    for i in range(score.shape[0]):
        bit = 1 << i
        any_open = False
        for w in range(lanes):
            if boxes[w] & bit == 0:
                any_open = True
        if not any_open:
            continue
        face = upper_face[i]
        if face:
            for c in range(D.DICE + 1):
                gain = face * c
                for w in range(lanes):
                    if boxes[w] & bit:
                        six[c, w] = neg
                        continue
                    nb, u = boxes[w] | bit, upper[w]
                    pts = gain
                    if threshold and u < threshold and u + gain >= threshold:
                        pts += bonus
                    v = _chance(values, offset, _flat(nb, min(u + gain, cap), yam[w], rules), need[w] - pts)
                    if strike_any:
                        v = max(v, _chance(values, offset, _flat(nb, u, yam[w], rules), need[w]))
                    six[c, w] = v
            for r in range(_N_ROLLS):
                c = _COUNTS[_FULL + r, face]
                for w in range(lanes):
                    x[_FULL + r, w] = max(x[_FULL + r, w], six[c, w])
        else:
            is_yam = i == yam_row
            for w in range(lanes):
                if boxes[w] & bit:
                    start0[w] = -1
                    continue
                base = _flat(boxes[w] | bit, upper[w], 0, rules)
                s0 = base if is_yam else base + yam[w]
                start0[w] = offset[s0]
                last0[w] = offset[s0 + 1] - offset[s0] - 1
                if is_yam:
                    start1[w] = offset[base + 1]
                    last1[w] = offset[base + 2] - offset[base + 1] - 1
            for r in range(_N_ROLLS):
                pts = score[i, r]
                on = is_yam and pts > 0
                for w in range(lanes):
                    shift[w] = need[w] - pts
                for w in range(lanes):
                    if start0[w] < 0:
                        continue
                    a = start1[w] if on else start0[w]
                    n = last1[w] if on else last0[w]
                    v = values[a + min(max(shift[w], 0), n)]
                    if v > x[_FULL + r, w]:
                        x[_FULL + r, w] = v
    if n_yam == 2:
        for w in range(lanes):
            if boxes[w] >> yam_row & 1:
                _target_joker(values, offset, boxes[w], upper[w], yam[w], need[w], rules, x[_FULL:, w])


@njit(cache=True, nogil=True)
def _target_joker(
    values: np.ndarray, offset: np.ndarray, b: int, u: int, y: int, need: int, rules: RuleArgs, last: np.ndarray
) -> None:
    """`_joker` under `TargetProbability`."""
    (
        score,
        joker_score,
        upper_face,
        yam_face,
        row_of_face,
        threshold,
        bonus,
        n_upper,
        n_yam,
        yam_row,
        joker_bonus,
        lower_mask,
        strike_any,
    ) = rules[:13]
    placement, stepped, bonus_at = rules[18], rules[21], rules[22]
    forced = placement == 0  # free and none: any open box
    cap = n_upper - 1
    lower_open = (b & lower_mask) != lower_mask
    extra = joker_bonus * y
    for r in range(_N_ROLLS):
        face = yam_face[r]
        if face == 0:
            continue
        face_row = row_of_face[face]
        face_open = face_row >= 0 and (b >> face_row & 1) == 0
        best = -np.inf
        for i in range(score.shape[0]):
            if b >> i & 1:
                continue
            nb = b | (1 << i)
            pts = score[i, r]
            nu, ny = u, y
            if upper_face[i]:
                if forced and not (face_row == i or (not face_open and not lower_open)):
                    continue
                nu = min(u + pts, cap)
                if stepped:
                    pts += bonus_at[nu] - bonus_at[u]
                elif threshold and u < threshold and u + pts >= threshold:
                    pts += bonus
            else:
                if forced and face_open:
                    continue
                if i == yam_row:
                    ny = 1 if pts > 0 else 0
                # placement none: a further yam scores as the dice are; free: as a joker only once its
                # face's upper box is filled
                if placement == 0 or (placement == 1 and not face_open):
                    pts = joker_score[i, r]
            value = _chance(values, offset, (nb * n_upper + nu) * n_yam + ny, need - (pts + extra))
            if strike_any and upper_face[i]:
                value = max(value, _chance(values, offset, (nb * n_upper + u) * n_yam + y, need))
            best = max(best, value)
        last[r] = best


@njit(cache=True, nogil=True)
def target_turn_starts(
    values: np.ndarray,
    offset: np.ndarray,
    lane_state: np.ndarray,
    lane_need: np.ndarray,
    rules: RuleArgs,
    rolls: int,
    out: np.ndarray,
) -> None:
    """out[j] = the turn-start chance of state lane_state[j] to score lane_need[j] more points, from
    the entries of states with more boxes filled (a level of the target induction)."""
    x = np.empty((_N, LANES))
    boxes = np.empty(LANES, dtype=np.int64)
    upper = np.empty(LANES, dtype=np.int64)
    yam = np.empty(LANES, dtype=np.int64)
    need = np.empty(LANES, dtype=np.int64)
    for start in range(0, len(lane_state), LANES):
        count = _load_block(lane_state, start, rules, boxes, upper, yam)
        for w in range(LANES):
            need[w] = lane_need[start + min(w, count - 1)]
        _target_last_roll(values, offset, boxes, upper, yam, need, rules, x)
        _turn_start(x, rolls)
        for w in range(count):
            out[start + w] = x[0, w]


# ---------------------------------------------------------------------------------------------
# One position (the advisor): no 64-lane padding, the box values compiled too.


@njit(cache=True, nogil=True)
def position_values(
    table: np.ndarray,
    b: int,
    u: int,
    y: int,
    hand: int,
    roll: int,
    rules: RuleArgs,
    rolls: int,
    keeps: np.ndarray,
    rows: np.ndarray,
    points: np.ndarray,
    score: int,
    hand_keeps: np.ndarray,
) -> tuple[int, float, int, float]:
    """The advisor's numbers for one position (MeanScore): keeps[k] = the value after roll `roll` of
    holding multiset k (when roll < rolls), rows[i] / points[i] = the value and points of filling row i
    with `hand` (-inf where it may not be filled), as `keep_values` and `box_values`; hand_keeps[j] = score +
    the value of the j-th keep the hand allows (`_SUBKEEPS` order, the hand itself left out: the keeps an
    answer lists, as final scores; when roll < rolls). Returns the best of each by `score` + its value (as
    the answer compares them), the first of the highest in order, so that an answer names its best without
    sorting: (j, hand_keeps[j]) for the best keep (-1 after the last roll) and (i, score + rows[i]) for
    the best finite row (-1 when none)."""
    bs = np.full(1, b, dtype=np.int64)
    us = np.full(1, u, dtype=np.int64)
    ys = np.full(1, y, dtype=np.int64)
    if roll < rolls:
        x = keeps.reshape((_N, 1))  # keeps is the work array: one lane, the same memory as x
        byroll = rules[24] != 0
        base = np.empty((1, 1))
        if byroll:
            base = _byroll_base(table, bs, us, ys, rules, x, rolls)
            _byroll_stage(table, bs, us, ys, rules, x, base, rolls)
        else:
            _last_roll_one(table, b, u, y, rules, keeps, rolls, bs, us, ys)
        for j in range(rolls - 1, roll - 1, -1):
            _down_one(keeps)
            if byroll:
                _byroll_stage(table, bs, us, ys, rules, x, base, j)
            if j > roll:
                _up_one(keeps)
    _row_values(table, b, u, y, hand, rules, rows, points, roll)
    best_keep, keep_value, at = -1, -np.inf, 0
    if roll < rolls:
        for s in range(_N_SUBKEEPS[hand]):
            k = _SUBKEEPS[hand, s]
            if k == _FULL + hand:  # holding all five is not a roll
                continue
            v = score + keeps[k]
            hand_keeps[at] = v
            if best_keep < 0 or v > keep_value:
                best_keep, keep_value = at, v
            at += 1
    best_row, row_value = -1, -np.inf
    for i in range(rows.shape[0]):
        if -np.inf < rows[i] < np.inf:
            v = score + rows[i]
            if best_row < 0 or v > row_value:
                best_row, row_value = i, v
    return best_keep, keep_value, best_row, row_value


# One state's lattice and last roll on a 1-d array: `_down`, `_up` and `_last_roll` (every row) for
# one lane, the same arithmetic in the same order (so the same values to the bit), without the loop over
# lanes that keeps the compiler from running a row's 252 hands as one vector loop.


@njit(cache=True, nogil=True)
def _down_one(x: np.ndarray) -> None:
    for n in range(D.DICE - 1, -1, -1):
        for k in range(_LEVEL_START[n], _LEVEL_START[n + 1]):
            acc = x[_ADD[k, 0]]
            acc += x[_ADD[k, 1]]
            acc += x[_ADD[k, 2]]
            acc += x[_ADD[k, 3]]
            acc += x[_ADD[k, 4]]
            acc += x[_ADD[k, 5]]
            x[k] = acc * _SIXTH


@njit(cache=True, nogil=True)
def _up_one(x: np.ndarray) -> None:
    for n in range(1, D.DICE + 1):
        for k in range(_LEVEL_START[n], _LEVEL_START[n + 1]):
            m = x[k]
            for f in range(_N_REMOVE[k]):
                m = max(m, x[_REMOVE[k, f]])
            x[k] = m


@njit(cache=True, nogil=True)
def _last_roll_one(
    table: np.ndarray,
    b: int,
    u: int,
    y: int,
    rules: RuleArgs,
    x: np.ndarray,
    m: int,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
) -> None:
    """`_last_roll(..., mask=-1, reset=True)` for the one state (b, u, y) (also given as the 1-lane arrays
    `boxes`, `upper`, `yam` that the pair rows read), into the 1-d x."""
    upper_face, threshold, bonus, n_upper, yam_row, strike_any = (
        rules[2],
        rules[5],
        rules[6],
        rules[7],
        rules[9],
        rules[12],
    )
    rel_high, rel_low, has_joker, needs_row, stepped, bonus_at = (
        rules[13],
        rules[14],
        rules[19],
        rules[20],
        rules[21],
        rules[22],
    )
    score = rules[23][m]
    wins, win_points = rules[25], rules[26]
    cap = n_upper - 1
    neg = -np.inf
    last = x[_FULL:]
    six = np.empty(D.DICE + 1)
    shut = _shut(b, rules)  # the rows closed to this turn: filled, or not next in order (as `_last_roll`)
    for r in range(_N_ROLLS):
        last[r] = neg
    for i in range(score.shape[0]):
        bit = 1 << i
        if shut & bit:
            continue
        face = upper_face[i]
        if face:
            for c in range(D.DICE + 1):
                gain = face * c
                nb = b | bit
                pts = gain
                if stepped:
                    pts += bonus_at[min(u + gain, cap)] - bonus_at[u]
                elif threshold and u < threshold and u + gain >= threshold:
                    pts += bonus
                v = table[_flat(nb, min(u + gain, cap), y, rules)] + pts
                if strike_any:
                    v = max(v, table[_flat(nb, u, y, rules)] + 0.0)
                six[c] = v
            for r in range(_N_ROLLS):
                last[r] = max(last[r], six[_COUNTS[_FULL + r, face]])
        elif i == rel_high or i == rel_low:
            _pair_row(table, boxes, upper, yam, rules, i, x.reshape((_N, 1)))
        else:
            is_yam = i == yam_row
            fut = neg
            fut1 = neg
            if not (i == needs_row and not (b >> yam_row) & 1):
                base = _flat(b | bit, u, 0, rules)
                if is_yam:
                    fut = np.float64(table[base])
                    fut1 = np.float64(table[base + 1])
                else:
                    fut = np.float64(table[base + y])
            if i == needs_row:
                for r in range(_N_ROLLS):
                    pts = score[i, r]
                    last[r] = max(last[r], fut + (pts if y else 0))
            elif wins[i] >= m:
                if fut != neg:
                    for r in range(_N_ROLLS):
                        pts = score[i, r]
                        v = pts + win_points if pts > 0 else fut
                        last[r] = max(last[r], v)
            elif is_yam:
                for r in range(_N_ROLLS):
                    pts = score[i, r]
                    last[r] = max(last[r], (fut1 if pts > 0 else fut) + pts)
            else:
                for r in range(_N_ROLLS):
                    last[r] = max(last[r], fut + score[i, r])
    if has_joker and b >> yam_row & 1:
        _joker(table, b, u, y, rules, last)


@njit(cache=True, nogil=True)
def _row_values(
    table: np.ndarray,
    b: int,
    u: int,
    y: int,
    hand: int,
    rules: RuleArgs,
    rows: np.ndarray,
    points: np.ndarray,
    m: int,
) -> None:
    """rows[i] / points[i]: the value (points + the table's future) and points of filling row i with
    `hand` after roll m in state (b, u, y), -inf where it may not be filled: `box_values` for one state
    and hand. An entry that wins outright is worth its points and win_points (points[i]: its points)."""
    n_rows = rules[15]
    upper_face, threshold, bonus, n_upper, yam_row = rules[2], rules[5], rules[6], rules[7], rules[9]
    strike_any, rel_high, rel_low, pend_values, pend_index = rules[12], rules[13], rules[14], rules[16], rules[17]
    n_yam, joker_score, yam_face, row_of_face, joker_bonus, lower_mask = (
        rules[8],
        rules[1],
        rules[3],
        rules[4],
        rules[10],
        rules[11],
    )
    placement, has_joker, needs_row, stepped, bonus_at = rules[18], rules[19], rules[20], rules[21], rules[22]
    score, wins, win_points, at_entry = rules[23][m], rules[25], rules[26], rules[27]
    forced = placement == 0
    cap = n_upper - 1
    mask = b & ((1 << n_rows) - 1)
    shut = _shut(mask, rules)  # filled, or not next in the column's order
    joker = has_joker and (mask >> yam_row) & 1 == 1 and yam_face[hand] > 0
    face_row = row_of_face[yam_face[hand]] if joker else -1
    face_open = joker and face_row >= 0 and (mask >> face_row) & 1 == 0
    face_next = joker and face_row >= 0 and (shut >> face_row) & 1 == 0
    lower_open = (shut & lower_mask) != lower_mask
    extra = joker_bonus * y if joker else 0
    for i in range(n_rows):
        rows[i] = -np.inf
        points[i] = 0
        if (shut >> i) & 1:
            continue
        bit = 1 << i
        pts = score[i, hand]
        if i == rel_high or i == rel_low:
            partner = rel_low if i == rel_high else rel_high
            high = i == rel_high
            full = mask | bit
            best = -np.inf
            best_pts = 0
            for option in range(2 if strike_any else 1):
                written = pts if option == 0 else 0
                if (mask >> partner) & 1:
                    held = pend_values[b >> n_rows]
                    zeroed = (written <= held) if high else (held <= written)
                    if at_entry:
                        p = 0 if zeroed and held > 0 else written
                    else:
                        p = -held if zeroed else written
                    v = table[_flat(full, u, y, rules)] + p
                else:
                    p = written
                    v = table[_flat(full | (pend_index[written] << n_rows), u, y, rules)] + p
                if v > best:
                    best, best_pts = v, p
            rows[i] = best
            points[i] = best_pts
            continue
        nb = b | bit
        if upper_face[i]:
            if joker and forced and not (face_row == i or (not face_next and not lower_open)):
                continue
            p = pts
            if stepped:
                p += bonus_at[min(u + pts, cap)] - bonus_at[u]
            elif threshold and u < threshold and u + pts >= threshold:
                p += bonus
            p += extra
            v = table[_flat(nb, min(u + pts, cap), y, rules)] + p
            if strike_any:
                struck = table[_flat(nb, u, y, rules)] + 0.0
                if struck > v:
                    v, p = struck, 0
            rows[i] = v
            points[i] = p
            continue
        if i == needs_row:
            if not (mask >> yam_row) & 1:
                continue  # the box it needs is still open
            if y == 0:
                pts = 0  # the needed box scored 0: so does this one
        ny = y
        if i == yam_row and n_yam == 2:
            ny = 1 if pts > 0 else 0
        if joker:
            if forced and face_next:
                continue
            if placement == 0 or (placement == 1 and not face_open):
                pts = joker_score[i, hand]
        p = pts + extra
        if wins[i] >= m and pts > 0:
            rows[i] = p + win_points  # the game ends: no future
        else:
            rows[i] = table[_flat(nb, u, ny, rules)] + p
        points[i] = p


_SUBKEEPS = D.SUBKEEPS
_N_SUBKEEPS = D.N_SUBKEEPS
_KEEP_SIZE = np.array([len(m) for m in D.MULTISETS], dtype=np.int64)
_KEEP_DICE = np.array([(m + (0,) * D.DICE)[: D.DICE] for m in D.MULTISETS], dtype=np.int64)
_HAND_OF_CODE = np.full(7**D.DICE, -1, dtype=np.int64)
for _r in range(_N_ROLLS):
    _code = 0
    for _i, _d in enumerate(D.MULTISETS[_FULL + _r]):
        _code += _d * 7**_i
    _HAND_OF_CODE[_code] = _r


@njit(cache=True, nogil=True, inline="always")
def _hand_of(dice: np.ndarray) -> int:
    """The full-hand index of five dice values (any order)."""
    a = np.sort(dice)
    code = 0
    mult = 1
    for i in range(D.DICE):
        code += a[i] * mult
        mult *= 7
    hand: int = _HAND_OF_CODE[code]
    return hand


@njit(cache=True, nogil=True)
def optimal_turns(
    table: np.ndarray,
    boxes: np.ndarray,
    upper: np.ndarray,
    yam: np.ndarray,
    faces: np.ndarray,
    rules: RuleArgs,
    rolls: int,
    out_row: np.ndarray,
    out_hand: np.ndarray,
    out_points: np.ndarray,
    out_won: np.ndarray,
) -> None:
    """One turn of optimal play (MeanScore) for every game, compiled: the widget of each game's state
    (64 games a block), every keep chosen as `simulate._Optimal.keep` (the best of the hand's
    sub-keeps, holding all five = stopping), then the best box as `box_values` (first best row).
    faces (G, rolls, 5): the values the dice take, in order, on each roll (rerolled dice take the
    first ones). Writes each game's row, final hand, points and whether the entry won outright."""
    x = np.empty((_N, LANES))
    stages = np.empty((max(rolls - 1, 1), _N, LANES))
    bl = np.empty(LANES, dtype=np.int64)
    ul = np.empty(LANES, dtype=np.int64)
    yl = np.empty(LANES, dtype=np.int64)
    rows = np.empty(rules[15])
    points = np.empty(rules[15], dtype=np.int64)
    dice = np.empty(D.DICE, dtype=np.int64)
    wins = rules[25]
    byroll = rules[24] != 0
    base = np.empty((1, 1))
    games = len(boxes)
    for start in range(0, games, LANES):
        count = min(LANES, games - start)
        for w in range(LANES):
            g = start + min(w, count - 1)
            bl[w], ul[w], yl[w] = boxes[g], upper[g], yam[g]
        if byroll:
            base = _byroll_base(table, bl, ul, yl, rules, x, rolls)
            _byroll_stage(table, bl, ul, yl, rules, x, base, rolls)
        else:
            _last_roll(table, bl, ul, yl, rules, x, rolls, -1, True)
        for j in range(rolls - 1, 0, -1):
            _down(x)
            if byroll:  # the full hand: stopping after roll j
                _byroll_stage(table, bl, ul, yl, rules, x, base, j)
            stages[j - 1] = x
            if j > 1:
                _up(x)
        for w in range(count):
            g = start + w
            for i in range(D.DICE):
                dice[i] = faces[g, 0, i]
            hand = _hand_of(dice)
            final = rolls
            for r in range(1, rolls):
                best, keep = -np.inf, -1
                for j in range(_N_SUBKEEPS[hand]):
                    k = _SUBKEEPS[hand, j]
                    v = stages[r - 1, k, w]
                    if v > best:
                        best, keep = v, k
                if keep == _FULL + hand:
                    if byroll:  # stop: the points of roll r
                        final = r
                        break
                    continue  # holding all five: the same hand goes on to the next roll
                kept = _KEEP_SIZE[keep]
                for i in range(D.DICE):
                    dice[i] = _KEEP_DICE[keep, i] if i < kept else faces[g, r, i - kept]
                hand = _hand_of(dice)
            _row_values(table, boxes[g], upper[g], yam[g], hand, rules, rows, points, final)
            best, row = -np.inf, -1
            for i in range(len(rows)):
                if rows[i] > best:
                    best, row = rows[i], i
            out_row[g] = row
            out_hand[g] = hand
            out_points[g] = points[row]
            out_won[g] = wins[row] >= final and points[row] > 0
