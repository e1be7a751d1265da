"""The solver against an independent brute-force expectimax on small end games.

The brute force shares nothing with the solver but `row_score` (the rules
layer): it walks ordered dice outcomes, every subset of die positions as a
keep, and applies the upper bonus and the joker of RULES.md section 6 itself.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import product

import numpy as np
import pytest

from yambak.rules import Ruleset, row_score
from yambak.solver import Strategy
from yambak.solver import _dice as D
from yambak.solver import _kernels as K
from yambak.solver._induction import best_box_value, keep_values, last_roll_values
from yambak.solver.objective import MeanScore, TargetProbability


@lru_cache(maxsize=None)
def _outcomes(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Sorted results of throwing n dice, with probabilities, from all 6**n ordered throws."""
    counts = Counter(tuple(sorted(t)) for t in product(range(1, 7), repeat=n))
    return tuple((k, c / 6 ** n) for k, c in counts.items())


class BruteForce:
    """Expectimax over (open rows, upper sum, yam box value) for one ruleset."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.yam_row = rules.joker.row if rules.joker else None

    def entries(self, open_rows: frozenset[str], upper: int, yam: int | None, dice: tuple[int, ...]):
        """(row, points now, next state) for every row the player may fill."""
        rules = self.rules
        rows = {r.id: r for r in rules.rows}
        joker = (self.yam_row is not None and self.yam_row not in open_rows and len(set(dice)) == 1)
        allowed = sorted(open_rows)
        extra = 0
        if joker:
            extra = rules.joker.bonus if yam else 0
            face_row = next((r.id for r in rules.rows if r.is_upper and r.face == dice[0]), None)
            lower = [r for r in allowed if not rows[r].is_upper]
            if face_row in open_rows:
                allowed = [face_row]
            elif lower:
                allowed = lower
        for name in allowed:
            row = rows[name]
            pts = row_score(row, dice, joker=joker and not row.is_upper)
            new_upper, gain = upper, pts + extra
            if row.is_upper:
                new_upper = upper + pts
                ub = rules.upper_bonus
                if ub and upper < ub.threshold <= new_upper:
                    gain += ub.points
            new_yam = pts if name == self.yam_row else yam
            yield name, gain, (open_rows - {name}, new_upper, new_yam)

    @lru_cache(maxsize=None)
    def turn_start(self, open_rows: frozenset[str], upper: int, yam: int | None) -> float:
        if not open_rows:
            return 0.0
        return sum(p * self.after_roll(open_rows, upper, yam, dice, 1) for dice, p in _outcomes(5))

    @lru_cache(maxsize=None)
    def after_roll(self, open_rows, upper, yam, dice, roll) -> float:  # type: ignore[no-untyped-def]
        best = max(gain + self.turn_start(*nxt) for _, gain, nxt in self.entries(open_rows, upper, yam, dice))
        if roll < self.rules.rolls_per_turn:
            for mask in range(31):  # every proper subset of die positions
                kept = tuple(sorted(d for i, d in enumerate(dice) if mask >> i & 1))
                best = max(best, self.after_keep(open_rows, upper, yam, kept, roll))
        return best

    @lru_cache(maxsize=None)
    def after_keep(self, open_rows, upper, yam, kept, roll) -> float:  # type: ignore[no-untyped-def]
        return sum(p * self.after_roll(open_rows, upper, yam, tuple(sorted(kept + o)), roll + 1)
                   for o, p in _outcomes(5 - len(kept)))


def _solver_value(strategy: Strategy, open_rows: set[str], upper: int, yam: int | None) -> float:
    sr = strategy.rules
    ids = [r.id for r in sr.ruleset.rows]
    boxes = sum(1 << i for i, r in enumerate(ids) if r not in open_rows)
    flag = 1 if (sr.n_yam == 2 and yam) else 0
    return float(strategy.table[sr.flat(boxes, min(upper, sr.n_upper - 1), flag), 0])


CASES = {
    "yams": [
        ({"yam"}, 0, None),
        ({"chance"}, 0, 50),
        ({"sixes"}, 50, 50),  # upper bonus at stake in the last box
        ({"sixes", "full_house"}, 45, 50),  # joker: a yam of sixes must go to sixes
        ({"large_straight", "threes"}, 58, 50),
        ({"full_house", "small_straight", "ones"}, 62, 0),  # joker after a scratched yam: no +100
        ({"yam", "fours", "chance"}, 40, None),
    ],
    "yatzy": [
        ({"two_pairs"}, 0, None),
        ({"one_pair", "yam"}, 63, None),
        ({"fives", "full_house", "small_straight"}, 48, None),
    ],
    "yams_fr": [
        ({"sixes", "chance"}, 44, None),
        ({"three_kind", "large_straight", "yam"}, 0, None),
    ],
}


@pytest.mark.parametrize("preset, case", [(p, c) for p, cs in CASES.items() for c in cs],
                         ids=lambda v: v if isinstance(v, str) else "-".join(sorted(v[0])))
def test_end_games_match_brute_force(preset: str, case: tuple, request: pytest.FixtureRequest) -> None:
    strategy: Strategy = request.getfixturevalue(preset)
    open_rows, upper, yam = case
    brute = BruteForce(strategy.ruleset)
    expected = brute.turn_start(frozenset(open_rows), upper, yam)
    assert _solver_value(strategy, open_rows, upper, yam) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("preset", ["yams", "yatzy", "yams_fr"])
def test_hot_path_equals_general_box_values(preset: str, request: pytest.FixtureRequest) -> None:
    """The solver's specialised last-roll pass agrees with the general, joker-aware one."""
    strategy: Strategy = request.getfixturevalue(preset)
    sr = strategy.rules
    rng = np.random.default_rng(7)
    states = np.concatenate([sr.level_states(n) for n in range(sr.n_rows)])
    for objective, table in ((MeanScore(), strategy.table),
                             (TargetProbability(40), rng.random((sr.n_states, 41)))):
        pick = rng.choice(states, 300)
        b, u, y = sr.unflat(pick)
        fast = last_roll_values(sr, table, objective, b, u, y)
        slow = best_box_value(sr, table, objective, b[None], u[None], y[None], np.arange(252)[:, None])
        assert np.array_equal(fast, slow)


def _numpy_stages(last: np.ndarray, rolls: int) -> list[np.ndarray]:
    """The keep lattice in plain numpy, the kernels' oracle: stages[j] = keep values after roll j, stages[0][0] = start.

    Same arithmetic as the kernels (six terms added in order, then times 1/6),
    so the results must agree bit for bit.
    """
    x = np.empty((len(D.MULTISETS),) + last.shape[1:])
    x[D.FULL:] = last
    stages = [x] * rolls
    for j in range(rolls, 0, -1):
        for n in range(D.DICE - 1, -1, -1):  # down: E[k] = mean over d of E[k + d]
            add = D.ADD[D.LEVELS[n]]
            acc = x[add[:, 0]]
            for f in range(1, D.FACES):
                acc += x[add[:, f]]
            acc *= 1.0 / D.FACES
            x[D.LEVELS[n]] = acc
        stages[j - 1] = x.copy()
        if j > 1:
            for n in range(1, D.DICE + 1):  # up: M[k] = max(E[k], M[k - d])
                level = x[D.LEVELS[n]]
                for f in range(D.DICE):
                    np.maximum(level, x[D.REMOVE[D.LEVELS[n]][:, f]], out=level)
    return stages


@pytest.mark.parametrize("preset", ["yams", "yatzy", "yams_fr"])
def test_compiled_widget_equals_numpy_oracle(preset: str, request: pytest.FixtureRequest) -> None:
    """The compiled turn widget (last roll, joker, keep lattice) matches the numpy formulation bit for bit."""
    strategy: Strategy = request.getfixturevalue(preset)
    sr = strategy.rules
    rng = np.random.default_rng(11)
    states = np.concatenate([sr.level_states(n) for n in range(sr.n_rows)])
    pick = np.sort(rng.choice(states, 150, replace=False))  # not a multiple of LANES: a padded tail block
    b, u, y = sr.unflat(pick)
    for table in (strategy.table, rng.random((sr.n_states, 1)) * 300):
        last = best_box_value(sr, table, MeanScore(), b[None], u[None], y[None], np.arange(252)[:, None])
        stages = _numpy_stages(last[:, :, 0], sr.rolls)
        flat = table[:, 0].copy()
        K.mean_turn_starts(flat, pick, K.rule_args(sr), sr.rolls)
        assert np.array_equal(flat[pick], stages[0][0])
        keeps = keep_values(sr, table, pick)
        for j in range(1, sr.rolls):
            assert np.array_equal(keeps[:, j - 1], stages[j].T)


def test_generic_lattice_equals_numpy_oracle(yatzy: Strategy) -> None:
    """Objectives other than MeanScore run the compiled lattice on numpy last-roll values."""
    sr = yatzy.rules
    rng = np.random.default_rng(5)
    objective = TargetProbability(20)
    table = rng.random((sr.n_states, 21))
    pick = rng.choice(sr.level_states(9), 30)
    last = last_roll_values(sr, table, objective, *sr.unflat(pick))  # (252, 30, 21)
    got = K.turn_starts(last.reshape(252, -1), sr.rolls).reshape(30, 21)
    assert np.array_equal(got, _numpy_stages(last, sr.rolls)[0][0])


def test_target_objective_combines_by_shifting_the_need() -> None:
    objective = TargetProbability(3)
    future = np.array([[1.0, 0.5, 0.25, 0.0]])
    out = objective.after_box(np.array([2]), future)
    assert out.tolist() == [[1.0, 1.0, 1.0, 0.5]]
    assert objective.terminal().tolist() == [1.0, 0.0, 0.0, 0.0]
