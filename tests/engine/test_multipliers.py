"""Column multipliers (docs/rules.md §3-§4) and Triple Yahtzee, against computations written here from
the public rules: every box of every roll, random legal games totalled by hand, the coach's array
totals, the faces' totals and the bots' model, which must weigh a x3 box three times a x1 box."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from tests.conftest import play_random
from yambak.bots.evaluate import build_model
from yambak.coach.advice import advise
from yambak.coach.chances import column_totals, entry_scores
from yambak.engine import Roll, Sheet, new_game, replay, state_to_record, summary
from yambak.engine.dice import ManualDice
from yambak.gameview import game_view
from yambak.rules import RulesetError, load_ruleset, row_score

UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]
LOWER = ["three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yam", "chance"]
TIMES = {"single": 1, "double": 2, "triple": 3}


def yahtzee_box(row: str, dice: list[int]) -> int:
    """The Yahtzee scorecard, box by box, from its printed rules."""
    c = Counter(dice)
    counts = sorted(c.values())
    faces = set(dice)
    if row in UPPER:
        face = UPPER.index(row) + 1
        return face * c[face]
    if row == "three_kind":
        return sum(dice) if counts[-1] >= 3 else 0
    if row == "four_kind":
        return sum(dice) if counts[-1] >= 4 else 0
    if row == "full_house":
        return 25 if counts == [2, 3] else 0
    if row == "small_straight":
        return 30 if any(set(range(a, a + 4)) <= faces for a in (1, 2, 3)) else 0
    if row == "large_straight":
        return 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    if row == "yam":
        return 50 if counts == [5] else 0
    assert row == "chance"
    return sum(dice)


def triple_summary(record: dict) -> dict:
    """A Triple Yahtzee record's replay summary, worked out from the rules: each turn's last dice go in
    its box; per column the upper sum, 35 at 63, and (upper + bonus + lower) times the column's factor."""
    names = record["players"]
    sheets = [{c: dict.fromkeys(UPPER + LOWER) for c in TIMES} for _ in names]
    for t, turn in enumerate(record["turns"]):
        column, row = turn["box"].split(".")
        sheets[t % len(names)][column][row] = yahtzee_box(row, turn["rolls"][-1])
    players = []
    for name, sheet in zip(names, sheets, strict=True):
        columns, grand = {}, 0
        for column, boxes in sheet.items():
            upper = sum(boxes[r] or 0 for r in UPPER)
            bonus = 35 if upper >= 63 else 0
            total = (upper + bonus + sum(boxes[r] or 0 for r in LOWER)) * TIMES[column]
            grand += total
            columns[column] = {"boxes": dict(boxes), "upper": upper, "bonus": bonus}
            if TIMES[column] != 1:
                columns[column]["multiplier"] = TIMES[column]
            columns[column]["total"] = total
        players.append({"name": name, "total": grand, "match_points": None, "columns": columns})
    finished = all(v is not None for s in sheets for col in s.values() for v in col.values())
    return {"finished": finished, "players": players}


def test_every_box_of_every_roll_scores_as_the_scorecard() -> None:
    rules = load_ruleset("triple-yahtzee")
    assert [(c.id, c.multiplier) for c in rules.columns] == list(TIMES.items())
    disagreements = []
    for hand in itertools.combinations_with_replacement(range(1, 7), 5):
        for row in rules.rows:
            if row_score(row, hand) != yahtzee_box(row.id, list(hand)):
                disagreements.append((row.id, hand))
    assert disagreements == []


@pytest.mark.parametrize("seed", range(4))
def test_random_games_total_as_worked_out_by_hand(seed: int) -> None:
    rules = load_ruleset("triple-yahtzee")
    state = play_random(rules, 1 + seed % 2, seed)
    assert state.finished
    record = state_to_record(state).to_dict()
    assert summary(state) == triple_summary(record)
    assert summary(replay(record)) == summary(state)


def test_the_coach_and_the_faces_show_the_engines_totals() -> None:
    """The coach's array totals of drawn sheets, and a table's view of the sheet, are the engine's numbers."""
    rules = load_ruleset("triple-yahtzee")
    for seed in range(3):
        state = play_random(rules, 1, 100 + seed)
        columns = state.column_scores(0)
        drawn = column_totals(rules, entry_scores(state.sheets[0])[None, :])[0]
        assert list(drawn) == [c.total for c in columns]
        assert sum(drawn) == state.total(0) == triple_summary(state_to_record(state).to_dict())["players"][0]["total"]
        shown = game_view(state)["players"][0]
        assert [shown["columns"][c.id]["total"] for c in columns] == [c.total for c in columns]
        assert shown["total"] == state.total(0)
    layout = rules.layout()
    assert [c["multiplier"] for c in layout["columns"]] == [1, 2, 3]


def test_the_bots_model_weighs_each_column_by_its_multiplier() -> None:
    """On the prior, every box of a x3 column is worth three times its x1 twin: the estimate of an empty
    column, and what writing a value in one of its boxes changes (the upper bonus's chance included)."""
    rules = load_ruleset("triple-yahtzee")
    model = build_model(rules, source="prior")
    sheet = Sheet.empty(rules)
    single, double, triple = (model.column_estimate(sheet, c)[0] for c in range(3))
    assert single > 0
    assert double == pytest.approx(2 * single) and triple == pytest.approx(3 * single)
    n = rules.n_rows
    for row in ("threes", "full_house", "chance"):
        r = rules.row_index[row]
        once = model.box_gain(sheet, r)
        assert np.allclose(model.box_gain(sheet, 2 * n + r), 3 * once)
        assert np.allclose(model.box_gain(sheet, n + r), 2 * once)


@pytest.mark.parametrize(
    ("columns", "error"),
    [
        ([{"id": "a", "multiplier": 0}, {"id": "b"}], "columns.a.multiplier"),
        ([{"id": "a", "multiplier": 101}, {"id": "b"}], "columns.a.multiplier"),
        ([{"id": "a", "multiplier": "2"}, {"id": "b"}], "columns.a.multiplier"),
        ([{"id": "a", "multiplier": 1.5}, {"id": "b"}], "columns.a.multiplier"),
        ([{"id": "a", "multiplier": 2}], "columns.a.multiplier"),
        ([{"id": "a", "multiplyer": 2}, {"id": "b"}], "multiplier"),
    ],
)
def test_a_bad_multiplier_is_refused_by_name(columns: list[dict], error: str) -> None:
    spec = {"id": "m", "rows": [{"id": "chance", "kind": "sum"}], "columns": columns}
    with pytest.raises(RulesetError) as info:
        load_ruleset(spec)
    assert error in str(info.value)


def test_a_multiplier_of_one_changes_nothing_not_even_a_fingerprint() -> None:
    """Columns without the key keep the repr their solver tables and fitted models are stored under."""
    plain = load_ruleset({"id": "m", "rows": [{"id": "c", "kind": "sum"}], "columns": [{"id": "a"}, {"id": "b"}]})
    ones = load_ruleset(
        {"id": "m", "rows": [{"id": "c", "kind": "sum"}], "columns": [{"id": "a", "multiplier": 1}, {"id": "b"}]}
    )
    assert repr(plain.columns) == repr(ones.columns) and "multiplier" not in repr(plain)
    doubled = load_ruleset(
        {"id": "m", "rows": [{"id": "c", "kind": "sum"}], "columns": [{"id": "a", "multiplier": 2}, {"id": "b"}]}
    )
    assert "multiplier=2" in repr(doubled.columns[0])
    rng = random.Random(3)
    state = play_random(doubled, 1, rng.randrange(1000))
    a, b = state.column_scores(0)
    assert (a.total, b.total) == (2 * state.sheets[0].written[0], state.sheets[0].written[1])


def test_the_coach_is_an_estimate_that_puts_a_yahtzee_in_the_triple_column() -> None:
    """No exact table takes three columns: the coach says its figures are the strong bot's estimate, and
    they weigh each column by its multiplier (a Yahtzee is worth most where it counts three times)."""
    state = new_game(load_ruleset("triple-yahtzee"), ["Ann"], dice=ManualDice())
    state, _ = state.apply(Roll(0, dice=(6, 6, 6, 6, 6)))
    advice = advise(state, 0)
    assert advice.exact is False
    assert advice.best is not None and advice.best.box == "triple.yam"
    value = {o.box: o.value for o in advice.boxes}
    assert value["triple.yam"] > value["double.yam"] > value["single.yam"]
