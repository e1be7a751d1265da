"""The optimal bot realises the solver's expectation; simulations are reproducible."""

from __future__ import annotations

import pytest

from yambak.solver import Strategy, simulate


def test_optimal_mean_within_three_standard_errors(yams: Strategy) -> None:
    result = simulate(yams, "optimal", games=100_000, seed=2024)
    summary = result.summary()
    standard_error = summary["std"] / summary["games"] ** 0.5
    assert abs(summary["mean"] - yams.expected_score) < 3 * standard_error
    assert 0.6 < summary["upper_bonus_rate"] < 0.75


def test_same_seed_same_games(yatzy: Strategy) -> None:
    a = simulate(yatzy, "optimal", games=600, seed=5)
    b = simulate(yatzy, "optimal", games=600, seed=5)
    c = simulate(yatzy, "optimal", games=600, seed=6)
    assert (a.scores == b.scores).all()
    assert not (a.scores == c.scores).all()


@pytest.mark.parametrize("bot, low, high", [("greedy", 120, 200), ("random", 20, 80)])
def test_simple_bots_play_legal_games(yams: Strategy, bot: str, low: float, high: float) -> None:
    summary = simulate(yams.rules, bot, games=3000, seed=1).summary()
    assert low < summary["mean"] < high
    assert set(summary) == {
        "preset",
        "bot",
        "games",
        "mean",
        "std",
        "percentiles",
        "upper_bonus_rate",
        "yam_rate",
        "seconds",
    }
    assert list(summary["percentiles"]) == ["5", "25", "50", "75", "95"]


def test_optimal_beats_greedy(yams_fr: Strategy) -> None:
    optimal = simulate(yams_fr, "optimal", games=2000, seed=3).summary()["mean"]
    greedy = simulate(yams_fr.rules, "greedy", games=2000, seed=3).summary()["mean"]
    assert optimal > greedy + 30


def test_unknown_bot(yams: Strategy) -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        simulate(yams, "clever", games=10)


def test_optimal_mean_with_max_gt_min(yams_fr_max_min: Strategy) -> None:
    """The optimal bot, with the pair's lone value carried from turn to turn, realises the table's value."""
    summary = simulate(yams_fr_max_min, "optimal", games=20_000, seed=77).summary()
    standard_error = summary["std"] / summary["games"] ** 0.5
    assert abs(summary["mean"] - yams_fr_max_min.expected_score) < 3 * standard_error
    for bot in ("greedy", "random"):
        assert simulate(yams_fr_max_min.rules, bot, games=500, seed=2).summary()["mean"] > 0
