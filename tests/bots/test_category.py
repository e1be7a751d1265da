"""The category-points terms (bots/category.py) against computations written here, and the strong bot
playing Balut for its categories."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from yambak.bots.baseline import greedy
from yambak.bots.category import (
    PIPS_WEIGHT,
    RowState,
    category_terms,
    expected_row_points,
    rank_points,
    row_states,
    steps,
)
from yambak.bots.expectimax import heuristic
from yambak.bots.models import model_for
from yambak.bots.play import play_game
from yambak.bots.strong import strong
from yambak.engine import ManualDice, Roll, Score, entry_turn, new_game, play_turn
from yambak.rules import load_ruleset

RULES = load_ruleset("balut")
ROW = {row.id: r for r, row in enumerate(RULES.rows)}


@pytest.fixture(scope="module")
def model():
    return model_for(RULES, background=False)


def sheet_with(fills, dice=()):
    """A one-seat Balut game with `fills` (box id, value) written, then the rolls of `dice`."""
    state = new_game(RULES, ["Ann"], dice=ManualDice())
    for box, value in fills:
        state = play_turn(state, entry_turn(state, box, value))
    for roll in dice:
        state, _ = state.apply(Roll(0, dice=roll))
    return state


def test_steps_add_up_to_the_table():
    table = RULES.match.total_table
    for total in range(0, 800, 7):
        assert sum(more for t, more in steps(table) if total >= t) == pytest.approx(_step(table, total))


def _step(table, value):
    points = 0.0
    for threshold, p in table:
        if value >= threshold:
            points = p
    return points


def test_a_table_row_certain_or_impossible(model):
    r = ROW["fours"]
    assert expected_row_points(RULES, model, r, RowState(56, 4, False, ())) == 2.0  # reached
    assert expected_row_points(RULES, model, r, RowState(48, 4, True, ())) == 0.0  # closed below 52
    top = int(np.nonzero(model.dist[3, r])[0].max())  # the most the model lets the last box write
    assert expected_row_points(RULES, model, r, RowState(51 - top, 3, False, (3,))) == 0.0
    assert expected_row_points(RULES, model, r, RowState(52, 3, False, (3,))) == pytest.approx(2.0)
    # 48 with one box open: it reaches 52 unless that box writes less than 4
    p = float(model.dist[3, r, 4:].sum())
    assert expected_row_points(RULES, model, r, RowState(48, 3, False, (3,))) == pytest.approx(2 * p)


def test_a_table_row_by_enumeration(model):
    r = ROW["choice"]
    d1, d3 = model.dist[1, r], model.dist[3, r]
    for written in (40, 50, 60):
        p = sum(d1[a] * d3[b] for a in range(len(d1)) for b in range(len(d3)) if written + a + b >= 100)
        got = expected_row_points(RULES, model, r, RowState(written, 2, False, (1, 3)))
        assert got == pytest.approx(2 * p, abs=1e-12)
        assert 0 < got < 2


def test_every_box_and_per_box(model):
    s, b = ROW["straight"], ROW["balut"]
    hit = [1.0 - float(model.dist[c, s, 0]) for c in range(4)]
    assert expected_row_points(RULES, model, s, RowState(35, 2, False, (1, 2))) == pytest.approx(4 * hit[1] * hit[2])
    assert expected_row_points(RULES, model, s, RowState(15, 1, True, (1, 2))) == 0.0  # a 0 written: lost
    assert expected_row_points(RULES, model, s, RowState(70, 4, False, ())) == 4.0
    balut = [1.0 - float(model.dist[c, b, 0]) for c in range(4)]
    got = expected_row_points(RULES, model, b, RowState(45, 1, True, (2, 3)))
    assert got == pytest.approx(2 * (1 + balut[2] + balut[3]))


def test_rank_points_by_enumeration():
    """Two opponents with tiny total distributions; places shared as the engine shares them."""
    rank = (5.0, 2.0)
    theirs = [np.array([0.2, 0.5, 0.3]), np.array([0.6, 0.0, 0.1, 0.3])]
    got = rank_points(rank, theirs, 5)
    for v in range(5):
        want = 0.0
        for y0, y1 in itertools.product(range(3), range(4)):
            p = theirs[0][y0] * theirs[1][y1]
            totals = [v, y0, y1]
            first = sum(1 for t in totals if t > v)
            level = sum(1 for t in totals if t == v)
            places = (list(rank) + [0.0, 0.0])[first : first + level]
            want += p * sum(places) / level
        assert got[v] == pytest.approx(want, abs=1e-12)


def test_finished_rows_are_the_engines_points(model):
    state = play_game(RULES, ["greedy"], "category-rows")
    sheet = state.sheets[0]
    engine = state.category_points()[0].rows
    for r, rs in row_states(RULES, sheet).items():
        assert rs.open == ()
        assert expected_row_points(RULES, model, r, rs) == engine[RULES.rows[r].id]


def test_a_box_gain_is_its_rows_and_totals_change(model):
    """gain(w) = the row's expected points after minus now + the total table's (a normal law, written
    here with math.erf) + the pips' tie-break, for a box of an awarding row in a game half played."""
    played = play_game(RULES, ["greedy"], "category-gain").sheets[0].written
    n = RULES.n_rows
    # column 1 whole, then column 2 and the first box of column 3 without their choice boxes
    fills = [(RULES.box_id(b), v) for b, v in enumerate(played) if b < n or b % n != ROW["choice"]][:14]
    state = sheet_with(fills)
    sheet = state.sheets[0]
    gain, _, now = category_terms(state, 0, model)
    box = next(b for b, v in enumerate(sheet.written) if v is None and b % n == ROW["choice"])
    c, r = divmod(box, n)
    rs = row_states(RULES, sheet)
    open_var = sum(model.var[divmod(b, n)] for b, v in enumerate(sheet.written) if v is None)
    k = sheet.written.count(None)

    def total_points(mu, var):
        sd = math.sqrt(var)
        return sum(
            more * 0.5 * (1 + math.erf((mu - t + 0.5) / sd / math.sqrt(2)))
            for t, more in steps(RULES.match.total_table)
        )

    rows_now = sum(expected_row_points(RULES, model, q, s) for q, s in rs.items())
    assert now == pytest.approx(rows_now + total_points(model.value(sheet), open_var), abs=1e-5)
    pips = model.box_gain(sheet, box)
    g = gain(box)
    for w in (0, 18, 24, 30):
        after = RowState(
            rs[r].total + w, rs[r].scored + (w > 0), rs[r].spoiled or w == 0, tuple(x for x in rs[r].open if x != c)
        )
        row = expected_row_points(RULES, model, r, after) - expected_row_points(RULES, model, r, rs[r])
        mu = model.value(sheet) + pips[w] + model.offset(k - 1) - model.offset(k)
        total = total_points(mu, open_var - model.var[c, r]) - total_points(model.value(sheet), open_var)
        assert g[w] == pytest.approx(row + total + PIPS_WEIGHT * pips[w], abs=1e-5)


def test_the_strong_bot_takes_the_category():
    """Fours at 40 with one fours box open and 4 4 4 6 6 showing: 12 in fours makes 52 (2 points), the full
    houses are lost already (a 0), so the 24 pips of a full house are worth only pips. The pip-playing
    expectimax takes the full house; the strong bot and greedy the fours, and after roll 1 the strong bot
    keeps the three 4s."""
    fills = [("c1.fours", 16), ("c2.fours", 12), ("c3.fours", 12)]
    fills += [("c1.full_house", 0), ("c2.full_house", 20), ("c3.full_house", 20)]
    last = sheet_with(fills, [(4, 4, 4, 6, 6)] * 3)
    rng = random.Random(0)
    assert strong(last, 0, rng) == Score(0, "c4.fours")
    assert greedy(last, 0, rng) == Score(0, "c4.fours")
    assert heuristic(last, 0, rng) == Score(0, "c4.full_house")  # the old play, for pips
    first = sheet_with(fills, [(4, 4, 4, 6, 6)])
    action = strong(first, 0, rng)
    assert isinstance(action, Roll) and sorted(first.turns[0].dice[i] for i in action.held) == [4, 4, 4]
