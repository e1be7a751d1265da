"""The odds against a brute force written here: every ordered roll of the missing dice, every subset of
dice positions kept, the combinations judged by this file's own predicates (not `rules.scoring`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache
from itertools import product

import numpy as np
import pytest

from yambak.rules import load_ruleset
from yambak.strategy.chance import calculator, odds, turn_stages


def _faces(hand: tuple[int, ...]) -> Counter[int]:
    return Counter(hand)


def _alike(n: int) -> Callable[[tuple[int, ...]], float]:
    return lambda h: float(max(_faces(h).values()) >= n)


def _pairs(k: int) -> Callable[[tuple[int, ...]], float]:
    return lambda h: float(sum(1 for c in _faces(h).values() if c >= 2) >= k)


def _house(a: int, b: int) -> Callable[[tuple[int, ...]], float]:
    def met(h: tuple[int, ...]) -> float:
        c = _faces(h)
        return float(any(c[x] >= a and c[y] >= b for x in range(1, 7) for y in range(1, 7) if x != y))

    return met


def _run(*runs: set[int]) -> Callable[[tuple[int, ...]], float]:
    return lambda h: float(any(r <= set(h) for r in runs))


def _upper(face: int) -> Callable[[tuple[int, ...]], float]:
    return lambda h: float(h.count(face) >= 3)


UPPER = {name: _upper(f) for f, name in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), 1)}
TOTAL = sum  # chance, max: the sum of the dice
YAMS = {
    **UPPER,
    "three_kind": _alike(3),
    "four_kind": _alike(4),
    "full_house": _house(3, 2),
    "small_straight": _run({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}),
    "large_straight": _run({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}),
    "yam": _alike(5),
    "chance": TOTAL,
}
YATZY = {
    **UPPER,
    "one_pair": _pairs(1),
    "two_pairs": _pairs(2),
    "three_kind": _alike(3),
    "four_kind": _alike(4),
    "small_straight": _run({1, 2, 3, 4, 5}),
    "large_straight": _run({2, 3, 4, 5, 6}),
    "full_house": _house(3, 2),
    "chance": TOTAL,
    "yam": _alike(5),
}
MAXI = {
    **YATZY,
    "three_pairs": _pairs(3),
    "five_kind": _alike(5),
    "full_straight": _run({1, 2, 3, 4, 5, 6}),
    "castle": _house(3, 3),
    "tower": _house(4, 2),
    "yam": _alike(6),
}
YAMS_FR = {**YATZY, "max": TOTAL, "min": TOTAL, "full_house": _house(3, 2)}
del YAMS_FR["one_pair"], YAMS_FR["two_pairs"]
LOW = {"min"}


def brute(dice: int, rolls: int, rows: dict[str, Callable[[tuple[int, ...]], float]]) -> dict[str, list[float]]:
    """Every row's figure within 1..rolls rolls: the best over stopping and every subset of positions kept."""
    names = list(rows)
    sign = np.array([-1.0 if n in LOW else 1.0 for n in names])
    outcomes = {m: Counter(tuple(sorted(o)) for o in product(range(1, 7), repeat=m)) for m in range(dice + 1)}

    @cache
    def worth(hand: tuple[int, ...]) -> np.ndarray:
        return sign * np.array([rows[n](hand) for n in names], dtype=float)

    @cache
    def stand_or_keep(hand: tuple[int, ...], left: int) -> np.ndarray:
        best = worth(hand)
        if left:
            for mask in range(1 << dice):
                kept = tuple(sorted(hand[i] for i in range(dice) if mask >> i & 1))
                if len(kept) < dice:
                    best = np.maximum(best, roll(kept, left))
        return best

    @cache
    def roll(kept: tuple[int, ...], left: int) -> np.ndarray:
        """Roll the missing dice now, then `left - 1` more rolls may follow."""
        m = dice - len(kept)
        total = np.zeros(len(names))
        for o, ways in outcomes[m].items():
            total += ways * stand_or_keep(tuple(sorted(kept + o)), left - 1)
        return total / 6**m

    return {n: [float(sign[i] * roll((), k)[i]) for k in range(1, rolls + 1)] for i, n in enumerate(names)}


def _check(preset: str, rows: dict[str, Callable[[tuple[int, ...]], float]], rolls: int = 3) -> None:
    rules = load_ruleset(preset)
    want = brute(rules.rolled_dice, rolls, rows)
    got = {b.box: b for b in odds(rules)}
    for box in got.values():
        assert box.row in want, box.row  # every row has a predicate here
        n = min(rolls, len(box.chances))
        assert box.chances[:n] == pytest.approx(want[box.row][:n], abs=1e-12), box.box
        assert box.expected_sum == (rows[box.row] is TOTAL)


def test_yams_against_brute_force_and_the_yahtzee_figure() -> None:
    _check("yams", YAMS)
    yam = {b.box: b for b in odds(load_ruleset("yams"))}["yam"]
    assert yam.chances[2] == pytest.approx(2_783_176 / 60_466_176, abs=1e-15)  # 4.6029 %
    assert len(yam.chances) == 3


def test_yatzy_against_brute_force() -> None:
    _check("yatzy", YATZY)


def test_maxi_yatzy_six_dice_against_brute_force() -> None:
    _check("maxi-yatzy", MAXI)
    chances = {b.box: b.chances for b in odds(load_ruleset("maxi-yatzy"))}
    assert all(len(c) == 3 for c in chances.values())


def test_saved_rolls_extend_the_turn() -> None:
    """Maxi Yatzy's saved rolls: figures for 4 to 6 rolls, the same expectimax the 1-3 roll figures use
    (checked here on five dice for four rolls, against the brute force)."""
    maxi = {b.box: b for b in odds(load_ruleset("maxi-yatzy"))}
    assert all(len(b.saved) == 3 for b in maxi.values())
    assert maxi["yam"].chances[2] < maxi["yam"].saved[0] < maxi["yam"].saved[1] < maxi["yam"].saved[2]
    assert all(b.saved == () for b in odds(load_ruleset("yatzy")))
    want = brute(5, 4, YATZY)
    rules = load_ruleset("yatzy")
    for row in rules.rows:
        assert turn_stages(rules, row.id, 4).first == pytest.approx(want[row.id][3], abs=1e-12), row.id


def test_multi_column_with_a_dry_column() -> None:
    _check("yams-fr", YAMS_FR)
    boxes = {b.box: b for b in odds(load_ruleset("yams-fr"))}
    assert len(boxes["dry.yam"].chances) == 1 and len(boxes["free.yam"].chances) == 3
    assert boxes["dry.min"].minimise and boxes["free.min"].chances[2] < 12 < boxes["free.max"].chances[2]


def _best_five(f: Callable[[tuple[int, ...]], float]) -> Callable[[tuple[int, ...]], float]:
    """Six dice rolled, five count: the best of the six ways to leave one out."""
    return lambda h: max(f(h[:i] + h[i + 1 :]) for i in range(6))


def test_six_dice_modifier_counts_the_best_five() -> None:
    rules = load_ruleset("yams", modifiers=["six_dice"])
    six = brute(6, 2, {n: _best_five(f) for n, f in YAMS.items()})
    got = {b.box: b.chances for b in odds(rules)}
    for name, want in six.items():
        assert got[name][:2] == pytest.approx(want, abs=1e-12), name


def test_calculator_from_kept_dice() -> None:
    rules = load_ruleset("yams")
    # Holding four sixes with one roll to go: the yam needs the fifth die a six.
    assert calculator(rules, (6, 6, 6, 6), 1)["yam"] == pytest.approx(1 / 6)
    # Two rolls to go: miss twice is (5/6) ** 2.
    assert calculator(rules, (6, 6, 6, 6), 2)["yam"] == pytest.approx(1 - (5 / 6) ** 2)
    # Before the first roll with nothing held: the fresh-turn figure.
    assert calculator(rules, (), 3)["yam"] == pytest.approx(2_783_176 / 60_466_176)
    # Holding 1 2 3 4 with one roll to go: the small straight is made, the large needs a 5.
    got = calculator(rules, (1, 2, 3, 4), 1)
    assert got["small_straight"] == 1.0 and got["large_straight"] == pytest.approx(1 / 6)
    for bad in (((7,), 1), ((1, 1, 1, 1, 1), 1), ((), 4), ((1,), 3)):
        with pytest.raises(ValueError):
            calculator(rules, *bad)  # type: ignore[arg-type]
