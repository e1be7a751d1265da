"""The solver against an independent brute-force expectimax on small end games.

The brute force shares nothing with the solver but `row_score` (the rules
layer): it walks ordered dice outcomes, every subset of die positions as a
keep, and applies the upper bonus and the joker of docs/rules.md §6 itself.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import product

import numpy as np
import pytest

from yambak.rules import Ruleset, row_score
from yambak.solver import Strategy
from yambak.solver import _kernels as K
from yambak.solver import dice as D
from yambak.solver._induction import best_box_value, keep_values, last_roll_values
from yambak.solver.objective import MeanScore, TargetProbability


@cache
def _outcomes(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Sorted results of throwing n dice, with probabilities, from all 6**n ordered throws."""
    counts = Counter(tuple(sorted(t)) for t in product(range(1, 7), repeat=n))
    return tuple((k, c / 6**n) for k, c in counts.items())


@cache
def _rerolls(kept: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], float], ...]:
    """The sorted dice after rolling the others again, with probabilities."""
    return tuple((tuple(sorted(kept + o)), p) for o, p in _outcomes(5 - len(kept)))


@cache
def _keeps(dice: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    """The dice kept by every proper subset of die positions, sorted, each told once (the same sorted
    dice come back in every state: worked out once, not 31 times per state)."""
    return frozenset(tuple(sorted(d for i, d in enumerate(dice) if mask >> i & 1)) for mask in range(31))


class BruteForce:
    """Expectimax over (open rows, upper sum, yam box value, lone pair value) for one ruleset.

    `pend` is the value written in the one filled box of a `max_gt_min` pair
    (None while the pair is empty or complete); with `strike_any` every box may
    also be struck for 0, and a struck pair box is the value 0 in the relation.
    """

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.yam_row = rules.joker.row if rules.joker else None
        self.relation = rules.relations[0] if rules.relations else None

    def entries(
        self, open_rows: frozenset[str], upper: int, yam: int | None, dice: tuple[int, ...], pend: int | None = None
    ):
        """(row, points now, next state) for every row the player may fill (and every value it may write)."""
        rules = self.rules
        rows = {r.id: r for r in rules.rows}
        joker = self.yam_row is not None and self.yam_row not in open_rows and len(set(dice)) == 1
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
        rel = self.relation
        for name in allowed:
            row = rows[name]
            pts = row_score(row, dice, joker=joker and not row.is_upper)
            for written in sorted({pts, 0} if rules.strike_any else {pts}):
                new_upper, gain = upper, written + extra
                if row.is_upper:
                    new_upper = upper + written
                    ub = rules.upper_bonus
                    if ub and upper < ub.threshold <= new_upper:
                        gain += ub.points
                new_yam = written if name == self.yam_row else yam
                new_pend = pend
                if rel is not None and name in (rel.high, rel.low):
                    partner = rel.low if name == rel.high else rel.high
                    if partner in open_rows:
                        new_pend = written
                    else:  # the pair is complete: both score 0 unless high > low
                        high, low = (written, pend) if name == rel.high else (pend, written)
                        gain = written if high > low else -pend
                        new_pend = None
                yield name, gain, (open_rows - {name}, new_upper, new_yam, new_pend)

    @cache
    def turn_start(self, open_rows: frozenset[str], upper: int, yam: int | None, pend: int | None = None) -> float:
        if not open_rows:
            return 0.0
        return sum(p * self.after_roll((open_rows, upper, yam, pend), dice, 1) for dice, p in _outcomes(5))

    @cache
    def after_roll(self, state, dice, roll) -> float:  # type: ignore[no-untyped-def]
        open_rows, upper, yam, pend = state
        best = max(gain + self.turn_start(*nxt) for _, gain, nxt in self.entries(open_rows, upper, yam, dice, pend))
        if roll < self.rules.rolls_per_turn:
            for kept in _keeps(dice):  # every proper subset of die positions
                best = max(best, self.after_keep(state, kept, roll))
        return best

    @cache
    def after_keep(self, state, kept, roll) -> float:  # type: ignore[no-untyped-def]
        return sum(p * self.after_roll(state, dice, roll + 1) for dice, p in _rerolls(kept))


def _solver_value(
    strategy: Strategy, open_rows: set[str], upper: int, yam: int | None, pend: int | None = None
) -> float:
    sr = strategy.rules
    ids = [r.id for r in sr.ruleset.rows]
    boxes = sum(1 << i for i, r in enumerate(ids) if r not in open_rows)
    if pend is not None:  # the lone filled box of the max_gt_min pair holds `pend`
        boxes |= int(sr.pend_index[pend]) << sr.n_rows
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
    # max_gt_min on (docs/rules.md §5): max or min still open, the other holding a value or struck (0).
    "yams_fr_max_min": [
        ({"max", "min"}, 0, None),
        ({"max"}, 0, None, 24),  # min holds 24: max must roll 25 or more
        ({"max"}, 0, None, 0),  # min struck: any max stands
        ({"min"}, 0, None, 9),  # max holds 9: min must stay below
        ({"min"}, 0, None, 0),  # max struck: the pair is lost whatever min writes
        ({"min", "chance"}, 20, None, 27),
        ({"max", "sixes"}, 45, None, 14),  # the upper bonus at stake too
        ({"max", "min", "yam"}, 0, None),
    ],
    "yams_fr_max_min_free": [
        ({"max", "min"}, 0, None),
        ({"min", "three_kind"}, 63, None),
    ],
}


@pytest.mark.parametrize(
    "preset, case",
    [(p, c) for p, cs in CASES.items() for c in cs],
    ids=lambda v: v if isinstance(v, str) else "-".join(sorted(v[0])),
)
def test_end_games_match_brute_force(preset: str, case: tuple, request: pytest.FixtureRequest) -> None:
    strategy: Strategy = request.getfixturevalue(preset)
    open_rows, upper, yam, *pend = case
    brute = BruteForce(strategy.ruleset)
    expected = brute.turn_start(frozenset(open_rows), upper, yam, *pend)
    assert _solver_value(strategy, open_rows, upper, yam, *pend) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("preset", ["yams", "yatzy", "yams_fr"])
def test_hot_path_equals_general_box_values(preset: str, request: pytest.FixtureRequest) -> None:
    """The solver's specialised last-roll pass agrees with the general, joker-aware one."""
    strategy: Strategy = request.getfixturevalue(preset)
    sr = strategy.rules
    rng = np.random.default_rng(7)
    states = np.concatenate([sr.level_states(n) for n in range(sr.n_rows)])
    for objective, table in ((MeanScore(), strategy.table), (TargetProbability(40), rng.random((sr.n_states, 41)))):
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
    x[D.FULL :] = last
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


@pytest.mark.parametrize("preset", ["yams", "yatzy", "yams_fr", "yams_fr_max_min"])
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


def test_relation_keys_round_trip(yams_fr_max_min: Strategy) -> None:
    """The compact layout of a max_gt_min ruleset: every slot has one key, and back."""
    sr = yams_fr_max_min.rules
    assert sr.ruleset.rows[sr.rel_high].id == "max" and sr.ruleset.rows[sr.rel_low].id == "min"
    assert sr.pend_values.tolist() == [0] + list(range(5, 31))
    slots = np.arange(sr.n_slots)
    assert np.array_equal(sr.slot(sr.unslot(slots)), slots)
    pick = np.random.default_rng(3).choice(np.concatenate([sr.level_states(n) for n in (1, 8, 14)]), K.LANES)
    lanes = [np.empty(K.LANES, np.int64) for _ in range(3)]
    assert K._load_block(pick, 0, K.rule_args(sr), *lanes) == K.LANES
    assert all(np.array_equal(a, b) for a, b in zip(lanes, sr.unflat(pick), strict=False))  # compiled unflatten agrees
    b, u, y = sr.unflat(pick)
    assert np.array_equal(sr.flat(b, u, y), pick)
    flat = [K._flat(int(k), int(v), int(w), K.rule_args(sr)) for k, v, w in zip(b, u, y, strict=True)]
    assert np.array_equal(flat, pick)


def test_relation_needs_the_mean_objective(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from yambak.solver import UnsupportedRuleset, solve

    with pytest.raises(UnsupportedRuleset, match="MeanScore"):
        solve("yams-fr", {"columns": 1}, objective=TargetProbability(50), folder=tmp_path)
    assert not list(tmp_path.iterdir())
