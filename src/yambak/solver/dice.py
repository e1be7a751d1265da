"""Dice multisets as a lattice: the index tables every solver stage works on.

Order of dice never matters for scoring, so a hand is a multiset. There are 462
multisets of 0..5 six-sided dice (252 of them full hands). A *keep* is a
multiset of at most five dice, and two facts let the within-turn widget run as
a few array operations per level instead of a sum over 252 outcomes per keep:

* rolling the missing dice one at a time gives the same distribution, so
  E[keep] = mean over faces d of E[keep + d]   (the "down" pass);
* the best keep out of a hand is the best of the hand itself and the best keep
  out of each hand with one die fewer       (the "up" pass).

Indices: multisets are numbered by size, then lexicographically; `LEVELS[n]` is
the slice of size-n multisets, and the 252 full hands are `LEVELS[5]`, so a
"roll index" r in 0..251 is the multiset `FULL + r`.

`down` and `up` are the two passes in numpy, on values of shape (462, ...):
the solver's compiled kernels do the same arithmetic in the same order, so
both give the same bits. The bots' turn widget shares this module.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from math import factorial

import numpy as np

__all__ = [
    "Lattice",
    "lattice",
    "DICE",
    "FACES",
    "MULTISETS",
    "INDEX",
    "LEVELS",
    "FULL",
    "N_ROLLS",
    "COUNTS",
    "ADD",
    "REMOVE",
    "ROLL_PROB",
    "SUBKEEPS",
    "roll_index",
    "keep_index",
    "down",
    "up",
]

DICE = 5
FACES = 6

MULTISETS: tuple[tuple[int, ...], ...] = tuple(
    ms for n in range(DICE + 1) for ms in combinations_with_replacement(range(1, FACES + 1), n)
)
INDEX: dict[tuple[int, ...], int] = {ms: i for i, ms in enumerate(MULTISETS)}
_starts = np.cumsum([0] + [sum(1 for m in MULTISETS if len(m) == n) for n in range(DICE + 1)])
LEVELS: tuple[slice, ...] = tuple(slice(int(_starts[n]), int(_starts[n + 1])) for n in range(DICE + 1))
FULL: int = LEVELS[DICE].start
N_ROLLS: int = LEVELS[DICE].stop - FULL  # 252

# COUNTS[i, v] = how many dice of multiset i show v (column 0 unused).
COUNTS = np.zeros((len(MULTISETS), FACES + 1), dtype=np.int64)
for _i, _m in enumerate(MULTISETS):
    for _v in _m:
        COUNTS[_i, _v] += 1

# ADD[i, d-1] = multiset i plus one die d (only for multisets of fewer than 5 dice).
ADD = np.full((len(MULTISETS), FACES), -1, dtype=np.int64)
# REMOVE[i, j] = multiset i minus one of its distinct faces (padded by repeating the first).
REMOVE = np.full((len(MULTISETS), DICE), -1, dtype=np.int64)
for _i, _m in enumerate(MULTISETS):
    if len(_m) < DICE:
        for _d in range(1, FACES + 1):
            ADD[_i, _d - 1] = INDEX[tuple(sorted(_m + (_d,)))]
    if _m:
        _subs = []
        for _v in sorted(set(_m)):
            _rest = list(_m)
            _rest.remove(_v)
            _subs.append(INDEX[tuple(_rest)])
        REMOVE[_i] = (_subs + [_subs[0]] * DICE)[:DICE]


def _multinomial(m: tuple[int, ...]) -> float:
    """Probability that len(m) fresh dice show exactly the multiset m."""
    counts = [m.count(v) for v in set(m)]
    ways = factorial(len(m))
    for c in counts:
        ways //= factorial(c)
    return ways / float(FACES) ** len(m)


# ROLL_PROB[r] = probability that five fresh dice show full hand r.
ROLL_PROB = np.array([_multinomial(MULTISETS[FULL + r]) for r in range(N_ROLLS)])

# SUBKEEPS[r, j] = the j-th distinct sub-multiset of full hand r (global index), padded
# by repeating the hand itself; at most 32 (= 2**5) distinct keeps per hand.
_sub_lists = []
for _r in range(N_ROLLS):
    _hand = MULTISETS[FULL + _r]
    _keeps = sorted({INDEX[c] for n in range(DICE + 1) for c in combinations(_hand, n)})
    _sub_lists.append(_keeps)
SUBKEEPS = np.array([(ks + [FULL + r] * 32)[:32] for r, ks in enumerate(_sub_lists)], dtype=np.int64)
N_SUBKEEPS = np.array([len(ks) for ks in _sub_lists], dtype=np.int64)


def roll_index(dice: tuple[int, ...] | list[int]) -> int:
    """Roll index (0..251) of five dice in any order."""
    return INDEX[tuple(sorted(dice))] - FULL


def keep_index(dice: tuple[int, ...] | list[int]) -> int:
    """Global multiset index of 0..5 dice in any order."""
    return INDEX[tuple(sorted(dice))]


_SIXTH = 1.0 / FACES


def down(x: np.ndarray) -> None:
    """Keep values from full-hand values, in place: E[k] = mean over faces d of E[k + d], levels 4..0.

    The six terms are added in face order and the sum multiplied by 1/6, as the
    compiled kernel does."""
    for n in range(DICE - 1, -1, -1):
        add = ADD[LEVELS[n]]
        acc = x[add[:, 0]].copy()
        for j in range(1, FACES):
            acc += x[add[:, j]]
        x[LEVELS[n]] = acc * _SIXTH


def up(x: np.ndarray) -> None:
    """Best-keep values from keep values, in place: M[k] = max(E[k], M[k - d] for each face d in k)."""
    for n in range(1, DICE + 1):
        level = LEVELS[n]
        best = x[level]
        for j in range(DICE):
            best = np.maximum(best, x[REMOVE[level, j]])
        x[level] = best


class Lattice:
    """The same index tables for any number of dice (the bots' turn widget with six dice that all count,
    Maxi Yatzy); `lattice(5)` holds this module's own arrays. The solver itself stays on five."""

    def __init__(self, n: int) -> None:
        self.DICE = n
        self.FACES = FACES
        self.MULTISETS: tuple[tuple[int, ...], ...] = tuple(
            ms for k in range(n + 1) for ms in combinations_with_replacement(range(1, FACES + 1), k)
        )
        self.INDEX = {ms: i for i, ms in enumerate(self.MULTISETS)}
        starts = np.cumsum([0] + [sum(1 for m in self.MULTISETS if len(m) == k) for k in range(n + 1)])
        self.LEVELS = tuple(slice(int(starts[k]), int(starts[k + 1])) for k in range(n + 1))
        self.FULL = self.LEVELS[n].start
        self.N_ROLLS = self.LEVELS[n].stop - self.FULL
        size = len(self.MULTISETS)
        self.COUNTS = np.zeros((size, FACES + 1), dtype=np.int64)
        self.ADD = np.full((size, FACES), -1, dtype=np.int64)
        self.REMOVE = np.full((size, n), -1, dtype=np.int64)
        for i, m in enumerate(self.MULTISETS):
            for v in m:
                self.COUNTS[i, v] += 1
            if len(m) < n:
                for d in range(1, FACES + 1):
                    self.ADD[i, d - 1] = self.INDEX[tuple(sorted(m + (d,)))]
            if m:
                subs = []
                for v in sorted(set(m)):
                    rest = list(m)
                    rest.remove(v)
                    subs.append(self.INDEX[tuple(rest)])
                self.REMOVE[i] = (subs + [subs[0]] * n)[:n]
        self.ROLL_PROB = np.array([_multinomial(self.MULTISETS[self.FULL + r]) for r in range(self.N_ROLLS)])
        width = 1 << n
        lists = []
        for r in range(self.N_ROLLS):
            hand = self.MULTISETS[self.FULL + r]
            lists.append(sorted({self.INDEX[c] for k in range(n + 1) for c in combinations(hand, k)}))
        self.SUBKEEPS = np.array([(ks + [self.FULL + r] * width)[:width] for r, ks in enumerate(lists)], dtype=np.int64)
        self.N_SUBKEEPS = np.array([len(ks) for ks in lists], dtype=np.int64)

    def roll_index(self, dice: tuple[int, ...] | list[int]) -> int:
        return self.INDEX[tuple(sorted(dice))] - self.FULL

    def keep_index(self, dice: tuple[int, ...] | list[int]) -> int:
        return self.INDEX[tuple(sorted(dice))]

    def down(self, x: np.ndarray) -> None:
        """`down` on this lattice (the same arithmetic)."""
        for k in range(self.DICE - 1, -1, -1):
            add = self.ADD[self.LEVELS[k]]
            acc = x[add[:, 0]].copy()
            for j in range(1, FACES):
                acc += x[add[:, j]]
            x[self.LEVELS[k]] = acc * _SIXTH

    def up(self, x: np.ndarray) -> None:
        for k in range(1, self.DICE + 1):
            level = self.LEVELS[k]
            best = x[level]
            for j in range(self.DICE):
                best = np.maximum(best, x[self.REMOVE[level, j]])
            x[level] = best


_LATTICES: dict[int, Lattice] = {}


def lattice(n: int = DICE) -> Lattice:
    """The index tables of `n` dice (built once per process)."""
    if n not in _LATTICES:
        _LATTICES[n] = Lattice(n)
    return _LATTICES[n]
