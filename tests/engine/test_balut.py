"""Balut (docs/rules.md §9, §12) against a scorecard written here from its public rules: every box of every
roll, the Balut points of random legal games and of the golden game, the winner on points (not pips), and
the faces' numbers (the view and the replay result are the engine's)."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import play_random
from yambak.engine import replay, state_to_record, summary
from yambak.gameview import game_view
from yambak.rules import load_ruleset, row_score

ROWS = ["fours", "fives", "sixes", "straight", "full_house", "choice", "balut"]
COLUMNS = ["c1", "c2", "c3", "c4"]
GOLDEN = Path(__file__).resolve().parents[1] / "golden/cases/balut--points-beat-pips.json"


def balut_box(row: str, dice: list[int]) -> int:
    """One box, from the printed rules."""
    c = Counter(dice)
    if row in ("fours", "fives", "sixes"):
        face = 4 + ("fours", "fives", "sixes").index(row)
        return face * c[face]
    if row == "straight":
        return {(1, 2, 3, 4, 5): 15, (2, 3, 4, 5, 6): 20}.get(tuple(sorted(dice)), 0)
    if row == "full_house":
        return sum(dice) if sorted(c.values()) == [2, 3] else 0
    if row == "choice":
        return sum(dice)
    assert row == "balut"
    return sum(dice) + 20 if len(c) == 1 else 0


def balut_points(boxes: dict[str, list[int | None]], total: int) -> dict[str, object]:
    """The Balut points of a sheet (each row's four boxes, None while open) and its grand total, from the
    printed table: a line counts once its boxes reach it, four straights or houses once all four are made."""

    def line(row: str) -> int:
        return sum(v or 0 for v in boxes[row])

    rows: dict[str, float] = {
        "fours": 2.0 if line("fours") >= 52 else 0.0,
        "fives": 2.0 if line("fives") >= 65 else 0.0,
        "sixes": 2.0 if line("sixes") >= 78 else 0.0,
        "straight": 4.0 if all(boxes["straight"]) else 0.0,
        "full_house": 3.0 if all(boxes["full_house"]) else 0.0,
        "choice": 2.0 if line("choice") >= 100 else 0.0,
        "balut": 2.0 * len([v for v in boxes["balut"] if v]),
    }
    if total < 300:
        for_total = -2.0
    elif total >= 650:
        for_total = 6.0
    else:
        for_total = float((total - 350) // 50)  # 300-349: -1, 350-399: 0, ... 600-649: 5
    return {"rows": rows, "total": for_total, "points": sum(rows.values()) + for_total}


def balut_summary(record: dict) -> dict:
    """A full Balut record's replay result, worked out from the rules."""
    names = record["players"]
    sheets = [{c: dict.fromkeys(ROWS) for c in COLUMNS} for _ in names]
    for t, turn in enumerate(record["turns"]):
        column, row = turn["box"].split(".")
        sheets[t % len(names)][column][row] = balut_box(row, turn["rolls"][-1])
    players = []
    for name, sheet in zip(names, sheets, strict=True):
        columns, grand = {}, 0
        for column, boxes in sheet.items():
            upper = sum(boxes[r] for r in ("fours", "fives", "sixes"))
            total = sum(boxes.values())
            grand += total
            columns[column] = {"boxes": dict(boxes), "upper": upper, "bonus": 0, "total": total}
        points = balut_points({r: [sheet[c][r] for c in COLUMNS] for r in ROWS}, grand)
        entry = {"name": name, "total": grand, "match_points": points["points"], "columns": columns}
        players.append(entry | {"category_points": points})
    return {"finished": True, "players": players}


def test_every_box_of_every_roll_scores_as_the_scorecard() -> None:
    rules = load_ruleset("balut")
    assert [r.id for r in rules.rows] == ROWS and [c.id for c in rules.columns] == COLUMNS
    disagreements = [
        (row.id, hand)
        for hand in itertools.product(range(1, 7), repeat=5)
        for row in rules.rows
        if row_score(row, hand) != balut_box(row.id, list(hand))
    ]
    assert disagreements == []


@pytest.mark.parametrize("seed", range(3))
def test_random_games_score_their_balut_points_as_worked_out_here(seed: int) -> None:
    rules = load_ruleset("balut")
    state = play_random(rules, 1 + seed % 3, seed)
    assert state.finished
    record = state_to_record(state).to_dict()
    expected = balut_summary(record)
    assert summary(state) == expected
    points = [p["match_points"] for p in expected["players"]]
    totals = [p["total"] for p in expected["players"]]
    best = [s for s in range(len(points)) if points[s] == max(points)]
    best = [s for s in best if totals[s] == max(totals[b] for b in best)]
    assert state.winners() == best  # the most points, then the higher total
    view = game_view(state)["players"]
    assert [p["category_points"] for p in view] == [p["category_points"] for p in expected["players"]]
    assert [p["match_points"] for p in view] == points  # one seat too


def test_while_the_game_runs_the_view_shows_the_points_as_they_stand() -> None:
    """Mid-game, each seat's points on its sheet so far (the faces show them; match points come at the end)."""
    rules = load_ruleset("balut")
    for seed, steps in ((7, 20), (8, 50), (9, 80)):
        state = play_random(rules, 2, seed, steps=steps)
        assert not state.finished
        view = game_view(state)
        for p, shown in enumerate(view["players"]):
            sheet = state.sheets[p]
            boxes = {r: [sheet.written[rules.box_index(c, r)] for c in COLUMNS] for r in ROWS}
            total = sum(v or 0 for v in sheet.written)
            assert shown["category_points"] == balut_points(boxes, total)
            assert shown["match_points"] is None


def test_balut_is_not_offered_where_boards_rank_by_pips() -> None:
    """Club rounds and daily deals rank one-seat games by their total (`rank_key`), which Balut's points do
    not follow: the preset is offered to neither until a board ranks by match points."""
    from yambak.rules.registry import club_presets, daily_presets

    assert "balut" not in club_presets() and "balut" not in daily_presets()
    assert "triple-yahtzee" in club_presets()  # a game decided by its total is


def golden_record() -> dict:
    """Ann plays for Balut points, Bo for pips: Bo ends 583 to 424 and loses 12 to 16."""
    ann = {
        "fours": [[4, 4, 4, 4, 1]] * 4,  # 64: 2 points
        "fives": [[5, 5, 5, 5, 1]] * 4,  # 80: 2
        "sixes": [[6, 6, 6, 6, 1]] * 4,  # 96: 2
        "straight": [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6], [6, 5, 4, 3, 2], [3, 2, 6, 5, 4]],  # 75, four: 4
        "full_house": [[2, 2, 2, 3, 3]] * 4,  # 48, four: 3
        "choice": [[1, 1, 2, 2, 3]] * 4,  # 36: none
        "balut": [[1, 1, 1, 1, 1], [1, 2, 3, 4, 6], [1, 2, 3, 4, 6], [1, 2, 3, 4, 6]],  # one balut (25): 2
    }  # 424: 1 point; 16 in all
    bo = {
        "fours": [[4, 4, 4, 1, 1]] * 4,  # 48: short of 52
        "fives": [[5, 5, 5, 6, 6]] * 4,  # 60: short of 65
        "sixes": [[6, 6, 6, 6, 6]] * 4,  # 120: 2
        "straight": [[2, 3, 4, 5, 6]] * 3 + [[6, 6, 6, 5, 5]],  # 60, a straight missed: none
        "full_house": [[6, 6, 6, 5, 5]] * 3 + [[6, 6, 6, 6, 5]],  # 84, a house missed: none
        "choice": [[6, 6, 6, 6, 5]] * 4,  # 116: 2
        "balut": [[6, 6, 6, 6, 6], [5, 5, 5, 5, 5], [1, 1, 2, 2, 3], [1, 1, 2, 2, 3]],  # 95, two baluts: 4
    }  # 583: 4 points; 12 in all
    turns = []
    for row in ROWS:
        for k, column in enumerate(COLUMNS):
            turns.append({"rolls": [ann[row][k]], "box": f"{column}.{row}"})
            turns.append({"rolls": [bo[row][k]], "box": f"{column}.{row}"})
    return {"format": "yambak-game/1", "rules": "balut", "players": ["Ann", "Bo"], "seed": None, "turns": turns}


def test_the_golden_game_is_the_one_worked_out_here() -> None:
    """The golden file (tests/golden) holds this record and the result computed here, never the engine's."""
    case = json.loads(GOLDEN.read_text())
    record = golden_record()
    assert case["record"] == record
    assert case["expected"] == balut_summary(record)
    ann, bo = case["expected"]["players"]
    assert (ann["total"], ann["match_points"], bo["total"], bo["match_points"]) == (424, 16, 583, 12)
    state = replay(record)
    assert state.winners() == [0]  # fewer pips, more points
    assert game_view(state)["decided"]["by"] == "match_points"


if __name__ == "__main__":  # writes the golden file: python -m tests.engine.test_balut
    record = golden_record()
    case = {
        "description": "Balut: Ann plays for points (every fours, fives and sixes line made, four straights, four "
        "full houses, one balut; 424 pips: 1 point), Bo for pips (583: 4 points, two baluts, but two lines "
        "short and a straight and a house missed): Ann wins 16 to 12.",
        "record": record,
        "expected": balut_summary(record),
    }
    GOLDEN.write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n")
