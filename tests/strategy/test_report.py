"""What the best play scores and the opening table, against the solver, the advisor and the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from yambak.rules import load_ruleset
from yambak.solver import Position, Strategy, advise, simulate
from yambak.solver import dice as D
from yambak.strategy import build
from yambak.strategy.openings import pattern_of
from yambak.strategy.report import openings_exact


def test_openings_are_the_advisors_best_on_all_252_first_rolls(yams: Strategy) -> None:
    table = openings_exact(yams)
    assert len(table) == 252 and len({o.roll for o in table}) == 252
    for o in table:
        advice = advise(yams, Position(filled={}, dice=o.roll, roll=1), compiled=False)
        values = sorted((c.value for c in advice.keeps + advice.boxes), reverse=True)
        assert advice.best is not None and o.best == advice.best.to_dict()
        assert o.best["value"] == pytest.approx(values[0], abs=1e-9)
        assert o.runner_up is not None and o.runner_up["value"] == pytest.approx(values[1], abs=1e-9)
        assert o.loss == pytest.approx(values[0] - values[1], abs=1e-9) and o.loss >= 0
    by_roll = {o.roll: o for o in table}
    assert by_roll[(6, 6, 6, 6, 6)].best["box"] == "yam"
    assert by_roll[(2, 3, 4, 5, 6)].best["box"] == "large_straight"


def test_yatzy_figures_add_up_and_match_the_simulator(yatzy: Strategy) -> None:
    rules = load_ruleset("yatzy")
    games = 3000
    data = build(rules, games=games, seed=7)
    assert data.exact and data.expected_score == pytest.approx(yatzy.expected_score, abs=1e-9)
    plain = simulate(yatzy, games, seed=7)
    assert data.scores is not None and data.scores.games == games
    assert data.scores.mean == pytest.approx(float(plain.scores.mean()), abs=1e-9)
    assert data.scores.percentiles["50"] == pytest.approx(float(np.percentile(plain.scores, 50)))
    assert data.bonus_chance["free"] == pytest.approx(float(plain.upper_bonus.mean()), abs=1e-12)
    # Yatzy has no joker: a game's score is its boxes plus the upper bonus, so the means add up.
    assert rules.joker is None and rules.upper_bonus is not None
    boxes = sum(b.mean for b in data.boxes)
    assert data.scores.mean == pytest.approx(boxes + rules.upper_bonus.points * data.bonus_chance["free"], abs=1e-9)
    assert all(0 <= b.zero <= 1 and b.usual_turn is not None and 1 <= b.usual_turn <= 15 for b in data.boxes)
    assert sum(count for _, count in data.scores.histogram) == games
    assert len(data.openings) == 252 and sum(r.rolls for r in data.rules) == 252
    assert all(0 <= r.correct <= r.rolls for r in data.rules)


def _upper_fill(total: int) -> dict[str, int] | None:
    """Values for ones..fours (each face times 0..5 dice) summing to `total`, if any."""
    for c1 in range(6):
        for c2 in range(6):
            for c3 in range(6):
                rest = total - c1 - 2 * c2 - 3 * c3
                if rest >= 0 and rest % 4 == 0 and rest // 4 <= 5:
                    return {"ones": c1, "twos": 2 * c2, "threes": 3 * c3, "fours": rest}
    return None


def test_par_worth_is_the_advisors_value_difference(yams: Strategy) -> None:
    from yambak.strategy.report import par_worth

    par = par_worth(yams)
    assert par and all(p.par == 30 for p in par)
    base = advise(yams, Position(filled=_upper_fill(30) or {})).value
    for p in par:
        fill = _upper_fill(30 + p.k)
        assert fill is not None
        assert p.worth == pytest.approx(advise(yams, Position(filled=fill)).value - base, abs=1e-6), p.k
    worth = {p.k: p.worth for p in par}
    assert worth[0] == 0 and worth[3] > 3 and worth[-3] < -3  # the bonus makes par points worth more than their face


def test_patterns_and_rules() -> None:
    assert pattern_of((1, 2, 3, 4, 6)) == "no pair, a run of 4"
    assert pattern_of((6, 6, 6, 6, 6)) == "five alike"
    assert pattern_of((2, 2, 5, 5, 1)) == "two pairs"
    assert sum(1 for r in range(D.N_ROLLS) if pattern_of(D.MULTISETS[D.FULL + r]) == "five alike") == 6


def test_estimate_on_a_multi_column_sheet_is_labelled() -> None:
    data = build(load_ruleset("yams-fr"), games=2)
    out = data.to_json()
    assert build(load_ruleset("yams-fr"), games=2, workers=2).to_json() == out  # the same games in workers
    assert out["exact"] is False and out["games"] == 2 and out["stderr"] >= 0 and out["bot"] == "strong"
    assert set(out["bonus_chance"]) == {"down", "free", "up", "dry"}
    assert len(out["odds"]["dry.yam"]) == 1 and len(out["odds"]["free.yam"]) == 3
