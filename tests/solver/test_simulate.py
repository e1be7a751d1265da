"""The vectorised optimal player realises the solver's expectation; simulations are reproducible."""

from __future__ import annotations

import numpy as np

from yambak.solver import Strategy, simulate, simulate_blocks
from yambak.solver.simulate import BLOCK


def test_optimal_mean_within_three_standard_errors(yams: Strategy) -> None:
    result = simulate(yams, games=100_000, seed=2024)
    summary = result.summary()
    standard_error = summary["std"] / summary["games"] ** 0.5
    assert abs(summary["mean"] - yams.expected_score) < 3 * standard_error
    assert 0.6 < summary["upper_bonus_rate"] < 0.75


def test_same_seed_same_games(yatzy: Strategy) -> None:
    a = simulate(yatzy, games=600, seed=5)
    b = simulate(yatzy, games=600, seed=5, threads=1)
    c = simulate(yatzy, games=600, seed=6)
    assert (a.scores == b.scores).all()
    assert not (a.scores == c.scores).all()


def test_summary_keys(yams: Strategy) -> None:
    summary = simulate(yams, games=300, seed=1).summary()
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


def test_blocks_are_the_games_of_simulate(yams: Strategy) -> None:
    """`simulate_blocks` streams exactly the games `simulate` keeps, a block at a time."""
    whole = simulate(yams, games=BLOCK + 10, seed=4)
    blocks = list(simulate_blocks(yams, BLOCK + 10, seed=4))
    assert [len(b[0]) for b in blocks] == [BLOCK, 10]
    assert (np.concatenate([b[0] for b in blocks]) == whole.scores).all()


def test_optimal_mean_with_max_gt_min(yams_fr_max_min: Strategy) -> None:
    """The optimal bot, with the pair's lone value carried from turn to turn, realises the table's value."""
    summary = simulate(yams_fr_max_min, games=20_000, seed=77).summary()
    standard_error = summary["std"] / summary["games"] ** 0.5
    assert abs(summary["mean"] - yams_fr_max_min.expected_score) < 3 * standard_error
