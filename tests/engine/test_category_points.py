"""Category points (docs/rules.md §7, docs/rulesets.md): what a row's boxes across the columns earn by a
table of its total, when every box scored, per box that scored, and by rank among the players, plus the grand
total's table; checked against a computation written here on random sheets, and the rules' refusals."""

from __future__ import annotations

import random

import pytest

from yambak.engine import Sheet
from yambak.engine.scoresheet import category_points, grand_total, match_points
from yambak.rules import RulesetError, load_ruleset

COLUMNS = ("a", "b", "c")
ROWS = ("fives", "pairs", "chance")


def rules_data(**match: object) -> dict[str, object]:
    return {
        "id": "points-test",
        "rows": [
            {"id": "fives", "kind": "upper", "face": 5, "category_points": {"table": [[20, 1], [30, 3]]}},
            {"id": "pairs", "kind": "one_pair", "points": "matched", "category_points": {"every_box": 4, "per_box": 1}},
            {"id": "chance", "kind": "sum", "category_points": {"rank": [5, 2]}},
        ],
        "columns": [{"id": c} for c in COLUMNS],
        "match": {"kind": "category_points", "total_table": [[0, -1], [60, 0], [90, 2]]} | match,
    }


def step(table: list[tuple[int, float]], value: int) -> float:
    """The highest step reached, written out: 0 below the lowest threshold."""
    reached = [points for threshold, points in table if value >= threshold]
    return reached[-1] if reached else 0.0


def expected_points(boxes: list[dict[tuple[str, str], int | None]]) -> list[dict[str, float]]:
    """Every seat's points from its boxes, worked out from the test's rules."""
    out = []
    chance_totals = [sum(b[(c, "chance")] or 0 for c in COLUMNS) for b in boxes]
    for seat, b in enumerate(boxes):
        fives = sum(b[(c, "fives")] or 0 for c in COLUMNS)
        pairs = [b[(c, "pairs")] for c in COLUMNS]
        scored = len([v for v in pairs if v not in (None, 0)])
        mine = chance_totals[seat]
        better = len([t for t in chance_totals if t > mine])
        level = len([t for t in chance_totals if t == mine])
        places = [5.0, 2.0][better : better + level]
        grand = sum(v or 0 for v in b.values())
        out.append(
            {
                "fives": step([(20, 1), (30, 3)], fives),
                "pairs": scored * 1 + (4 if scored == 3 else 0),
                "chance": sum(places) / level,
                "total": step([(0, -1), (60, 0), (90, 2)], grand),
            }
        )
    return out


def random_sheet(rng: random.Random, rules_index: dict[tuple[str, str], int], n: int) -> tuple[Sheet, dict]:
    boxes: dict[tuple[str, str], int | None] = {}
    written: list[int | None] = [None] * n
    for (c, r), i in rules_index.items():
        value: int | None
        if rng.random() < 0.15:
            value = None
        elif r == "fives":
            value = 5 * rng.randint(0, 5)
        elif r == "pairs":
            value = rng.choice([0, 0, 2, 6, 12])
        else:
            value = rng.randint(8, 24)
        boxes[(c, r)] = value
        written[i] = value
    return Sheet(written=tuple(written)), boxes


def test_points_by_table_every_box_per_box_and_rank_match_a_computation_written_here() -> None:
    rules = load_ruleset(rules_data())
    index = {(c, r): rules.box_index(c, r) for c in COLUMNS for r in ROWS}
    rng = random.Random(35)
    for _ in range(300):
        seats = rng.randint(1, 4)
        drawn = [random_sheet(rng, index, rules.n_boxes) for _ in range(seats)]
        sheets = [s for s, _ in drawn]
        want = expected_points([b for _, b in drawn])
        got = category_points(rules, sheets)
        assert got is not None
        for g, w, sheet in zip(got, want, sheets, strict=True):
            assert g.rows == {r: w[r] for r in ROWS}
            assert g.total == w["total"]
            assert g.points == pytest.approx(sum(w.values()))
            assert grand_total(rules, sheet) == sum(v or 0 for v in sheet.written)
        # the match is decided on them, one seat included
        assert match_points(rules, sheets) == [pytest.approx(sum(w.values())) for w in want]


def test_ties_share_the_places_they_take() -> None:
    rules = load_ruleset(rules_data())
    n = rules.n_boxes
    chance = rules.box_index("a", "chance")
    sheets = []
    for value in (20, 20, 12):
        written: list[int | None] = [None] * n
        written[chance] = value
        sheets.append(Sheet(written=tuple(written)))
    got = category_points(rules, sheets)
    assert got is not None
    assert [g.rows["chance"] for g in got] == [3.5, 3.5, 0.0]  # (5 + 2) / 2 each; the third place earns none


def test_other_matches_have_no_category_points() -> None:
    rules = load_ruleset("yams")
    assert category_points(rules, [Sheet.empty(rules)]) is None
    assert match_points(rules, [Sheet.empty(rules)]) is None


@pytest.mark.parametrize(
    ("change", "where", "words"),
    [
        (lambda d: d["match"].update(ties="rolloff"), "match.ties", "shared"),
        (lambda d: d.update(match={"kind": "total"}), "rows.fives.category_points", "category_points"),
        (lambda d: d["rows"][0]["category_points"].update(steps=[[1, 2]]), "category_points.steps", "table"),
        (lambda d: d["rows"][0]["category_points"].update(table=[[30, 1], [20, 3]]), "table", "rise"),
        (lambda d: d["rows"][0]["category_points"].update(table=[[30.5, 1]]), "table[1]", "whole"),
        (lambda d: d["rows"][0].update(category_points={}), "rows.fives.category_points", "at least one"),
        (lambda d: d["rows"][2]["category_points"].update(rank=["first"]), "rank", "numbers"),
        (lambda d: d["match"].update(total_table=[]), "match.total_table", "at least one"),
    ],
)
def test_bad_category_points_are_refused_naming_the_key(change, where, words) -> None:  # type: ignore[no-untyped-def]
    data = rules_data()
    change(data)
    with pytest.raises(RulesetError) as err:
        load_ruleset(data)
    assert where in str(err.value) and words in str(err.value)


def test_a_category_points_match_needs_something_to_award() -> None:
    data = rules_data()
    for row in data["rows"]:  # type: ignore[attr-defined]
        row.pop("category_points")
    data["match"] = {"kind": "category_points"}
    with pytest.raises(RulesetError, match="category_points needs"):
        load_ruleset(data)
    with pytest.raises(RulesetError, match="total_table"):
        load_ruleset({**data, "match": {"kind": "total", "total_table": [[0, 1]]}})


def test_the_coach_never_calls_the_pip_optimum_exact_where_category_points_decide() -> None:
    """A one-column sheet the solver takes: its table maximises pips, so under category points the bots and
    the coach use the estimate and say so."""
    from yambak.bots.optimal import solvable
    from yambak.coach.advice import advise
    from yambak.engine import Roll, new_game

    sheet = {"rows": [{"id": "sixes", "kind": "upper", "face": 6}, {"id": "chance", "kind": "sum"}]}
    plain = load_ruleset(sheet | {"columns": [{"id": "a"}]})
    points = load_ruleset(
        sheet | {"columns": [{"id": "a"}], "match": {"kind": "category_points", "total_table": [[20, 1]]}}
    )
    assert solvable(plain) and not solvable(points)
    state, _ = new_game(points, ["Ann"], seed=1).apply(Roll(0))
    assert advise(state).exact is False


def test_a_rank_adds_to_the_rows_other_points_and_rows_without_points_are_skipped() -> None:
    """A row may award by its table, per box and by rank at once: all three add up. A row that awards nothing
    (sixes here, first on the sheet) has no entry and does not stop the rows after it."""
    rules = load_ruleset(
        {
            "rows": [
                {"id": "sixes", "kind": "upper", "face": 6},
                {"id": "chance", "kind": "sum", "category_points": {"table": [[30, 1]], "per_box": 1, "rank": [5, 2]}},
            ],
            "columns": [{"id": "a"}, {"id": "b"}],
            "match": {"kind": "category_points", "total_table": [[0, 0], [50, 1]]},
        }
    )
    first: list[int | None] = [None] * rules.n_boxes
    first[rules.box_index("a", "sixes")] = 18
    first[rules.box_index("a", "chance")] = 20
    first[rules.box_index("b", "chance")] = 15
    second: list[int | None] = [None] * rules.n_boxes
    second[rules.box_index("a", "chance")] = 10
    got = category_points(rules, [Sheet(written=tuple(first)), Sheet(written=tuple(second))])
    assert got is not None
    # the first: 35 in chance reaches the table's 30 (1), two boxes scored (2), ranked first (5); 53 in all (1)
    # the second: 10 (0), one box (1), second (2); 10 in all (0)
    assert [g.to_dict() for g in got] == [
        {"rows": {"chance": 1 + 2 + 5}, "total": 1, "points": 1 + 2 + 5 + 1},
        {"rows": {"chance": 0 + 1 + 2}, "total": 0, "points": 0 + 1 + 2 + 0},
    ]
