"""The coach's chance to win: exact in a last turn (checked against an expectimax written here, over
the engine alone), close to a stored Monte Carlo figure in the opening, and drawn sheets scored as
the engine scores them."""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import factorial, prod
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yambak.coach import advise
from yambak.coach.chances import column_totals, entry_scores
from yambak.engine import GameState, IllegalAction, ManualDice, Roll, Score, entry_turn, new_game, play_turn
from yambak.engine.scoresheet import Sheet, column_scores
from yambak.rules import load_ruleset, preset_ids
from yambak.server.tables.schema import CoachAdvice

YAMS_SHEET = dict(ones=3, twos=6, threes=9, fours=12, fives=15, sixes=18, three_kind=20, four_kind=15,
                  full_house=25, small_straight=30, large_straight=40, yam=0, chance=22)  # fmt: skip


def _filled(rules, theirs: dict[str, int], mine: dict[str, int]) -> GameState:
    """Seat 0's sheet `theirs` and seat 1's `mine`, entered turn by turn through the engine (each seat
    enters the first of its boxes its column rules take now), seat 1 to play with one box left."""
    state = new_game(rules, ["Ann", "Bram"], dice=ManualDice())
    pending = [dict(theirs), dict(mine)]
    while pending[state.current]:
        left = pending[state.current]
        for box, value in left.items():
            try:
                state = play_turn(state, entry_turn(state, box, value))
            except IllegalAction:
                continue
            del left[box]
            break
        else:
            raise AssertionError(f"no box of {sorted(left)} can be entered")
    assert state.current == 1 and state.sheets[1].written.count(None) == 1 and state.sheets[0].full
    return state


def _expectimax(start: GameState, p: int, dice, chances) -> tuple[dict, dict]:
    """The exact last turn played for the win, by brute force through the engine, from the turn's start
    `start`: `chances(final state)` is (P(not losing), P(winning alone)); play maximises the first, ties
    broken toward the second (a millionth of it added, as the coach does). Returns each box's and each
    keep's (P(not losing), P(winning alone)) after roll 1 showing `dice`, followed through that play."""
    rolls = start.rules.rolls_per_turn

    def at(hand, m):  # the state after roll m showing `hand`
        s = start
        for i in range(m):
            s = s.apply(Roll(p, held=() if i else None, dice=hand))[0]
        return s

    def scores(s):  # every box the engine lets the turn end in now
        return [Score(p, s.rules.box_id(b)) for b in s.legal_boxes(p)]

    def played(pair):
        return pair[0] + 1e-6 * pair[1]

    @cache
    def stop(hand, m):
        s = at(hand, m)
        return max((chances(s.apply(a)[0]) for a in scores(s)), key=played)

    @cache
    def keep_value(keep, m):  # after roll m, holding `keep` and rolling the rest once more
        k = 5 - len(keep)
        safe = alone = 0.0
        for rest in combinations_with_replacement(range(1, 7), k):
            ways = factorial(k) // prod(factorial(c) for c in Counter(rest).values())
            pair = value(tuple(sorted(keep + rest)), m + 1)
            safe += ways / 6**k * pair[0]
            alone += ways / 6**k * pair[1]
        return safe, alone

    @cache
    def value(hand, m):
        if m == rolls:
            return stop(hand, m)
        keeps = {tuple(sorted(c)) for n in range(5) for c in combinations(hand, n)}
        go_on = max((keep_value(k, m) for k in keeps), key=played)
        here = stop(hand, m)
        return here if played(here) >= played(go_on) else go_on

    hand = tuple(sorted(dice))
    s = at(hand, 1)
    boxes = {a.box: chances(s.apply(a)[0]) for a in scores(s)}
    keeps = {tuple(sorted(c)): keep_value(tuple(sorted(c)), 1) for n in range(5) for c in combinations(hand, n)}
    return boxes, keeps


def _check_last_turn(start: GameState, dice, chances) -> Any:
    """The coach's win and tie chances of every choice after roll 1 equal the brute-force expectimax's."""
    boxes, keeps = _expectimax(start, 1, dice, chances)
    advice = advise(start.apply(Roll(1, dice=dice))[0], 1)
    assert advice.win_note.startswith("exact")
    for o in advice.options:
        assert o.win + o.tie + o.lose == pytest.approx(1.0)
    for name, want in (("box", boxes), ("keep", keeps)):
        got = {getattr(o, name): (o.win + o.tie, o.win) for o in advice.options if getattr(o, name) in want}
        assert got.keys() == want.keys()
        for choice, pair in want.items():
            assert got[choice] == pytest.approx(pair, abs=1e-9), choice
    return advice


def _by_total(target: int):
    """(not losing, winning alone) of seat 1 against seat 0's final `target`: a shared win is a win."""
    return lambda s: (float(s.total(1) >= target), float(s.total(1) > target))


def _yams(theirs: dict[str, int], mine: dict[str, int], open_box: str) -> GameState:
    mine = {b: v for b, v in (YAMS_SHEET | mine).items() if b != open_box}
    return _filled(load_ruleset("yams"), YAMS_SHEET | theirs, mine)


@pytest.mark.parametrize(
    ("theirs", "mine", "open_box", "dice", "expect"),
    [
        ({}, {"yam": 50}, "chance", (1, 1, 2, 2, 3), 1.0),  # won whatever happens
        ({}, {"yam": 50, "large_straight": 0, "ones": 1}, "chance", (6, 6, 6, 2, 3), 0.0934),  # a joker yam only
        ({}, {}, "large_straight", (1, 2, 3, 5, 5), None),  # a large straight draws level
        ({}, {}, "sixes", (6, 6, 2, 3, 4), None),  # three sixes: the upper bonus draws level
    ],
)
def test_a_last_turn_is_the_exact_expectimax_played_for_the_win(theirs, mine, open_box, dice, expect):
    start = _yams(theirs, mine, open_box)
    target = start.total(0)
    advice = _check_last_turn(start, dice, _by_total(target))
    if expect is not None:
        assert max(o.win + o.tie for o in advice.options) == pytest.approx(expect, abs=5e-5)


def test_in_a_last_turn_the_coach_names_the_choice_most_likely_to_win():
    # 26 in chance draws level: writing 2 6 6 6 6 now wins for sure; rolling the 2 again scores more on average
    start = _yams({"chance": 26}, {}, "chance")
    advice = advise(start.apply(Roll(1, dice=(2, 6, 6, 6, 6)))[0], 1)
    assert advice.best.kind == "keep" and advice.best.keep == (6, 6, 6, 6)
    assert advice.best_win.kind == "box" and (advice.best_win.win, advice.best_win.tie) == (0.0, 1.0)
    assert advice.best.win + advice.best.tie < 1.0 and advice.best.win > 0.0  # a 3 or more wins alone
    assert advice.to_dict()["best_win"]["action"] == {"type": "score", "box": "free.chance", "strike": False}
    CoachAdvice.model_validate(advice.to_dict())
    assert advise(start.apply(Roll(1, dice=(1, 2, 3, 4, 4)))[0], 1).best_win is None  # the best is both


def _yammen_last_turn(behind: bool) -> GameState:
    """Two equal yammen sheets but for the free column, where seat 1 has its yam to play and is a one
    behind (`behind`) or level."""
    rules = load_ruleset("yammen", {"ties": "share"})
    rng = random.Random(5)
    fixed = {"full_house": 20, "straight": 30, "plus": 24, "min": 9, "yam": 0}
    theirs = {f"{c.id}.{r.id}": r.face * rng.randint(1, 2) if r.is_upper else fixed[r.id]
              for c in rules.columns for r in rules.rows}  # fmt: skip
    mine = {b: v for b, v in theirs.items() if b != "free.yam"} | {"free.ones": 1 if behind else 2}
    theirs["free.ones"] = 2
    return _filled(rules, theirs, mine)


def _points_chances(s: GameState) -> tuple[float, float]:
    """Seat 1's (not losing, winning alone) in a finished column-points game, as the engine names winners."""
    winners = s.winners()
    return float(1 in winners), float(winners == [1])


def test_a_column_points_last_turn_is_exact_too():
    # a one behind: a yam wins the column, so the total's points and the match; anything else loses them
    advice = _check_last_turn(_yammen_last_turn(True), (4, 4, 4, 4, 2), _points_chances)
    assert advice.measure == "match_points"
    assert advice.best_win is None and advice.best.keep == (4, 4, 4, 4)
    assert advice.best.win == pytest.approx(1 - (5 / 6) ** 2) and advice.best.tie == 0.0


def test_a_column_points_tie_is_a_tie_not_a_win():
    # level: anything but a yam shares the win (equal match points on equal totals), a yam wins alone
    advice = _check_last_turn(_yammen_last_turn(False), (4, 4, 4, 4, 2), _points_chances)
    assert advice.best.keep == (4, 4, 4, 4)
    assert advice.best.win == pytest.approx(1 - (5 / 6) ** 2)
    assert advice.best.tie == pytest.approx((5 / 6) ** 2) and advice.best.lose == pytest.approx(0.0)


def test_the_opening_matches_the_stored_monte_carlo_figure():
    stored = json.loads((Path(__file__).with_name("opening_win.json")).read_text())
    state = new_game(load_ruleset(stored["rules"]), ["Ann", "Bram"], dice=ManualDice())
    state = state.apply(Roll(0, dice=tuple(stored["dice"])))[0]
    advice = advise(state, 0)
    by_label = {o.label(): o for o in advice.options}
    for choice in stored["choices"]:
        assert choice["se"] < 0.01  # the figure is worth comparing to
        option = by_label[choice["option"]]  # the stored figure counts a shared win as won
        assert option.win + option.tie == pytest.approx(choice["monte_carlo"], abs=0.02)


@pytest.mark.parametrize("preset", preset_ids())
def test_drawn_sheets_are_scored_as_the_engine_scores_them(preset):
    rules = load_ruleset(preset)
    rng = np.random.default_rng(1)
    sheets = []
    for _ in range(60):  # full sheets of random values, upper rows as the dice write them
        written = []
        for r in [row for _ in rules.columns for row in rules.rows]:
            written.append(int(r.face * rng.integers(0, 6)) if r.is_upper else int(rng.integers(0, 40)))
        sheets.append(Sheet(written=tuple(written), turns=len(written)))
    got = column_totals(rules, np.stack([entry_scores(s) for s in sheets]))
    want = np.array([[c.total for c in column_scores(rules, s)] for s in sheets])
    assert (got == want).all()


def test_hint_on_a_record_says_the_chance_to_win_and_the_choice_most_likely_to_win(tmp_path, capsys):
    from yambak.cli import main
    from yambak.engine import state_to_record

    state = _yams({"chance": 26}, {}, "chance").apply(Roll(1, dice=(2, 6, 6, 6, 6)))[0]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(state_to_record(state).to_dict()))
    assert main(["hint", "--record", str(path)]) == 0
    out = capsys.readouterr().out
    assert "best: keep 6 6 6 6  (win 77.8%, tie 19.4%, lose 2.8%)" in out  # a 1 twice loses: 1/36
    assert "least likely to lose: score free.chance (26)  (win 0.0%, tie 100.0%, lose 0.0%)" in out
    assert "win chances: exact" in out
    assert main(["hint", "--record", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best_win"]["action"] == {"type": "score", "box": "free.chance", "strike": False}
