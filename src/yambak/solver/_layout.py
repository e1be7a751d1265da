"""What the solver needs from a ruleset, as arrays, and the turn-start state layout.

A turn-start state is (filled boxes, upper score, yam flag):

* `boxes`: a bit mask over the rows of the single column (bit i = row i filled);
* `upper`: the upper-section sum capped at the bonus threshold (0..threshold),
  because beyond the threshold only "bonus reached" matters; 1 value when the
  ruleset has no upper bonus;
* `yam`: 1 when the joker's yam box holds a non-zero value (the +100 bonus is
  still live), else 0; only rulesets with a joker have this axis.

The flat index is `((boxes * n_upper) + upper) * n_yam + yam`, so the upper
variants of one box set sit next to each other and a whole level (box sets with
the same number of filled boxes) is a handful of contiguous runs.

A `max_gt_min` relation (docs/rules.md §5) adds what the state must remember
while exactly one box of its high/low pair is filled: the value written there
(0 when struck). `boxes` is then a *key*, the bit mask plus the index of that
value (`pend_values`) shifted above the row bits (`boxes | pend << n_rows`, the
index 0 whenever the pair is empty or complete), and the flat index replaces
`boxes` by a compact slot: the mask of the other rows times the 2 + 2P pair
states (empty, high filled with each of the P values, low filled with each,
both). Without a relation the key is the mask and the slot is the key, so the
layout (and every stored table) is exactly the one above.

A column filled in a fixed order (`order` down, up, updown or middle: docs/rulesets.md) keeps the
layout: the order only decides which open rows may be filled now (`allowed`), so only the box sets
the order can reach are solved (`level_states`) and read.

Rows are read from the ruleset data (kind, face, points); nothing here names a
Yahtzee category.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..rules import Ruleset, RulesetError, row_score
from . import dice as D

__all__ = ["MAX_TABLE_STATES", "ORDERS", "SolverRules", "UnsupportedRuleset", "solver_rules"]

# A column's fill order as the kernels take it (`SolverRules.order`).
ORDERS = ("free", "down", "up", "updown", "middle")

# The largest table solved (float64 entries: 512 MiB). yams-fr with one column and max/min,
# the largest preset table, has 29,360,128 entries.
MAX_TABLE_STATES = 1 << 26


class UnsupportedRuleset(RulesetError):
    """A ruleset the exact solver does not handle (several columns, announcements...)."""

    def __init__(self, problem: str) -> None:
        super().__init__("solver", problem)


@dataclass(frozen=True, eq=False)
class SolverRules:
    """A single-column ruleset compiled to score tables and a state layout."""

    ruleset: Ruleset
    n_rows: int
    rolls: int  # rolls per turn
    score: np.ndarray  # (n_rows, 252) int: points each full hand writes in each row
    joker_score: np.ndarray  # (n_rows, 252) int: the same under the joker
    upper_face: np.ndarray  # (n_rows,) int: face of an upper row, 0 otherwise
    threshold: int  # upper bonus threshold (0: no bonus)
    bonus: int
    n_upper: int  # size of the upper-score axis
    yam_row: int  # joker row index, -1 without joker
    joker_bonus: int
    n_yam: int  # size of the yam-flag axis
    strike_any: bool
    yam_face: np.ndarray  # (252,) int: face of a five-of-a-kind hand, 0 otherwise
    rel_high: int = -1  # max_gt_min relation: the high row (-1: no relation)
    rel_low: int = -1  # ... and its low row
    pend_values: np.ndarray = field(
        default_factory=lambda: np.zeros(1, dtype=np.int64)
    )  # (P,) values a lone pair box can hold
    pend_index: np.ndarray = field(
        default_factory=lambda: np.zeros(1, dtype=np.int64)
    )  # value -> index in pend_values (-1: impossible)
    # Rules beyond the first presets (docs/rulesets.md); their defaults leave the layout as it was.
    rel_at_entry: bool = False  # the pair's relation is min_lt_max_at_entry (else max_gt_min)
    joker_placement: int = 0  # 0 forced, 1 free, 2 none (the bonus alone)
    has_joker: bool = False  # the flag axis is the joker's (else, with needs_row, a prerequisite's)
    needs_row: int = -1  # a row that may be filled only once the flag row (yam_row) is, scoring only if it scored
    stepped: bool = False  # the upper bonus has several steps: read bonus_at
    bonus_at: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype=np.int64))  # (n_upper,) bonus at u
    # Points by roll number and outright wins: score_by_roll[m] the points after roll m (index 0 unused),
    # byroll the rows whose value depends on m, wins[i] the last roll on which row i wins at once.
    score_by_roll: np.ndarray = field(default_factory=lambda: np.zeros((1, 1, 1), dtype=np.int64))
    byroll: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    wins: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    win_points: float = 0.0
    order: int = 0  # the column's fill order, an index into ORDERS (0: free, any open row)
    start_mask: int = 0  # middle: the bits of the two rows an empty column starts from

    def allowed(self, boxes: np.ndarray | int) -> np.ndarray | int:
        """The bits of the open rows the column's order lets be filled now, for keys `boxes` (as the
        engine's `_order_rows`: free any open row, down the topmost, up the bottommost, updown either
        end, middle the rows next to the filled block, or the start pair while it is empty)."""
        full = self.full_mask
        mask = np.asarray(boxes) & full
        open_ = full & ~mask
        if self.order == 0:
            out = open_
        elif self.order == 4:
            low = mask & -mask
            high = np.where(mask > 0, 1 << np.maximum(_bit_length(mask) - 1, 0), 0)
            out = np.where(mask == 0, self.start_mask, ((low >> 1) | (high << 1)) & full & open_)
        else:
            top = open_ & -open_  # the lowest open bit: the topmost open row
            bottom = np.where(open_ > 0, 1 << np.maximum(_bit_length(open_) - 1, 0), 0)
            out = top if self.order == 1 else bottom if self.order == 2 else top | bottom
        return int(out) if np.ndim(out) == 0 else out

    def reachable_mask(self, masks: np.ndarray) -> np.ndarray:
        """Whether the column's order can leave exactly the rows of each mask filled."""
        full = self.full_mask
        masks = np.asarray(masks, dtype=np.int64)
        if self.order == 0:
            return np.ones(masks.shape, dtype=bool)
        open_ = full & ~masks
        out: np.ndarray
        if self.order == 1:  # a top block filled
            out = (masks & (masks + 1)) == 0
        elif self.order == 2:  # a bottom block filled: the open rows are a top block
            out = (open_ & (open_ + 1)) == 0
        elif self.order == 3:  # the open rows are one block
            low = open_ & -open_
            out = (open_ == 0) | (((open_ + low) & open_) == 0)
        else:  # middle: the filled rows are one block holding a start row
            low = masks & -masks
            block = ((masks + low) & masks) == 0
            out = (masks == 0) | (block & ((masks & self.start_mask) != 0))
        return out

    @property
    def any_byroll(self) -> bool:
        return bool(self.byroll.any())

    def bonus_gain(self, upper: np.ndarray | int, gain: np.ndarray | int) -> np.ndarray | int:
        """The upper bonus an upper entry of `gain` points earns from capped upper sum `upper`."""
        cap = self.n_upper - 1
        if self.stepped:
            after = np.minimum(np.asarray(upper) + gain, cap)
            out: np.ndarray = self.bonus_at[after] - self.bonus_at[upper]
            return out
        if not self.threshold:
            return np.zeros(np.broadcast_shapes(np.shape(upper), np.shape(gain)), dtype=np.int64)
        return self.bonus * ((np.asarray(upper) < self.threshold) & (np.asarray(upper) + gain >= self.threshold))

    @property
    def n_pend(self) -> int:
        return len(self.pend_values) if self.rel_high >= 0 else 1

    @property
    def n_slots(self) -> int:
        if self.rel_high < 0:
            return 1 << self.n_rows
        return (1 << (self.n_rows - 2)) * (2 + 2 * self.n_pend)

    @property
    def n_states(self) -> int:
        return self.n_slots * self.n_upper * self.n_yam

    @property
    def full_mask(self) -> int:
        return (1 << self.n_rows) - 1

    @property
    def upper_mask(self) -> int:
        return sum(1 << i for i in range(self.n_rows) if self.upper_face[i])

    def slot(self, boxes: np.ndarray | int) -> np.ndarray | int:
        """Compact slot of a key (see the module docstring); the key itself without a relation."""
        if self.rel_high < 0:
            return boxes
        a, b = sorted((self.rel_high, self.rel_low))
        mask = boxes & self.full_mask
        pend = boxes >> self.n_rows
        low_bits, mid_bits = (1 << a) - 1, ((1 << (b - 1)) - 1) ^ ((1 << a) - 1)
        other = (mask & low_bits) | ((mask >> 1) & mid_bits) | ((mask >> 2) & ~((1 << (b - 1)) - 1))
        h, lo = (mask >> self.rel_high) & 1, (mask >> self.rel_low) & 1
        p = np.where(h & lo, 1 + 2 * self.n_pend, np.where(h, 1 + pend, np.where(lo, 1 + self.n_pend + pend, 0)))
        out = other * (2 + 2 * self.n_pend) + p
        return int(out) if np.ndim(out) == 0 else out

    def unslot(self, slot: np.ndarray) -> np.ndarray:
        """The key of a slot (inverse of `slot`)."""
        if self.rel_high < 0:
            return slot
        a, b = sorted((self.rel_high, self.rel_low))
        other: np.ndarray
        p: np.ndarray
        other, p = np.divmod(slot, 2 + 2 * self.n_pend)
        low_bits, mid_bits = (1 << a) - 1, ((1 << (b - 1)) - 1) ^ ((1 << a) - 1)
        mask = (other & low_bits) | ((other & mid_bits) << 1) | ((other >> (b - 1)) << (b + 1))
        both, h = p == 1 + 2 * self.n_pend, (p >= 1) & (p <= self.n_pend)
        lo = (p > self.n_pend) & ~both
        mask = mask | ((h | both) << self.rel_high) | ((lo | both) << self.rel_low)
        pend = np.where(h, p - 1, np.where(lo, p - 1 - self.n_pend, 0))
        key: np.ndarray = mask | (pend << self.n_rows)
        return key

    def flat(self, boxes: np.ndarray | int, upper: np.ndarray | int, yam: np.ndarray | int) -> np.ndarray | int:
        return (self.slot(boxes) * self.n_upper + upper) * self.n_yam + yam

    def unflat(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rest, yam = np.divmod(index, self.n_yam)
        slot, upper = np.divmod(rest, self.n_upper)
        return self.unslot(slot), upper, yam

    def after_pair_entry(self, boxes: np.ndarray, row: np.ndarray, written: np.ndarray) -> np.ndarray:
        """Keys after writing `written` (0: struck) in `row`, for any rows (relation bookkeeping included)."""
        nb: np.ndarray = boxes | np.left_shift(1, row)
        if self.rel_high < 0:
            return nb
        mask: np.ndarray = nb & self.full_mask
        pair = (1 << self.rel_high) | (1 << self.rel_low)
        in_pair = (row == self.rel_high) | (row == self.rel_low)
        both = (mask & pair) == pair
        first = in_pair & ~both
        pend = self.pend_index[np.clip(written, 0, len(self.pend_index) - 1)]
        return np.where(both, mask, np.where(first, mask | (pend << self.n_rows), nb))

    def reachable_upper(self) -> np.ndarray:
        """(2**n_upper_rows, n_upper) bool: which capped upper sums a set of filled upper rows allows.

        Indexed by the compact mask of filled upper rows (bit j = j-th upper row).
        Skipping unreachable states halves the work and makes `states` a true count.
        """
        faces = [int(f) for f in self.upper_face if f]
        out = np.zeros((1 << len(faces), self.n_upper), dtype=bool)
        cap = self.n_upper - 1
        for sub in range(1 << len(faces)):
            sums = {0}
            for j, f in enumerate(faces):
                if sub >> j & 1:
                    sums = {min(s + f * c, cap) for s in sums for c in range(D.DICE + 1)}
            out[sub, sorted(sums)] = True
        return out

    def level_states(self, n_filled: int) -> np.ndarray:
        """Flat indices of the reachable states with `n_filled` boxes filled, in layout order."""
        masks = np.arange(1 << self.n_rows, dtype=np.int64)
        pop = np.zeros_like(masks)
        for i in range(self.n_rows):
            pop += masks >> i & 1
        masks = masks[(pop == n_filled) & self.reachable_mask(masks)]
        upper_rows = [i for i in range(self.n_rows) if self.upper_face[i]]
        compact = np.zeros_like(masks)
        for j, i in enumerate(upper_rows):
            compact |= (masks >> i & 1) << j
        ok = self.reachable_upper()[compact]  # (n_masks, n_upper)
        if self.rel_high >= 0:  # one key per value the lone pair box can hold
            keys, oks = [masks[((masks >> self.rel_high) & 1) == ((masks >> self.rel_low) & 1)]], []
            oks.append(ok[((masks >> self.rel_high) & 1) == ((masks >> self.rel_low) & 1)])
            for row, other in ((self.rel_high, self.rel_low), (self.rel_low, self.rel_high)):
                lone = (((masks >> row) & 1) == 1) & (((masks >> other) & 1) == 0)
                values = {int(v) for v in self.score[row]} | ({0} if self.strike_any else set())
                pends = np.array([self.pend_index[v] for v in sorted(values)], dtype=np.int64)
                keys.append((masks[lone][:, None] | (pends[None, :] << self.n_rows)).reshape(-1))
                oks.append(np.repeat(ok[lone], len(pends), axis=0))
            masks, ok = np.concatenate(keys), np.concatenate(oks)
        if self.n_yam == 2:
            yam_filled = (masks >> self.yam_row & 1).astype(bool)
            ok = np.stack([ok, ok & yam_filled[:, None]], axis=-1)  # (n_masks, n_upper, 2)
        else:
            ok = ok[:, :, None]
        flat = self.flat(
            masks[:, None, None], np.arange(self.n_upper)[None, :, None], np.arange(self.n_yam)[None, None, :]
        )
        out = np.asarray(flat)[ok]
        return np.sort(out) if self.rel_high >= 0 else out


def _bit_length(x: np.ndarray | int) -> np.ndarray:
    """The bit length of each non-negative integer (0 for 0), exact below 2**52."""
    x = np.asarray(x, dtype=np.int64)
    out: np.ndarray = np.where(x > 0, np.frexp(np.maximum(x, 1).astype(np.float64))[1], 0)
    return out.astype(np.int64)


def solver_rules(ruleset: Ruleset) -> SolverRules:
    """Compile a ruleset, or raise `UnsupportedRuleset` saying why it cannot be solved exactly."""
    if len(ruleset.columns) != 1:
        raise UnsupportedRuleset(
            f"{ruleset.id} has {len(ruleset.columns)} columns; the exact solver handles one-column rulesets only"
        )
    column = ruleset.columns[0]
    if column.order not in ORDERS or column.rolls is not None or column.announce:
        raise UnsupportedRuleset(
            f"column {column.id!r} is not solved exactly: the solver takes a column filled in any order, "
            "down, up, updown or from the middle, without roll restrictions or announcements"
        )
    rel_high = rel_low = -1
    rel_at_entry = False
    if ruleset.relations:
        relation = ruleset.relations[0]
        supported = relation.kind == "min_lt_max_at_entry" or (
            relation.kind == "max_gt_min" and not relation.last_resort
        )
        if len(ruleset.relations) > 1 or not supported:
            names = ", ".join(r.kind for r in ruleset.relations)
            raise UnsupportedRuleset(
                f"relations between boxes ({names}) are not solved exactly; "
                "only one max_gt_min relation without last_resort, or one min_lt_max_at_entry, is"
            )
        rel_high, rel_low = ruleset.row_index[relation.high], ruleset.row_index[relation.low]
        rel_at_entry = relation.kind == "min_lt_max_at_entry"
        if ruleset.rows[rel_high].is_upper or ruleset.rows[rel_low].is_upper or ruleset.joker is not None:
            raise UnsupportedRuleset("a relation on upper rows or with a joker is not solved exactly")
    faces = [r.face for r in ruleset.rows if r.is_upper]
    if ruleset.joker is not None and len(set(faces)) != len(faces):
        raise UnsupportedRuleset("a joker with two upper rows of one face is not solved exactly")
    if ruleset.modifiers:
        raise UnsupportedRuleset(f"modifiers ({', '.join(sorted(ruleset.modifiers))}) are not solved exactly")
    if ruleset.dice != D.DICE:
        raise UnsupportedRuleset(f"not supported: the exact solver handles five dice, not {ruleset.dice}")
    if ruleset.save_rolls:
        raise UnsupportedRuleset("not supported: saved rolls are not solved exactly (docs/bots.md)")
    if len(ruleset.rows) > 20:
        raise UnsupportedRuleset("too many rows for an exact table")
    needs = [i for i, r in enumerate(ruleset.rows) if r.needs]
    if len(needs) > 1:
        raise UnsupportedRuleset("not supported: more than one box that needs another first")
    needs_row = needs[0] if needs else -1
    needed = ruleset.row_index[ruleset.rows[needs_row].needs] if needs else -1
    if ruleset.joker is not None and needs and ruleset.row_index[ruleset.joker.row] != needed:
        raise UnsupportedRuleset("not supported: a joker and a box needing a row other than the joker's")
    if needs_row in (rel_high, rel_low) and needs_row >= 0:
        raise UnsupportedRuleset("not supported: a related row that needs another first")
    R = ruleset.rolls_per_turn
    byroll = np.array([isinstance(r.points, tuple) or r.wins_by_roll > 0 for r in ruleset.rows], dtype=bool)
    if byroll.any() and ruleset.joker is not None:
        raise UnsupportedRuleset("not supported: points by roll number together with a joker")
    if ruleset.wins_outright and ruleset.win_points is None:
        raise UnsupportedRuleset(
            "not supported: an outright win needs win_points, what the solver counts it as (docs/rulesets.md)"
        )
    if any(byroll[i] for i in (rel_high, rel_low, needs_row) if i >= 0) and R > 1:
        raise UnsupportedRuleset("not supported: points by roll number in a related row or one that needs another")

    hands = [D.MULTISETS[D.FULL + r] for r in range(D.N_ROLLS)]
    score_by_roll = np.zeros((R + 1, len(ruleset.rows), D.N_ROLLS), dtype=np.int64)
    for m in range(1, R + 1):
        for i, row in enumerate(ruleset.rows):
            score_by_roll[m, i] = [row_score(row, h, m) for h in hands] if byroll[i] or m == R else 0
    score = score_by_roll[R].copy()
    for m in range(1, R):
        score_by_roll[m, ~byroll] = score[~byroll]
    joker_score = np.array([[row_score(row, h, R, joker=True) for h in hands] for row in ruleset.rows], dtype=np.int64)
    upper_face = np.array([row.face if row.is_upper else 0 for row in ruleset.rows], dtype=np.int64)
    ub = ruleset.upper_bonus
    threshold, bonus = (ub.threshold, ub.points) if ub else (0, 0)
    top = ub.top if ub else 0
    if ub is not None and threshold > sum(int(f) * D.DICE for f in upper_face):
        threshold, bonus, top, ub = 0, 0, 0, None  # a bonus no sheet can reach: no upper axis at all
    stepped = ub is not None and len(ub.all_steps) > 1
    n_upper = (top if stepped else threshold) + 1 if ub else 1
    bonus_at = np.array([ub.points_for(u) for u in range(n_upper)] if ub else [0], dtype=np.int64)
    yam_row, joker_bonus, placement = -1, 0, 0
    if ruleset.joker is not None:
        yam_row = ruleset.row_index[ruleset.joker.row]
        joker_bonus = ruleset.joker.bonus
        placement = ("forced", "free", "none").index(ruleset.joker.placement)
    elif needs:
        yam_row = needed  # the flag axis: whether the needed row holds a non-zero value
    yam_face = np.array([h[0] if len(set(h)) == 1 else 0 for h in hands], dtype=np.int64)
    relation_fields: dict[str, Any] = {}
    if rel_high >= 0:
        # Values a lone pair box can hold: what the dice write there, or 0 (a scratch or a strike).
        values = sorted({0} | {int(v) for v in score[rel_high]} | {int(v) for v in score[rel_low]})
        if min(values) < 0:
            raise UnsupportedRuleset("negative values in a related pair are not solved exactly")
        pend_index = np.full(max(values) + 1, -1, dtype=np.int64)
        pend_index[values] = np.arange(len(values))
        relation_fields = {
            "rel_high": rel_high,
            "rel_low": rel_low,
            "pend_values": np.array(values, dtype=np.int64),
            "pend_index": pend_index,
            "rel_at_entry": rel_at_entry,
        }
    sr = SolverRules(
        ruleset=ruleset,
        n_rows=len(ruleset.rows),
        rolls=R,
        score=score,
        joker_score=joker_score,
        upper_face=upper_face,
        threshold=threshold,
        bonus=bonus,
        n_upper=n_upper,
        yam_row=yam_row,
        joker_bonus=joker_bonus,
        n_yam=2 if yam_row >= 0 else 1,
        strike_any=ruleset.strike_any,
        yam_face=yam_face,
        joker_placement=placement,
        has_joker=ruleset.joker is not None,
        needs_row=needs_row,
        stepped=stepped,
        bonus_at=bonus_at,
        score_by_roll=score_by_roll,
        byroll=byroll,
        wins=np.array([r.wins_by_roll for r in ruleset.rows], dtype=np.int64),
        win_points=float(ruleset.win_points or 0),
        order=ORDERS.index(column.order),
        start_mask=sum(1 << ruleset.row_index[r] for r in column.start) if column.order == "middle" else 0,
        **relation_fields,
    )
    if sr.n_states > MAX_TABLE_STATES:
        raise UnsupportedRuleset(
            f"the exact table would have {sr.n_states:,} entries; the solver stops at {MAX_TABLE_STATES:,}"
        )
    return sr
