"""Advisor answers agree with the table and refuse impossible positions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yambak.solver import Advice, Position, PositionError, Strategy, advise, solve
from yambak.solver import dice as D


def test_first_roll_keeps_triple_sixes(yams: Strategy) -> None:
    advice = advise(yams, Position(filled={}, dice=(6, 6, 6, 2, 3), roll=1))
    assert advice.best is not None and advice.best.keep == (6, 6, 6)
    assert [c.value for c in advice.keeps] == sorted((c.value for c in advice.keeps), reverse=True)
    assert len(advice.keeps) == 15  # distinct proper sub-multisets of 6 6 6 2 3
    assert len(advice.boxes) == 13


def test_turn_start_value_is_the_mean_over_first_rolls(yams: Strategy) -> None:
    filled = {"ones": 3, "yam": 50, "chance": 22}
    start = advise(yams, Position(filled=filled))
    mean = sum(
        p * advise(yams, Position(filled=filled, dice=D.MULTISETS[D.FULL + r], roll=1)).value
        for r, p in enumerate(D.ROLL_PROB)
    )
    assert start.value == pytest.approx(mean, abs=1e-9)
    assert start.value == pytest.approx(75 + yams.table[yams.rules.flat(0b1100000000001, 3, 1), 0])


def test_box_values_are_points_plus_table(yams: Strategy) -> None:
    advice = advise(yams, Position(filled={"sixes": 30, "yam": 50}, dice=(6, 6, 6, 6, 6), roll=3))
    assert not advice.keeps
    # Forced joker: sixes is filled, so any open lower box, +100 each.
    assert {c.box for c in advice.boxes} == {
        "three_kind",
        "four_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "chance",
    }
    points = {c.box: c.points for c in advice.boxes}
    assert points["large_straight"] == 140 and points["full_house"] == 125 and points["chance"] == 130


def test_joker_forces_the_upper_box_of_the_face(yams: Strategy) -> None:
    advice = advise(yams, Position(filled={"yam": 0}, dice=(4, 4, 4, 4, 4), roll=3))
    assert [(c.box, c.points) for c in advice.boxes] == [("fours", 20)]


def test_held_dice_mark_the_current_keep(yams: Strategy) -> None:
    advice = advise(yams, Position(filled={}, dice=(1, 2, 3, 4, 6), roll=2, held=(1, 2, 3, 4)))
    current = [c for c in advice.keeps if c.current]
    assert [c.keep for c in current] == [(1, 2, 3, 4)]


@pytest.mark.parametrize(
    "position, words",
    [
        (Position(filled={"onez": 1}, dice=(1, 1, 1, 1, 1), roll=1), "no box"),
        (Position(filled={"twos": 3}, dice=(1, 1, 1, 1, 1), roll=1), "cannot be written"),
        (Position(filled={}, dice=(1, 1, 1, 1), roll=1), "dice"),
        (Position(filled={}, dice=(1, 1, 1, 1, 7), roll=1), "dice"),
        (Position(filled={}, dice=(1, 1, 1, 1, 1), roll=4), "roll"),
        (Position(filled={}, dice=(1, 1, 1, 1, 1), roll=1, held=(2,)), "held"),
    ],
)
def test_bad_positions_are_refused(yams: Strategy, position: Position, words: str) -> None:
    with pytest.raises(PositionError, match=words):
        advise(yams, position)


def test_full_sheet_is_refused(yatzy: Strategy) -> None:
    filled = {r.id: 0 for r in yatzy.ruleset.rows}
    with pytest.raises(PositionError, match="full"):
        advise(yatzy, Position(filled=filled, dice=(1, 2, 3, 4, 5), roll=1))


def test_record_position_from_engine(yams: Strategy) -> None:
    from yambak import engine
    from yambak.solver.advisor import position_of

    record = {
        "format": "yambak-game/1",
        "rules": "yams",
        "players": ["Ann"],
        "seed": None,
        "turns": [{"rolls": [[6, 6, 2, 3, 6]], "box": "sixes"}],
        "pending": [{"rolls": [[1, 2, 3, 4, 4]], "held": [0, 1, 2, 3]}],
    }
    state = engine.replay(record)
    position = position_of(state)
    assert position.filled == {"sixes": 18} and position.roll == 1
    advice = advise(yams, position)
    assert advice.best is not None
    assert np.isfinite(advice.value)


def test_max_gt_min_pair_entries(yams_fr_max_min: Strategy) -> None:
    """The second box of the pair: writing high <= low takes back the first box's value (docs/rules.md §5)."""
    filled = {"min": 22}
    advice = advise(yams_fr_max_min, Position(filled=filled, dice=(3, 4, 5, 5, 2), roll=3))  # sum 19
    points = {c.box: c.points for c in advice.boxes}
    assert advice.score == 22
    assert points["max"] == -22  # 19 <= 22: both score 0, struck or not
    advice = advise(yams_fr_max_min, Position(filled=filled, dice=(6, 6, 5, 5, 6), roll=3))  # sum 28
    assert {c.box: c.points for c in advice.boxes}["max"] == 28
    # max first: min is struck (0) rather than written when it would zero the pair
    advice = advise(yams_fr_max_min, Position(filled={"max": 12}, dice=(6, 6, 5, 5, 6), roll=3))
    assert {c.box: c.points for c in advice.boxes}["min"] == 0
    # a complete pair with max <= min counts 0 on the sheet
    assert advise(yams_fr_max_min, Position(filled={"max": 12, "min": 12, "ones": 3})).score == 3


def test_max_gt_min_turn_start_is_the_mean_over_first_rolls(yams_fr_max_min: Strategy) -> None:
    filled = {"min": 17, "yam": 50, "twos": 6}
    start = advise(yams_fr_max_min, Position(filled=filled))
    mean = sum(
        p * advise(yams_fr_max_min, Position(filled=filled, dice=D.MULTISETS[D.FULL + r], roll=1)).value
        for r, p in enumerate(D.ROLL_PROB)
    )
    assert start.value == pytest.approx(mean, abs=1e-9)
    assert start.score == 73


@pytest.mark.parametrize("preset", ["yams", "yatzy", "yams_fr_max_min"])
def test_compiled_position_values_equal_the_numpy_advisor(preset: str, request: pytest.FixtureRequest) -> None:
    """The single-state kernel (no 64-lane padding, box values compiled) gives the numpy advice exactly:
    random positions, joker yams, max/min pairs with a lone value or complete."""
    import random

    strategy = request.getfixturevalue(preset)
    rows = [r.id for r in strategy.ruleset.rows]
    rng = random.Random(5)
    checked = 0
    while checked < 60:
        filled = {r: 0 for r in rng.sample(rows, rng.randrange(0, len(rows) - 1))}
        for name, values in (("yam", [50]), ("max", range(5, 31)), ("min", range(5, 31))):
            if name in filled and rng.random() < 0.6:
                filled[name] = rng.choice(list(values))
        dice = (rng.randint(1, 6),) * 5 if rng.random() < 0.2 else tuple(rng.randint(1, 6) for _ in range(5))
        position = Position(filled=filled, dice=dice, roll=rng.randint(1, 3))
        try:
            expected = advise(strategy, position, compiled=False)
        except PositionError:
            continue
        assert advise(strategy, position, compiled=True) == expected
        checked += 1


@pytest.fixture(scope="module")
def generala(cache_folder: Path) -> Strategy:
    """Entries that win outright on the first roll (wins_by_roll): the `wins` flag is checked too."""
    return solve("generala", folder=cache_folder)


def test_best_is_the_first_highest_choice_and_choices_equal_an_eager_advice(generala: Strategy) -> None:
    """`advise` names its best from the kernel's numbers and makes its choices only when read: the best is
    the first of the highest in keeps + boxes (keeps first, each best first), the value is its value, and an
    `Advice` built from the choices (the public constructor, which takes the max itself) equals the answer."""
    import pickle
    import random

    rows = [r.id for r in generala.ruleset.rows]
    rng = random.Random(11)
    winning = 0
    for _ in range(150):
        filled = {r: 0 for r in rng.sample(rows, rng.randrange(0, len(rows)))}
        dice = (rng.randint(1, 6),) * 5 if rng.random() < 0.3 else tuple(rng.randint(1, 6) for _ in range(5))
        held = tuple(d for d in dice if rng.random() < 0.5)
        for compiled in (True, False):
            advice = advise(generala, Position(filled, dice, rng.randint(1, 3), held), compiled=compiled)
            choices = advice.keeps + advice.boxes
            assert advice.best == max(choices, key=lambda c: c.value) and advice.value == advice.best.value
            assert advice.best is (advice.keeps[0] if advice.best.keep is not None else advice.boxes[0])
            assert [c.value for c in advice.boxes] == sorted((c.value for c in advice.boxes), reverse=True)
            eager = Advice(advice.score, advice.value, advice.keeps, advice.boxes)
            assert eager == advice and hash(eager) == hash(advice) and pickle.loads(pickle.dumps(advice)) == advice
            assert sum(c.current for c in advice.keeps) <= 1
            winning += any(c.wins for c in advice.boxes)
    assert winning  # some entries won outright: their flag was checked too


@pytest.mark.parametrize("held", [(7,), ("a",), (1, 1), (2, 2, 3, 4, 5, 6), ([1],)])
def test_held_dice_not_among_the_dice_are_refused(yams: Strategy, held: tuple[object, ...]) -> None:
    with pytest.raises(PositionError, match="held"):
        advise(yams, Position(filled={}, dice=(1, 2, 3, 4, 5), roll=1, held=held))


def test_holding_all_five_marks_no_keep(yams: Strategy) -> None:
    advice = advise(yams, Position(filled={}, dice=(5, 2, 5, 3, 1), roll=1, held=(1, 2, 3, 5, 5)))
    assert not any(c.current for c in advice.keeps) and len(advice.keeps) == 23
