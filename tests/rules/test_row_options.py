"""Two rules t_games plays, as row options (docs/rulesets.md): five alike counting as a full house without
a joker (`five_alike`), and faces wild in straights (`wild_faces`). Every roll is scored by the engine and by
a brute force written here: a wild die tried as every face, the best five of six dice tried one by one."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from yambak.rules import RulesetError, load_ruleset, row_score

FIVE_ROLLS = list(itertools.product(range(1, 7), repeat=5))  # all 7,776, in every order
SIX_HANDS = list(itertools.combinations_with_replacement(range(1, 7), 6))  # the 462 of six dice

SMALL = [[1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]]
LARGE = [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]]


def ruleset(rows: list[dict], dice: int = 5):  # type: ignore[no-untyped-def]
    return load_ruleset({"id": "t", "dice": dice, "rows": rows, "columns": [{"id": "free"}]})


def full_house_or_five(five: tuple[int, ...], five_alike: bool) -> bool:
    shape = sorted(Counter(five).values())
    return shape == [2, 3] or (five_alike and shape == [5])


def makes_a_run(dice: tuple[int, ...], runs: list[list[int]], wild: set[int]) -> bool:
    """Every way of reading each wild die as a face 1..6 (a non-wild die reads as itself)."""
    choices = [range(1, 7) if d in wild else (d,) for d in dice]
    return any(any(set(run) <= set(read) for run in runs) for read in itertools.product(*choices))


@pytest.mark.parametrize("points", [25, "sum", "matched"])
def test_five_alike_is_a_full_house_on_every_roll(points: object) -> None:
    rules = ruleset(
        [
            {"id": "plain", "kind": "full_house", "points": points},
            {"id": "five", "kind": "full_house", "points": points, "five_alike": True},
        ]
    )
    plain, five = rules.rows
    wrong = []
    for dice in FIVE_ROLLS:
        for row, alike in ((plain, False), (five, True)):
            made = full_house_or_five(dice, alike)
            expected = (points if isinstance(points, int) else sum(dice)) if made else 0
            if row_score(row, dice) != expected:
                wrong.append((row.id, dice))
    assert wrong == []
    assert row_score(five, (4, 4, 4, 4, 4)) == (25 if points == 25 else 20)


def test_five_alike_with_six_dice_scores_the_best_five() -> None:
    rows = ruleset([{"id": "five", "kind": "full_house", "points": "matched", "five_alike": True}], dice=6).rows
    wrong = []
    for hand in SIX_HANDS:
        best = max(
            (sum(five) for five in itertools.combinations(hand, 5) if full_house_or_five(five, True)), default=0
        )
        if row_score(rows[0], hand) != best:
            wrong.append(hand)
    assert wrong == []


@pytest.mark.parametrize("wild", [[1], [1, 6]])
def test_wild_faces_in_straights_on_every_roll(wild: list[int]) -> None:
    rules = ruleset(
        [
            {"id": "small", "kind": "straight", "runs": SMALL, "points": 30, "wild_faces": wild},
            {"id": "large", "kind": "straight", "runs": LARGE, "points": "sum", "wild_faces": wild},
            {"id": "plain", "kind": "straight", "runs": LARGE, "points": 40},
        ]
    )
    small, large, plain = rules.rows
    wrong = []
    for dice in FIVE_ROLLS:
        expected = {
            small: 30 if makes_a_run(dice, SMALL, set(wild)) else 0,
            large: sum(dice) if makes_a_run(dice, LARGE, set(wild)) else 0,
            plain: 40 if makes_a_run(dice, LARGE, set()) else 0,
        }
        for row, value in expected.items():
            if row_score(row, dice) != value:
                wrong.append((row.id, dice))
    assert wrong == []
    assert row_score(large, (1, 3, 4, 5, 6)) == 19  # the 1 is the missing 2
    assert row_score(plain, (1, 3, 4, 5, 6)) == 0


def test_a_wild_full_straight_with_six_dice() -> None:
    run = [[1, 2, 3, 4, 5, 6]]
    (row,) = ruleset([{"id": "full", "kind": "straight", "runs": run, "points": 21, "wild_faces": [1]}], dice=6).rows
    wrong = [h for h in SIX_HANDS if row_score(row, h) != (21 if makes_a_run(h, run, {1}) else 0)]
    assert wrong == []


@pytest.mark.parametrize(
    ("row", "error"),
    [
        ({"id": "x", "kind": "straight", "runs": SMALL, "wild_faces": [0]}, "rows.x.wild_faces"),
        ({"id": "x", "kind": "straight", "runs": SMALL, "wild_faces": [1, 1]}, "rows.x.wild_faces"),
        ({"id": "x", "kind": "straight", "runs": SMALL, "wild_faces": []}, "rows.x.wild_faces"),
        ({"id": "x", "kind": "straight", "runs": SMALL, "wild_faces": 1}, "rows.x.wild_faces"),
        ({"id": "x", "kind": "full_house", "wild_faces": [1]}, "only rows of kind straight"),
        ({"id": "x", "kind": "kind", "n": 3, "five_alike": True}, "only rows of kind full_house"),
        ({"id": "x", "kind": "full_house", "five_alike": 1}, "rows.x.five_alike"),
        ({"id": "x", "kind": "straight", "runs": SMALL, "wild": [1]}, "wild_faces"),
    ],
)
def test_bad_row_options_are_refused_by_name(row: dict, error: str) -> None:
    with pytest.raises(RulesetError) as info:
        ruleset([row])
    assert error in str(info.value)


def test_the_options_leave_other_rows_and_their_fingerprints_alone() -> None:
    """A row without the options keeps the repr its solver tables and fitted models are stored under."""
    plain = ruleset([{"id": "fh", "kind": "full_house", "points": 25}])
    assert "five_alike" not in repr(plain) and "wild_faces" not in repr(plain)
    five = ruleset([{"id": "fh", "kind": "full_house", "points": 25, "five_alike": True}])
    assert five.variant_key() != plain.variant_key() and "five_alike=True" in repr(five)



def _best_chance_in_three_rolls(made) -> float:  # type: ignore[no-untyped-def]
    """P(ending a turn of three rolls in a hand `made` accepts) under the best keeps, by brute force:
    every sub-multiset kept, every outcome of the dice rolled again with its multinomial chance."""
    from functools import cache
    from math import factorial

    def outcomes(k: int) -> list[tuple[tuple[int, ...], float]]:
        out = []
        for roll in itertools.combinations_with_replacement(range(1, 7), k):
            ways = factorial(k)
            for n in Counter(roll).values():
                ways //= factorial(n)
            out.append((roll, ways / 6**k))
        return out

    @cache
    def after_roll(hand: tuple[int, ...], left: int) -> float:
        if left == 0:
            return 1.0 if made(hand) else 0.0
        keeps = {tuple(sorted(k)) for r in range(6) for k in itertools.combinations(hand, r)}
        return max(kept(k, left) for k in keeps)

    @cache
    def kept(keep: tuple[int, ...], left: int) -> float:
        if len(keep) == 5:
            return after_roll(keep, left - 1)
        return sum(p * after_roll(tuple(sorted(keep + roll)), left - 1) for roll, p in outcomes(5 - len(keep)))

    return kept((), 3)


def test_the_exact_solver_takes_both_options_as_the_engine_scores_them(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A one-box sheet: the solver's optimum is the row's points times the best chance of making it in a turn,
    found here by brute force over every keep (the solver reads the engine's row scores, so the new
    options need nothing of its own)."""
    from yambak.solver import solve

    rules = ruleset([{"id": "s", "kind": "straight", "runs": LARGE, "points": 30, "wild_faces": [1]}])
    chance = _best_chance_in_three_rolls(lambda hand: makes_a_run(hand, LARGE, {1}))
    assert solve(rules, folder=tmp_path).expected_score == pytest.approx(30 * chance, abs=1e-9)
    plain = _best_chance_in_three_rolls(lambda hand: makes_a_run(hand, LARGE, set()))
    assert chance > plain  # the wild 1 helps
    rules = ruleset([{"id": "f", "kind": "full_house", "points": 25, "five_alike": True}])
    chance = _best_chance_in_three_rolls(lambda hand: full_house_or_five(hand, True))
    assert solve(rules, folder=tmp_path).expected_score == pytest.approx(25 * chance, abs=1e-9)
