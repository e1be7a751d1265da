"""The engine and the solver agree on every box, wherever the solver covers a ruleset.

Both read the same ruleset data but compute box outcomes independently: the engine
through `state.outlook()` (what a face shows), the solver through its score tables
(what the advisor and the optimal bot use). Over random positions of every
one-column preset the solver handles, the legal boxes and what each entry adds to
the total (bonuses, joker, zeroed pairs included) must be the same. With strike_any
the solver's box is the better of writing and striking: one of the engine's two.
"""

from __future__ import annotations

import random

import pytest

from tests.conftest import play_random
from yambak.engine import Roll
from yambak.solver import Strategy, advise
from yambak.solver.advisor import position_of

FIXTURES = ["yams", "yatzy", "yams_fr", "yams_fr_max_min", "yams_fr_max_min_free"]


@pytest.mark.parametrize("name", FIXTURES)
def test_engine_gain_equals_solver_points_on_random_positions(name: str, request: pytest.FixtureRequest) -> None:
    strategy: Strategy = request.getfixturevalue(name)
    rules = strategy.ruleset
    rng = random.Random(name)
    checked = 0
    for seed in range(40):
        state = play_random(rules, 1, seed=hash((name, seed)) % 10**6, steps=rng.randrange(0, 3 * rules.n_boxes))
        if state.finished:
            continue
        if not state.turn.rolls:
            state, _ = state.apply(Roll(0))
        for _ in range(rng.randrange(0, rules.rolls_per_turn)):
            if state.can_roll(0):
                state, _ = state.apply(Roll(0, held=tuple(i for i in range(4) if rng.random() < 0.5)))
        outlook = state.outlook(0)
        engine = {b.box.rpartition(".")[2]: {b.gain, b.strike_gain} - {None} for b in outlook.boxes if b.legal}
        advice = advise(strategy, position_of(state))
        solver = {c.box: c.points for c in advice.boxes}
        assert engine.keys() == solver.keys(), (name, state.sheets[0].written, state.dice)
        for box, points in solver.items():
            assert points in engine[box], (name, box, state.sheets[0].written, state.dice)
        checked += 1
    assert checked >= 30
