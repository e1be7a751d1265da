"""The solver on the family's rules (the free joker, a stepped bonus, points by roll number, an
outright win, a box that needs another, min below max at entry) against an independent brute force
on end games, its compiled widget against the numpy formulation, and Verhoeff's published optimum."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from tests.solver.test_induction import _keeps, _numpy_stages, _outcomes, _rerolls
from yambak.rules import Ruleset, load_ruleset, row_score
from yambak.solver import Strategy, solve
from yambak.solver import _kernels as K
from yambak.solver._induction import best_box_value, keep_values
from yambak.solver.objective import MeanScore

YAMS_DE_ONE = {"extends": "yams-de", "id": "yams-de-one", "columns": [{"id": "normal", "order": "free"}]}


class FamilyBrute:
    """Expectimax over (open rows, upper sum, flag, lone pair value), written from docs/rulesets.md with
    nothing of the solver but `row_score`: `flag` is whether the joker's yam row (or the row another
    one needs) scored; each roll number scores its own points; an outright win ends the game with its
    points and `win_points`."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.rows = {r.id: r for r in rules.rows}
        self.flag_row = rules.joker.row if rules.joker else next((r.needs for r in rules.rows if r.needs), None)
        self.relation = rules.relations[0] if rules.relations else None

    def _bonus(self, upper: int) -> int:
        ub = self.rules.upper_bonus
        return ub.points_for(upper) if ub else 0

    def entries(self, state, dice, roll):  # type: ignore[no-untyped-def]
        open_rows, upper, flag, pend = state
        rules = self.rules
        joker = rules.joker
        further = joker is not None and joker.row not in open_rows and len(set(dice)) == 1
        face_row = next((r.id for r in rules.rows if r.is_upper and r.face == dice[0]), None)
        face_open = face_row in open_rows
        extra = joker.bonus if further and flag else 0  # type: ignore[union-attr]
        for name in sorted(open_rows):
            row = self.rows[name]
            if row.needs and row.needs in open_rows:
                continue
            as_joker = further and not row.is_upper and (joker.placement == "forced" or not face_open)  # type: ignore[union-attr]
            pts = row_score(row, dice, roll, joker=as_joker)
            if row.needs and not flag:
                pts = 0
            new_upper = upper + pts if row.is_upper else upper
            gain = pts + extra + self._bonus(new_upper) - self._bonus(upper)
            new_flag = (pts > 0) if name == self.flag_row else flag
            rel, new_pend = self.relation, pend
            if rel is not None and name in (rel.high, rel.low):
                partner = rel.low if name == rel.high else rel.high
                if partner in open_rows:
                    new_pend = pts
                else:
                    high, low = (pts, pend) if name == rel.high else (pend, pts)
                    if pend and not low < high:  # min_lt_max_at_entry: this entry scores 0
                        gain -= pts
                    new_pend = None
            if row.wins_by_roll >= roll and pts > 0:
                yield name, gain + rules.win_points, None  # the game is won
            else:
                yield name, gain, (open_rows - {name}, new_upper, new_flag, new_pend)

    @cache
    def turn_start(self, state) -> float:  # type: ignore[no-untyped-def]
        if not state[0]:
            return 0.0
        return sum(p * self.after_roll(state, dice, 1) for dice, p in _outcomes(5))

    @cache
    def after_roll(self, state, dice, roll) -> float:  # type: ignore[no-untyped-def]
        best = max(g + (self.turn_start(nxt) if nxt else 0.0) for _, g, nxt in self.entries(state, dice, roll))
        if roll < self.rules.rolls_per_turn:
            for kept in _keeps(dice):  # every proper subset of die positions
                best = max(best, self.after_keep(state, kept, roll))
        return best

    @cache
    def after_keep(self, state, kept, roll) -> float:  # type: ignore[no-untyped-def]
        return sum(p * self.after_roll(state, dice, roll + 1) for dice, p in _rerolls(kept))


@pytest.fixture(scope="module")
def family(cache_folder):  # type: ignore[no-untyped-def]
    out = {}
    for name, spec, options in (
        ("yams-free", "yams", {"joker": "free"}),
        ("kismet", "kismet", {}),
        ("generala", "generala", {}),
        ("generala-points", "generala", {"served": "points", "wrap_straight": True}),
        ("yams-de-one", YAMS_DE_ONE, {}),
    ):
        out[name] = solve(load_ruleset(spec, options), folder=cache_folder)
    return out


def _value(strategy: Strategy, open_rows: set[str], upper: int, flag: bool, pend: int | None) -> float:
    sr = strategy.rules
    boxes = sum(1 << i for i, r in enumerate(sr.ruleset.rows) if r.id not in open_rows)
    if pend is not None:
        boxes |= int(sr.pend_index[pend]) << sr.n_rows
    return float(strategy.table[sr.flat(boxes, min(upper, sr.n_upper - 1), int(flag and sr.n_yam == 2)), 0])


CASES = [
    ("yams-free", {"fours", "large_straight"}, 40, True, None),  # a yam of fours: fours, or a joker straight
    ("yams-free", {"full_house", "ones"}, 60, True, None),  # fours filled: a joker full house (25)
    ("yams-free", {"chance", "sixes", "yam"}, 50, False, None),
    ("kismet", {"sixes", "fives"}, 50, False, None),  # the steps at 63, 71 and 78 in reach
    ("kismet", {"sixes", "flush"}, 70, False, None),
    ("kismet", {"full_house_colour", "two_pairs_colour"}, 0, False, None),
    ("generala", {"straight", "four_kind"}, 0, False, None),  # served: 5 more
    ("generala", {"yam", "double_yam"}, 0, False, None),  # a served generala wins (400 to the solver)
    ("generala", {"double_yam", "sixes"}, 0, True, None),  # the generala scored: the double counts
    ("generala", {"double_yam", "full_house"}, 0, False, None),  # the generala crossed out: it cannot
    ("generala-points", {"straight", "yam"}, 0, False, None),
    ("yams-de-one", {"min"}, 0, False, 21),  # max holds 21: min must stay below
    ("yams-de-one", {"max", "yam"}, 0, False, 26),  # min holds 26: max must beat it
    ("yams-de-one", {"max", "min"}, 30, False, None),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + ":" + "-".join(sorted(c[1])))
def test_end_games_match_an_independent_brute_force(family, case) -> None:  # type: ignore[no-untyped-def]
    name, open_rows, upper, flag, pend = case
    strategy = family[name]
    brute = FamilyBrute(strategy.ruleset)
    expected = brute.turn_start((frozenset(open_rows), upper, flag, pend))
    assert _value(strategy, open_rows, upper, flag, pend) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("name", ["yams-free", "kismet", "generala", "yams-de-one"])
def test_compiled_widget_equals_numpy_formulation(family, name) -> None:  # type: ignore[no-untyped-def]
    """The kernels (last roll, joker, by-roll stages, keep values) match the numpy form bit for bit."""
    strategy = family[name]
    sr = strategy.rules
    rng = np.random.default_rng(3)
    states = np.concatenate([sr.level_states(n) for n in range(sr.n_rows)])
    pick = np.sort(rng.choice(states, min(150, len(states)), replace=False))
    b, u, y = sr.unflat(pick)
    hands = np.arange(252)[:, None]
    for table in (strategy.table, rng.random((sr.n_states, 1)) * 300):
        flat = table[:, 0].copy()
        K.mean_turn_starts(flat, pick, K.rule_args(sr), sr.rolls)
        keeps = keep_values(sr, table, pick)
        if not sr.any_byroll:
            last = best_box_value(sr, table, MeanScore(), b[None], u[None], y[None], hands)
            stages = _numpy_stages(last[:, :, 0], sr.rolls)
            assert np.array_equal(flat[pick], stages[0][0])
        else:  # the by-roll widget: the hand after roll m is the best box at m
            x = np.empty((462, len(pick)))
            x[K._FULL :] = best_box_value(sr, table, MeanScore(), b[None], u[None], y[None], hands, sr.rolls)[..., 0]
            from yambak.solver import dice as D

            for m in range(sr.rolls - 1, 0, -1):
                D.down(x)
                x[K._FULL :] = best_box_value(sr, table, MeanScore(), b[None], u[None], y[None], hands, m)[..., 0]
                assert np.array_equal(keeps[:, m - 1], x.T)
                D.up(x)
            D.down(x)
            assert np.array_equal(flat[pick], x[0])
        assert np.array_equal(keeps, keep_values(sr, table, pick, kernel=False))


def test_published_optimum_with_the_free_joker(capsys) -> None:  # type: ignore[no-untyped-def]
    """Verhoeff's 254.5896 (any open box; a joker's fixed scores once its face's upper box is filled)."""
    from yambak.cli import main

    assert main(["solve", "yams", "-o", "joker=free"]) == 0
    out = capsys.readouterr().out
    assert "254.5896" in out and "254.5877" not in out
