"""The odds behind a trainer answer are the strategy calculator's, and the calculator's agree with a brute
force written here for small cases."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from itertools import combinations, product

import pytest

from yambak.rules import load_ruleset
from yambak.strategy import calculator
from yambak.trainer import Choice, PoolSpec, Puzzle, PuzzleOption, generate_pool, grade, keep_odds


@pytest.fixture(scope="module")
def pool() -> tuple[Puzzle, ...]:
    return generate_pool(PoolSpec("yams", size=6, seed=5))


def _figures(odds: dict) -> dict[str, float]:
    return {r["row"]: r["chance"] if "chance" in r else r["expected_sum"] for r in odds["rows"]}


def test_a_graded_keeps_odds_are_the_calculators(pool: tuple[Puzzle, ...]) -> None:
    rules = load_ruleset("yams")
    keeps = 0
    for puzzle in pool:
        for option in puzzle.options:
            out = grade(puzzle, option.choice, odds=keep_odds).to_dict()
            chosen = out["chosen"]
            assert set(out["odds"]) >= {option.label, *(b["label"] for b in out["best"])}
            if option.choice.kind != "keep":
                assert chosen["odds"] is None
                continue
            keeps += 1
            left = 3 - puzzle.roll
            assert chosen["odds"]["rolls_left"] == left and chosen["odds"]["keep"] == list(option.choice.keep)
            expected = calculator(rules, option.choice.keep, left, "free")
            got = _figures(chosen["odds"])
            assert set(got) == set(expected)
            for row, value in expected.items():
                assert got[row] == pytest.approx(value, abs=1e-4)
            assert {r["row"] for r in chosen["odds"]["rows"] if "expected_sum" in r} == {"chance"}
    assert keeps > 0


# --- a brute force over every roll and every keep, for one row --------------------------------------------


def _brute(makes, kept: tuple[int, ...], rolls_left: int, n: int = 5) -> float:
    @cache
    def value(keep: tuple[int, ...], left: int) -> float:  # holding `keep`, before a roll
        outcomes = list(product(range(1, 7), repeat=n - len(keep)))
        return sum(best(tuple(sorted(keep + o)), left - 1) for o in outcomes) / len(outcomes)

    @cache
    def best(hand: tuple[int, ...], left: int) -> float:  # after a roll: stop, or hold some and roll
        out = float(makes(hand))
        if left:
            subs = {tuple(sorted(c)) for k in range(n) for c in combinations(hand, k)}
            out = max(out, *(value(s, left) for s in subs))
        return out

    return value(tuple(sorted(kept)), rolls_left)


def _yam(hand: tuple[int, ...]) -> bool:
    return len(set(hand)) == 1


def _four(hand: tuple[int, ...]) -> bool:
    return max(hand.count(f) for f in set(hand)) >= 4


def _odds_for(pool: tuple[Puzzle, ...], keep: tuple[int, ...], roll: int) -> dict[str, float]:
    puzzle = replace(pool[0], roll=roll)  # the odds read the ruleset and the roll only
    odds = keep_odds(puzzle, PuzzleOption(Choice("keep", keep), "keep", 0.0, 0.0))
    assert odds is not None
    return _figures(odds)


def test_four_sixes_with_one_roll_left_make_a_yam_one_time_in_six(pool: tuple[Puzzle, ...]) -> None:
    got = _odds_for(pool, (6, 6, 6, 6), roll=2)
    assert got["yam"] == pytest.approx(1 / 6, abs=1e-6) == pytest.approx(_brute(_yam, (6, 6, 6, 6), 1))
    assert got["four_kind"] == pytest.approx(1.0) and got["sixes"] == pytest.approx(1.0)
    assert got["chance"] == pytest.approx(24 + 3.5, abs=1e-4)


def test_three_sixes_with_two_rolls_left_agree_with_the_brute_force(pool: tuple[Puzzle, ...]) -> None:
    got = _odds_for(pool, (6, 6, 6), roll=1)
    assert got["yam"] == pytest.approx(121 / 1296, abs=1e-6) == pytest.approx(_brute(_yam, (6, 6, 6), 2))
    assert got["four_kind"] == pytest.approx(_brute(_four, (6, 6, 6), 2), abs=1e-6)


def test_a_box_has_no_odds(pool: tuple[Puzzle, ...]) -> None:
    box = next(o for o in pool[0].options if o.choice.kind == "box")
    assert keep_odds(pool[0], box) is None
