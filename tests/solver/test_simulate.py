"""The vectorised optimal player realises the solver's expectation; simulations are reproducible."""

from __future__ import annotations

import numpy as np
import pytest

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


@pytest.mark.parametrize("preset", ["yams", "yatzy", "yams_fr_max_min"])
def test_compiled_turns_play_the_optimal_policy(preset: str, request: pytest.FixtureRequest) -> None:
    """The compiled game loop (keeps and boxes chosen in the kernel) scores the table's expectation, as
    the numpy reference loop does; from a mid-game state too (the win chances' opponents)."""
    import numpy as np

    from yambak.solver.simulate import _Optimal, _play_block, _play_block_compiled, remaining_scores

    strategy = request.getfixturevalue(preset)
    sr = strategy.rules
    fast = _play_block_compiled(sr, strategy, np.random.default_rng(3), 20000, 2)[0]
    slow, _, _ = _play_block(sr, strategy, _Optimal(strategy, 2), np.random.default_rng(4), 4000)
    for scores in (fast, slow):
        se = scores.std() / np.sqrt(len(scores))
        assert abs(scores.mean() - strategy.expected_score) < 4 * se
    b, u, y = sr.unflat(np.array([sr.level_states(sr.n_rows - 4)[7]]))
    rest = remaining_scores(strategy, int(b[0]), int(u[0]), int(y[0]), 8000, seed=2)
    expected = float(strategy.table[sr.flat(b, u, y)[0], 0])
    assert abs(rest.mean() - expected) < 4 * rest.std() / np.sqrt(len(rest)) + 1e-9
