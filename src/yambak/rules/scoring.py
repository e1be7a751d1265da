"""Row kinds: how the dice that count score in one box (docs/rules.md §2, docs/rulesets.md).

`row_score(row, dice, roll)` is the value written in the box; 0 is a scratch.
The dice are the ones that count: five, or six where a ruleset has `dice = 6`.
Results are cached per (row, sorted dice, roll): there are only 252 five-dice
and 462 six-dice multisets, so every row's table fills after a few games.
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


def _alike(row: Row, counts: tuple[int, ...], n: int) -> list[int]:
    """Faces shown n times (exactly n for an `exact` row, else at least n), highest first."""
    if row.exact:
        return [v for v in range(6, 0, -1) if counts[v] == n]
    return [v for v in range(6, 0, -1) if counts[v] >= n]


def _pair_sets(row: Row, counts: tuple[int, ...], k: int) -> list[tuple[int, ...]]:
    """Sets of k different faces each shown at least twice (one colour when `same_colour`), best first."""
    faces = [v for v in range(6, 0, -1) if counts[v] >= 2]
    out: list[tuple[int, ...]] = []

    def grow(start: int, chosen: tuple[int, ...]) -> None:
        if len(chosen) == k:
            if not row.same_colour or len({row.colours[v] for v in chosen}) == 1:
                out.append(chosen)
            return
        for i in range(start, len(faces)):
            grow(i + 1, chosen + (faces[i],))

    grow(0, ())
    return sorted(out, key=lambda faces_: (-sum(faces_), faces_))


def _houses(row: Row, counts: tuple[int, ...]) -> list[tuple[int, int]]:
    """(x, y) of two different faces with x shown at least a times and y at least b times (a, b the
    row's sizes), one colour when `same_colour`."""
    a, b = row.house
    out = []
    for x in range(1, 7):
        for y in range(1, 7):
            if x != y and counts[x] >= a and counts[y] >= b:
                if not row.same_colour or row.colours[x] == row.colours[y]:
                    out.append((x, y))
    return out


def _met(row: Row, dice: tuple[int, ...], counts: tuple[int, ...]) -> bool:
    kind = row.kind
    if kind in ("upper", "sum"):
        return True
    if kind == "kind":
        return bool(_alike(row, counts, row.n))
    if kind == "one_pair":
        return bool(_pair_sets(row, counts, 1))
    if kind == "two_pairs":
        return bool(_pair_sets(row, counts, 2))
    if kind == "three_pairs":
        return bool(_pair_sets(row, counts, 3))
    if kind in ("full_house", "house"):
        return bool(_houses(row, counts)) or (row.five_alike and max(counts) >= 5)
    if kind == "straight":
        if row.wild_faces:  # each wild die stands for one face of the run that the other dice miss
            wild = sum(counts[f] for f in row.wild_faces)
            shown = {d for d in dice if d not in row.wild_faces}
            return any(len(run - shown) <= wild for run in row.runs)
        present = set(dice)
        return any(run <= present for run in row.runs)
    if kind == "flush":
        return len({row.colours[d] for d in dice}) == 1
    if kind == "yam":
        return max(counts) >= len(dice)
    raise ValueError(f"unknown row kind {kind!r}")


def _matched(row: Row, counts: tuple[int, ...], n_dice: int) -> int:
    """The dice that make the combination, summed (the best such dice where there is a choice)."""
    kind = row.kind
    if kind == "kind":
        return row.n * _alike(row, counts, row.n)[0]
    if kind in ("one_pair", "two_pairs", "three_pairs"):
        k = {"one_pair": 1, "two_pairs": 2, "three_pairs": 3}[kind]
        return 2 * sum(_pair_sets(row, counts, k)[0])
    if kind in ("full_house", "house"):
        a, b = row.house
        made = [a * x + b * y for x, y in _houses(row, counts)]
        if row.five_alike:
            made += [5 * v for v in range(1, 7) if counts[v] >= 5]
        return max(made)
    if kind == "yam":
        return n_dice * max(v for v in range(1, 7) if counts[v])
    raise ValueError(f"row kind {kind!r} has no matched dice")


def row_met(row: Row, dice: Sequence[int]) -> bool:
    """Whether the dice meet the row's condition."""
    key = tuple(sorted(dice))
    return _met(row, key, counts_of(key))


@cache
def _score(row: Row, dice: tuple[int, ...], roll: int, joker: bool) -> int:
    return _points(row, dice, roll, joker)


def _points(row: Row, dice: tuple[int, ...], roll: int, joker: bool) -> int:
    """`_score` uncached: kept apart so that mutation testing (docs/testing.md) reaches it, as mutmut
    leaves a decorated function's body alone."""
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
        value = _matched(row, counts, len(dice)) if _met(row, dice, counts) else sum(dice)
    else:
        value = points
    return value + row.bonus


def row_score(row: Row, dice: Sequence[int], roll: int = 3, joker: bool = False) -> int:
    """Points the dice write in a box of this row after roll number `roll` (1-based)."""
    return _score(row, tuple(sorted(dice)), roll, joker)
