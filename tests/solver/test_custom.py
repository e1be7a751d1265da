"""`yambak solve FILE.toml` on a custom ruleset, against an expectimax written here from the rules alone."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from yambak.cli import main

# Three rows, two rolls a turn, an upper bonus of 10 at 9 threes: small enough to enumerate.
TINY = """
id = "tiny"
rolls_per_turn = 2
[upper_bonus]
threshold = 9
points = 10
[[rows]]
id = "threes"
kind = "upper"
face = 3
[[rows]]
id = "pair"
kind = "one_pair"
points = "matched"
[[rows]]
id = "yam"
kind = "yam"
points = 50
[[columns]]
id = "free"
"""


def _score(row: str, hand: tuple[int, ...]) -> int:
    counts = Counter(hand)
    if row == "threes":
        return 3 * counts[3]
    if row == "pair":
        pairs = [v for v, c in counts.items() if c >= 2]
        return 2 * max(pairs) if pairs else 0
    return 50 if len(counts) == 1 else 0


@cache
def _outcomes(k: int) -> tuple[tuple[tuple[int, ...], Fraction], ...]:
    """Every sorted result of k fresh dice with its probability, from the 6**k ordered throws."""
    counts = Counter(tuple(sorted(t)) for t in itertools.product(range(1, 7), repeat=k))
    return tuple((hand, Fraction(c, 6**k)) for hand, c in counts.items())


@cache
def _future(filled: frozenset[str], upper: int) -> Fraction:
    """Expected points still to come from a turn start, playing every turn optimally (exact fractions)."""
    open_rows = [r for r in ("threes", "pair", "yam") if r not in filled]
    if not open_rows:
        return Fraction(0)

    def box(row: str, hand: tuple[int, ...]) -> Fraction:
        points = _score(row, hand)
        if row == "threes":
            bonus = 10 if upper < 9 <= upper + points else 0
            return points + bonus + _future(filled | {row}, min(upper + points, 9))
        return points + _future(filled | {row}, upper)

    @cache
    def last(hand: tuple[int, ...]) -> Fraction:
        return max(box(row, hand) for row in open_rows)

    @cache
    def keep(kept: tuple[int, ...]) -> Fraction:
        return sum((p * last(tuple(sorted(kept + fresh))) for fresh, p in _outcomes(5 - len(kept))), Fraction(0))

    def first(hand: tuple[int, ...]) -> Fraction:
        keeps = {tuple(sorted(c)) for n in range(5) for c in itertools.combinations(hand, n)}
        return max(last(hand), max(keep(k) for k in keeps))

    return sum((p * first(hand) for hand, p in _outcomes(5)), Fraction(0))


def test_solve_a_custom_file_matches_brute_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    assert main(["solve", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = _future(frozenset(), 0)
    assert out["expected_score"] == pytest.approx(float(expected), abs=1e-9)
    # the advisor on the same file agrees with the brute force one turn in
    assert main(["hint", "--rules", str(path), "--filled", "yam=0", "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert advice["value"] == pytest.approx(float(_future(frozenset({"yam"}), 0)), abs=1e-9)
