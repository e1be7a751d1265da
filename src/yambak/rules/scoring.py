"""Row kinds: how five dice score in one box (docs/rules.md §2).

`row_score(row, dice, roll)` is the value written in the box; 0 is a scratch.
Results are cached per (row, sorted dice, roll): there are only 252 five-dice
multisets, so every row's table fills after a few games.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from .model import Row

__all__ = ["row_met", "row_score", "counts_of"]


def counts_of(dice: Sequence[int]) -> tuple[int, ...]:
    """counts[v] = number of dice showing v (index 0 unused)."""
    counts = [0] * 7
    for d in dice:
        counts[d] += 1
    return tuple(counts)


def _kind_value(counts: tuple[int, ...], n: int) -> int:
    """The highest face shown at least n times, or 0."""
    for v in range(6, 0, -1):
        if counts[v] >= n:
            return v
    return 0


def _pairs(counts: tuple[int, ...]) -> list[int]:
    """Faces shown at least twice, highest first."""
    return [v for v in range(6, 0, -1) if counts[v] >= 2]


def _met(row: Row, dice: tuple[int, ...], counts: tuple[int, ...]) -> bool:
    kind = row.kind
    if kind in ("upper", "sum"):
        return True
    if kind == "kind":
        return _kind_value(counts, row.n) > 0
    if kind == "one_pair":
        return bool(_pairs(counts))
    if kind == "two_pairs":
        return len(_pairs(counts)) >= 2
    if kind == "full_house":
        return sorted(c for c in counts if c) == [2, 3]
    if kind == "straight":
        present = set(dice)
        return any(run <= present for run in row.runs)
    if kind == "yam":
        return max(counts) >= 5
    raise ValueError(f"unknown row kind {kind!r}")


def _matched(row: Row, counts: tuple[int, ...]) -> int:
    """The dice that make the combination, summed."""
    if row.kind == "kind":
        return row.n * _kind_value(counts, row.n)
    if row.kind == "one_pair":
        return 2 * _pairs(counts)[0]
    if row.kind == "two_pairs":
        top = _pairs(counts)[:2]
        return 2 * (top[0] + top[1])
    if row.kind == "yam":
        return 5 * _kind_value(counts, 5)
    raise ValueError(f"row kind {row.kind!r} has no matched dice")


def row_met(row: Row, dice: Sequence[int]) -> bool:
    """Whether the dice meet the row's condition."""
    key = tuple(sorted(dice))
    return _met(row, key, counts_of(key))


@cache
def _score(row: Row, dice: tuple[int, ...], roll: int, joker: bool) -> int:
    counts = counts_of(dice)
    if row.kind == "upper":
        return row.face * counts[row.face]
    # Under the Yahtzee joker a yam counts as a full house and as every straight.
    met = _met(row, dice, counts) or (joker and row.kind in ("full_house", "straight"))
    if not met:
        return 0
    points = row.points
    if isinstance(points, tuple):
        value = points[min(roll, len(points)) - 1]
    elif points == "sum":
        value = sum(dice)
    elif points == "matched":
        value = _matched(row, counts)
    else:
        value = points
    return value + row.bonus


def row_score(row: Row, dice: Sequence[int], roll: int = 3, joker: bool = False) -> int:
    """Points the dice write in a box of this row after roll number `roll` (1-based)."""
    return _score(row, tuple(sorted(dice)), roll, joker)
