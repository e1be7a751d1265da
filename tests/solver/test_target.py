"""The chance to reach a target (solver/target.py) against a brute-force expectimax on small end games.

The brute force shares nothing with the target induction but the rules layer (`row_score`) and the
entries of `test_induction.BruteForce` (joker, upper bonus, strike_any written out by hand): it
walks ordered dice outcomes and every subset of die positions, maximising the chance to score at
least `need` more points.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from tests.solver.test_induction import BruteForce, _keeps, _outcomes, _rerolls
from yambak.rules import load_ruleset, load_ruleset_file
from yambak.solver import Position, TargetProbability, solve
from yambak.solver.target import TargetTable, advise_target, max_remaining, min_scored, solve_target


class BruteTarget(BruteForce):
    @cache
    def chance(self, open_rows: frozenset[str], upper: int, yam: int | None, need: int) -> float:
        if need <= 0:
            return 1.0
        if not open_rows:
            return 0.0
        return sum(p * self.roll_chance((open_rows, upper, yam), dice, 1, need) for dice, p in _outcomes(5))

    def box_chances(self, state, dice, need):  # type: ignore[no-untyped-def]
        open_rows, upper, yam = state
        return {
            name: max(self.chance(nxt[0], nxt[1], nxt[2], need - gain), 0.0)
            for name, gain, nxt in self.entries(open_rows, upper, yam, dice)
        }

    @cache
    def roll_chance(self, state, dice, roll, need) -> float:  # type: ignore[no-untyped-def]
        best = max(self.box_chances(state, dice, need).values())
        if roll < self.rules.rolls_per_turn:
            for kept in _keeps(dice):  # every proper subset of die positions
                best = max(best, self.keep_chance(state, kept, roll, need))
        return best

    @cache
    def keep_chance(self, state, kept, roll, need) -> float:  # type: ignore[no-untyped-def]
        return sum(p * self.roll_chance(state, dice, roll + 1, need) for dice, p in _rerolls(kept))


def _mini_yams() -> dict:
    """A small Yahtzee: three upper rows (bonus 35 at 30), full house, large straight, yam with the
    forced joker and +100, chance: 8k states, so the whole target table takes a moment."""
    upper = [{"id": n, "kind": "upper", "face": f} for n, f in (("fours", 4), ("fives", 5), ("sixes", 6))]
    return {
        "id": "mini-yams",
        "upper_bonus": {"threshold": 30, "points": 35},
        "joker": {"row": "yam", "bonus": 100},
        "rows": upper
        + [
            {"id": "full_house", "kind": "full_house", "points": 25},
            {"id": "large_straight", "kind": "straight", "runs": [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]], "points": 40},
            {"id": "yam", "kind": "yam", "points": 50},
            {"id": "chance", "kind": "sum"},
        ],
        "columns": [{"id": "free"}],
    }


def _mini_fr() -> dict:
    """strike_any (any box struck for 0), kinds counting the matched dice, an upper bonus."""
    return {
        "id": "mini-fr",
        "strike_any": True,
        "upper_bonus": {"threshold": 12, "points": 35},
        "rows": [
            {"id": "fives", "kind": "upper", "face": 5},
            {"id": "sixes", "kind": "upper", "face": 6},
            {"id": "three_kind", "kind": "kind", "n": 3, "points": "matched"},
            {"id": "large_straight", "kind": "straight", "runs": [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]], "points": 40},
            {"id": "chance", "kind": "sum"},
        ],
        "columns": [{"id": "free"}],
    }


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TargetTable]:
    folder = tmp_path_factory.mktemp("target")
    return {
        "mini-yams": solve_target(load_ruleset(_mini_yams()), 160, folder=folder),
        "mini-fr": solve_target(load_ruleset(_mini_fr()), 80, folder=folder),
    }


def _state(table: TargetTable, open_rows: set[str], upper: int, yam: int | None) -> tuple[int, int, int]:
    sr = table.rules
    boxes = sum(1 << i for i, r in enumerate(sr.ruleset.rows) if r.id not in open_rows)
    return boxes, min(upper, sr.n_upper - 1), 1 if (sr.n_yam == 2 and yam) else 0


CASES = [
    ("mini-yams", {"yam"}, 0, None, 50),
    ("mini-yams", {"sixes", "full_house"}, 15, 50, 90),  # joker: a yam of sixes must go to sixes, +100
    ("mini-yams", {"large_straight", "fives"}, 28, 50, 60),  # the bonus at stake
    ("mini-yams", {"full_house", "fours", "yam"}, 11, None, 70),
    ("mini-yams", {"full_house", "large_straight", "fours"}, 29, 0, 60),  # joker after a scratched yam
    ("mini-fr", {"sixes", "chance"}, 5, None, 40),  # strike_any
    ("mini-fr", {"three_kind", "fives"}, 0, None, 30),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{'-'.join(sorted(c[1]))}-{c[4]}")
def test_turn_start_chances_match_brute_force(case: tuple, tables: dict[str, TargetTable]) -> None:
    name, open_rows, upper, yam, need = case
    table = tables[name]
    brute = BruteTarget(table.ruleset)
    state = _state(table, open_rows, upper, yam)
    limit = table.target - int(min_scored(table.rules, np.array([table.rules.flat(*state)]))[0])
    for k in sorted({1, need // 2, need, need + 7}):
        if k > limit:
            with pytest.raises(ValueError):
                table.chance(*state, k)
            continue
        expected = brute.chance(frozenset(open_rows), upper, yam, k)
        assert table.chance(*state, k) == pytest.approx(expected, abs=2e-6)


def test_advice_values_match_brute_force(tables: dict[str, TargetTable]) -> None:
    """Every keep after rolls 1 and 2 and every box, as the chance to reach the target."""
    table = tables["mini-yams"]
    brute = BruteTarget(table.ruleset)
    filled = {r.id: 0 for r in table.ruleset.rows if r.id not in ("sixes", "full_house", "yam")}
    filled["fours"] = 12  # on the sheet: 12; the target 160 needs 148 more
    state = (frozenset({"sixes", "full_house", "yam"}), 12, None)
    for dice, roll in (((6, 6, 6, 2, 3), 1), ((6, 6, 2, 2, 5), 2), ((4, 4, 4, 4, 4), 3)):
        advice = advise_target(table, Position(filled=filled, dice=dice, roll=roll))
        need = 160 - 12
        for choice in advice.boxes:
            expected = brute.box_chances(state, tuple(sorted(dice)), need)[choice.box]
            assert choice.value == pytest.approx(expected, abs=2e-6)
        for choice in advice.keeps:
            expected = brute.keep_chance(state, tuple(sorted(choice.keep or ())), roll, need)
            assert choice.value == pytest.approx(expected, abs=2e-6)
        assert advice.chance == pytest.approx(brute.roll_chance(state, tuple(sorted(dice)), roll, need), abs=2e-6)


def test_ragged_table_equals_the_dense_objective(tmp_path: Path) -> None:
    """Where a game aiming at the target can be, the float32 ragged table is the dense float64 one."""
    rules = load_ruleset(_mini_yams())
    dense = solve(rules, objective=TargetProbability(40), folder=tmp_path)
    ragged = solve_target(rules, 40, folder=tmp_path)
    sr = dense.rules
    states = np.concatenate([sr.level_states(n) for n in range(sr.n_rows)])
    got = ragged.dense(states, 41)
    matters = np.arange(41)[None, :] <= (40 - min_scored(sr, states))[:, None]
    assert np.abs(got - dense.table[states])[matters].max() < 1e-6
    assert ragged.start_chance == pytest.approx(float(dense.table[sr.flat(0, 0, 0), 40]), abs=1e-6)
    assert (max_remaining(sr, states) >= 0).all()
    again = solve_target(rules, 40, folder=tmp_path)
    assert again.loaded and np.array_equal(again.values, ragged.values)


def test_relations_are_refused(tmp_path: Path) -> None:
    from yambak.solver import UnsupportedRuleset

    with pytest.raises(UnsupportedRuleset):
        solve_target(load_ruleset("yams-fr", {"columns": 1}), 30, folder=tmp_path)


_MINI_TOML = """
id = "mini-fr"
strike_any = true
[upper_bonus]
threshold = 12
points = 35
[[rows]]
id = "fives"
kind = "upper"
face = 5
[[rows]]
id = "sixes"
kind = "upper"
face = 6
[[rows]]
id = "chance"
kind = "sum"
[[columns]]
id = "free"
"""


def test_solve_and_hint_take_a_target_objective(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from yambak.cli import main

    path = tmp_path / "mini.toml"
    path.write_text(_MINI_TOML)
    assert main(["solve", str(path), "--objective", "target=40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"] == 40 and 0 < out["chance"] < 1
    table = solve_target(load_ruleset_file(path), 40)
    assert out["chance"] == pytest.approx(table.start_chance)
    code = main(["hint", "--rules", str(path), "--objective", "target=40", "--dice", "6", "6", "6", "1", "2",
                 "--roll", "1", "--json"])  # fmt: skip
    assert code == 0
    hint = json.loads(capsys.readouterr().out)
    assert hint["target"] == 40 and hint["chance"] == pytest.approx(1.0)  # 6 6 6 in sixes: 18 + 35
    assert main(["solve", str(path), "--objective", "goal=3"]) == 2
