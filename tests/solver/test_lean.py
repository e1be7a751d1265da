"""The float32 copy of a table (issue 35, item 1): mapped from the cache, and every choice read from it worth,
in the float64 table's values, within 1e-4 of the float64 best.

Keep decisions (every proper keep and stopping to score, after every roll but the last) are checked in
every reachable yams state for every hand, and in a 1% sample of yatzy's; the box chosen with the final
hand in a 1% sample of the states of each (every hand each). The differences of choice are
counted: where float32 rounding makes the choice differ, the difference it costs is what is bounded.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from yambak.solver import Position, Strategy, advise, solve
from yambak.solver import dice as D
from yambak.solver._induction import box_values, keep_values
from yambak.solver.objective import MeanScore

TOLERANCE = 1e-4
CHUNK = 8192  # states whose keep values are built at once (two tables: 2 x 60 MiB)


@njit(cache=False)
def _keep_regrets(v64: np.ndarray, v32: np.ndarray, subkeeps: np.ndarray, n_subkeeps: np.ndarray, full: int) -> tuple:
    """Over states s, rolls j and hands h: the choice among the proper keeps and stopping (worth the best box,
    v[s, last stage, full + h]) made on v32, and its loss in v64 against v64's best. (decisions, choices that
    differ, losses above TOLERANCE, the largest loss)."""
    states, stages, _ = v64.shape
    decisions = differ = over = 0
    worst = 0.0
    for s in range(states):
        for j in range(stages):
            for h in range(len(n_subkeeps)):
                stop = full + h
                best32, pick32 = v32[s, stages - 1, stop], stop
                best64, pick64 = v64[s, stages - 1, stop], stop
                for i in range(n_subkeeps[h]):
                    k = subkeeps[h, i]
                    if k == stop:
                        continue
                    if v32[s, j, k] > best32:
                        best32, pick32 = v32[s, j, k], k
                    if v64[s, j, k] > best64:
                        best64, pick64 = v64[s, j, k], k
                got = v64[s, stages - 1, stop] if pick32 == stop else v64[s, j, pick32]
                loss = best64 - got
                decisions += 1
                differ += pick32 != pick64
                over += loss > 1e-4
                worst = max(worst, loss)
    return decisions, differ, over, worst


def _lean(strategy: Strategy, folder: Path) -> Strategy:
    return solve(strategy.ruleset, folder=folder, lean=True)


def _states(strategy: Strategy, share: float, seed: int) -> np.ndarray:
    sr = strategy.rules
    states = np.concatenate([sr.level_states(n) for n in range(sr.n_rows)])
    if share >= 1:
        return states
    return np.sort(np.random.default_rng(seed).choice(states, int(len(states) * share), replace=False))


def _keep_check(full: Strategy, lean: Strategy, states: np.ndarray) -> tuple[int, int, int, float]:
    sr = full.rules
    assert not sr.any_byroll and sr.rolls >= 2  # stopping is worth the best box of the final hand
    totals = [0, 0, 0, 0.0]
    for lo in range(0, len(states), CHUNK):
        part = states[lo : lo + CHUNK]
        v64 = keep_values(sr, full.table, part, kernel=True)
        v32 = keep_values(sr, lean.table, part, kernel=True)
        decisions, differ, over, worst = _keep_regrets(v64, v32, D.SUBKEEPS, D.N_SUBKEEPS, D.FULL)
        totals = [totals[0] + decisions, totals[1] + differ, totals[2] + over, max(totals[3], worst)]
    return int(totals[0]), int(totals[1]), int(totals[2]), float(totals[3])


def _box_check(full: Strategy, lean: Strategy, states: np.ndarray) -> tuple[int, int, int, float]:
    sr = full.rules
    boxes, upper, yam = (v[:, None] for v in sr.unflat(states))
    hands = np.arange(D.N_ROLLS)[None, :]

    def rows(table: np.ndarray) -> np.ndarray:  # (rows, states, hands): the value of writing each row
        return np.stack([v[..., 0] for _, _, v in box_values(sr, table, MeanScore(), boxes, upper, yam, hands)])

    r64, r32 = rows(full.table), rows(lean.table)
    pick32, pick64 = r32.argmax(axis=0), r64.argmax(axis=0)
    loss = r64.max(axis=0) - np.take_along_axis(r64, pick32[None], axis=0)[0]
    return int(loss.size), int((pick32 != pick64).sum()), int((loss > TOLERANCE).sum()), float(loss.max())


def test_the_lean_table_is_the_float64_table_rounded_and_mapped(yams: Strategy, cache_folder: Path) -> None:
    lean = _lean(yams, cache_folder)
    assert lean.lean and not yams.lean
    assert lean.table.dtype == np.float32 and not lean.table.flags.writeable
    assert isinstance(lean.table.base, np.memmap) or isinstance(getattr(lean.table.base, "base", None), np.memmap)
    assert np.array_equal(lean.table, yams.table.astype(np.float32))
    assert lean.expected_score == yams.expected_score  # the float64 start value, kept in the table's file
    assert lean.states == yams.states and lean.loaded
    # rounding to nearest moves each value by at most half a float32 step: 2^-24 of it
    assert np.all(np.abs(lean.table.astype(np.float64) - yams.table) <= np.abs(yams.table) * 2.0**-24)


def test_bots_and_the_server_read_the_mapped_copy(yams: Strategy, cache_folder: Path) -> None:
    """bots.optimal (the bots, the web coach, the server's warm-up): the float32 file's pages, shared by every
    process that maps it, not a copy of their own."""
    from yambak.bots.optimal import strategy_for

    strategy_for.cache_clear()
    served = strategy_for(yams.ruleset)
    mapping = served.table.base
    assert served.lean and isinstance(mapping, np.memmap) and mapping.filename is not None
    assert Path(mapping.filename).parent == cache_folder and Path(mapping.filename).name.endswith(".f32.npy")
    strategy_for.cache_clear()


def test_a_cached_float64_table_is_mapped_not_read(yams: Strategy, cache_folder: Path) -> None:
    """`yambak hint` and `yambak solve` (exact values) read the float64 table's pages as they need them, from
    the cached file itself (copy-on-write: the kernels see the writeable array they were compiled for)."""
    loaded = solve(yams.ruleset, folder=cache_folder)
    assert loaded.loaded and not loaded.lean and loaded.table.flags.writeable
    mapping = loaded.table.base
    assert isinstance(mapping, np.memmap) and mapping.mode == "c" and Path(str(mapping.filename)).suffix == ".npz"
    assert np.array_equal(loaded.table, yams.table) and loaded.expected_score == yams.expected_score


def test_lean_advice_names_the_same_best_choice(yams: Strategy, cache_folder: Path) -> None:
    lean = _lean(yams, cache_folder)
    for dice, roll, filled in [((6, 6, 6, 2, 3), 1, {}), ((1, 2, 3, 4, 6), 2, {"ones": 3}), ((5, 5, 5, 5, 5), 3, {})]:
        position = Position(filled=filled, dice=dice, roll=roll)
        exact, read = advise(yams, position), advise(lean, position)
        assert read.best is not None and exact.best is not None
        assert read.best.label() == exact.best.label()
        assert math.isclose(read.value, exact.value, abs_tol=TOLERANCE)


@pytest.mark.parametrize(("name", "share", "box_share"), [("yams", 1.0, 0.01), ("yatzy", 0.01, 0.01)])
def test_every_choice_from_float32_is_within_1e4_of_the_best(
    name: str, share: float, box_share: float, request: pytest.FixtureRequest, cache_folder: Path
) -> None:
    full: Strategy = request.getfixturevalue(name)
    lean = _lean(full, cache_folder)
    decisions, differ, over, worst = _keep_check(full, lean, _states(full, share, 35))
    print(f"{name} keeps: {decisions:,} decisions, {differ:,} differ, {over} over {TOLERANCE}, worst {worst:.2e}")
    assert decisions >= len(_states(full, share, 35)) * (full.rules.rolls - 1) * D.N_ROLLS
    assert over == 0 and worst <= TOLERANCE
    decisions, differ, over, worst = _box_check(full, lean, _states(full, box_share, 36))
    print(f"{name} boxes: {decisions:,} decisions, {differ:,} differ, {over} over {TOLERANCE}, worst {worst:.2e}")
    assert over == 0 and worst <= TOLERANCE
