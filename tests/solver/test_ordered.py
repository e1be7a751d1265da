"""The solver on a column filled in a fixed order (down, up, updown, middle: docs/rulesets.md):
its values against an independent brute force that follows the order as the docs say it, its
advice against the engine's legal boxes, and forced Yatzy (`bench/rulesets/yatzy-down.toml`)."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import play_random
from tests.solver.test_family_solver import FamilyBrute
from yambak.bots import choose_action
from yambak.engine import GameState, Roll, Score, new_game
from yambak.rules import Ruleset, load_ruleset
from yambak.rules.loader import load_ruleset_file
from yambak.solver import PositionError, Strategy, UnsupportedRuleset, advise, solve
from yambak.solver.advisor import Position, position_of
from yambak.solver.target import solve_target

FORCED_YATZY = Path(__file__).parents[2] / "bench" / "rulesets" / "yatzy-down.toml"


class OrderedBrute(FamilyBrute):
    """`FamilyBrute` with the column's fill order: of the open rows only the topmost (down), the
    bottommost (up), either (updown), or the rows next to the filled block, the start pair while
    none is filled (middle); a forced joker then goes to its face's upper box among those, else a
    lower one among those, else any of them (docs/rulesets.md, "joker")."""

    def __init__(self, rules: Ruleset) -> None:
        super().__init__(rules)
        self.column = rules.columns[0]
        self.ids = [r.id for r in rules.rows]

    def allowed(self, open_rows: frozenset[str]) -> set[str]:
        rows = [i for i, name in enumerate(self.ids) if name in open_rows]
        order = self.column.order
        if order == "free":
            picked = rows
        elif order == "down":
            picked = rows[:1]
        elif order == "up":
            picked = rows[-1:]
        elif order == "updown":
            picked = [rows[0], rows[-1]]
        else:
            filled = [i for i in range(len(self.ids)) if self.ids[i] not in open_rows]
            if filled:
                picked = [i for i in (filled[0] - 1, filled[-1] + 1) if 0 <= i < len(self.ids)]
            else:
                picked = [self.ids.index(s) for s in self.column.start]
        return {self.ids[i] for i in picked}

    def entries(self, state, dice, roll):  # type: ignore[no-untyped-def]
        open_rows = state[0]
        allowed = self.allowed(open_rows)
        joker = self.rules.joker
        if joker is not None and joker.placement == "forced" and joker.row not in open_rows and len(set(dice)) == 1:
            upper = {n for n in allowed if self.rows[n].is_upper and self.rows[n].face == dice[0]}
            lower = {n for n in allowed if not self.rows[n].is_upper}
            allowed = upper or lower or allowed
        for entry in super().entries(state, dice, roll):
            if entry[0] in allowed:
                yield entry


def _sheet(order: str, rolls: int = 2) -> dict[str, Any]:
    """Four rows, a small upper bonus in reach: a whole game a brute force can play."""
    column: dict[str, Any] = {"id": "c", "order": order}
    if order == "middle":
        column["start"] = ["threes", "yam"]
    return {
        "id": f"ordered-{order}",
        "rolls_per_turn": rolls,
        "upper_bonus": {"threshold": 6, "points": 10},
        "rows": [
            {"id": "ones", "kind": "upper", "face": 1},
            {"id": "threes", "kind": "upper", "face": 3},
            {"id": "yam", "kind": "yam", "points": 50},
            {"id": "chance", "kind": "sum"},
        ],
        "columns": [column],
    }


JOKER_UP = {  # the yam box is filled first: a later yam's joker must go where the order allows
    "id": "ordered-joker",
    "rolls_per_turn": 2,
    "joker": {"row": "yam", "bonus": 100, "placement": "forced"},
    "rows": [
        {"id": "ones", "kind": "upper", "face": 1},
        {"id": "full_house", "kind": "full_house", "points": 25},
        {"id": "yam", "kind": "yam", "points": 50},
    ],
    "columns": [{"id": "c", "order": "up"}],
}


def _value(strategy: Strategy, open_rows: frozenset[str], upper: int, flag: bool, pend: int | None) -> float:
    sr = strategy.rules
    boxes = sum(1 << i for i, r in enumerate(sr.ruleset.rows) if r.id not in open_rows)
    if pend is not None:
        boxes |= int(sr.pend_index[pend]) << sr.n_rows
    return float(strategy.table[sr.flat(boxes, min(upper, sr.n_upper - 1), int(flag and sr.n_yam == 2)), 0])


@pytest.mark.parametrize(("order", "rolls"), [("down", 2), ("up", 1), ("updown", 1), ("middle", 1)])
def test_whole_games_match_an_independent_brute_force(order: str, rolls: int, cache_folder: Path) -> None:
    """Every turn-start state of the game (two rolls a turn for one order: the keeps are the free
    column's; one for the others, which keeps the brute force to seconds)."""
    rules = load_ruleset(_sheet(order, rolls))
    strategy = solve(rules, folder=cache_folder)
    brute = _Recording(rules)
    start = (frozenset(r.id for r in rules.rows), 0, False, None)
    assert strategy.expected_score == pytest.approx(brute.turn_start(start), abs=1e-9)
    for state in brute.states:
        assert _value(strategy, *state) == pytest.approx(brute.turn_start(state), abs=1e-9), state
    # the solver solves exactly the box sets the order can reach
    sr = strategy.rules
    masks = {int(m) & sr.full_mask for n in range(sr.n_rows) for m in sr.unflat(sr.level_states(n))[0]}
    ids = [r.id for r in rules.rows]
    assert masks == {sum(1 << i for i, name in enumerate(ids) if name not in s[0]) for s in brute.states}
    assert len(masks) < 2 ** len(ids) - 1


def test_a_forced_joker_goes_where_the_order_allows(cache_folder: Path) -> None:
    rules = load_ruleset(JOKER_UP)
    strategy = solve(rules, folder=cache_folder)
    brute = _Recording(rules)
    start = (frozenset(r.id for r in rules.rows), 0, False, None)
    assert strategy.expected_score == pytest.approx(brute.turn_start(start), abs=1e-9)
    for state in brute.states:
        assert _value(strategy, *state) == pytest.approx(brute.turn_start(state), abs=1e-9)
    # a yam of 1s with the yam box holding 50 and only the full house next: a joker full house, +100
    advice = advise(strategy, Position(filled={"yam": 50}, dice=(1, 1, 1, 1, 1), roll=2))
    assert [(c.box, c.points) for c in advice.boxes] == [("full_house", 125)]


class _Recording(OrderedBrute):
    """The brute force, remembering every turn-start state it values."""

    def __init__(self, rules: Ruleset) -> None:
        super().__init__(rules)
        self.states: list[tuple[Any, ...]] = []

    def turn_start(self, state) -> float:  # type: ignore[no-untyped-def]
        ub = self.rules.upper_bonus  # past the bonus's threshold only "reached" matters: one state
        open_rows, upper, flag, pend = state
        return self._turn_start((open_rows, min(upper, ub.top if ub else 0), flag, pend))

    @cache  # noqa: B019 - one instance per test
    def _turn_start(self, state) -> float:  # type: ignore[no-untyped-def]
        if state[0]:
            self.states.append(state)
        return FamilyBrute.turn_start.__wrapped__(self, state)  # type: ignore[attr-defined, no-any-return]


def test_a_relation_in_an_ordered_column_matches_the_brute_force(cache_folder: Path) -> None:
    """yams-de's one column filled downward: min, max (min below max at entry) and the yam last."""
    rules = load_ruleset({"extends": "yams-de", "id": "yams-de-down", "columns": [{"id": "down", "order": "down"}]})
    strategy = solve(rules, folder=cache_folder)
    brute = _Recording(rules)
    for held in (12, 26):  # min holds it: max must beat it at entry
        state = (frozenset({"max", "yam"}), 63, False, held)
        assert _value(strategy, *state) == pytest.approx(brute.turn_start(state), abs=1e-9)


def test_forced_yatzy_end_games_and_optimum(cache_folder: Path) -> None:
    """Yatzy filled from the top down: its last rows against the brute force, and its optimum."""
    rules = load_ruleset_file(FORCED_YATZY)
    strategy = solve(rules, folder=cache_folder)
    brute = _Recording(rules)
    for open_rows in ({"chance", "yam"}, {"full_house", "chance", "yam"}):
        state = (frozenset(open_rows), 63, False, None)
        assert _value(strategy, *state) == pytest.approx(brute.turn_start(state), abs=1e-9)
    assert strategy.expected_score == pytest.approx(122.5585274, abs=1e-7)  # docs/bots.md
    assert strategy.states < 1000  # 16 box sets (each a top block) of 2**15: 809 states


def _advice_is_legal(strategy: Strategy, state: GameState) -> None:
    rules = strategy.ruleset
    legal = {rules.rows[b % rules.n_rows].id for b in state.legal_boxes(0)}
    advice = advise(strategy, position_of(state))
    assert {c.box for c in advice.boxes} == legal, (state.sheets[0].written, state.dice)
    assert advice.best is not None
    if advice.best.box is not None:
        assert advice.best.box in legal


@pytest.mark.parametrize("order", ["down", "up", "updown", "middle", "yatzy"])
def test_advice_only_names_boxes_the_engine_allows(order: str, cache_folder: Path) -> None:
    rules = load_ruleset_file(FORCED_YATZY) if order == "yatzy" else load_ruleset(_sheet(order))
    strategy = solve(rules, folder=cache_folder)
    rng = random.Random(order)
    checked = 0
    for seed in range(40):
        state = play_random(rules, 1, seed=seed, steps=rng.randrange(0, 3 * rules.n_boxes))
        if state.finished:
            continue
        if not state.turn.rolls:
            state, _ = state.apply(Roll(0))
        for _ in range(rng.randrange(0, rules.rolls_per_turn)):
            if state.can_roll(0):
                state, _ = state.apply(Roll(0, held=tuple(i for i in range(4) if rng.random() < 0.5)))
        _advice_is_legal(strategy, state)
        for compiled in (True, False):  # the compiled position kernel and the numpy form agree
            assert advise(strategy, position_of(state), compiled=compiled) == advise(strategy, position_of(state))
        checked += 1
    assert checked >= 25


def test_the_optimal_bot_plays_forced_yatzy_through_the_engine(cache_folder: Path) -> None:
    rules = load_ruleset_file(FORCED_YATZY)
    solve(rules, folder=cache_folder)
    state = new_game(rules, ["bot"], seed=7)
    rng = random.Random(7)
    scored = []
    while not state.finished:
        action = choose_action(state, 0, "optimal", rng)
        if isinstance(action, Score):
            scored.append(action.box.rpartition(".")[2])
        state, _ = state.apply(action)
    assert scored == [r.id for r in rules.rows]  # top to bottom


def test_positions_the_order_cannot_reach_and_targets_are_refused(cache_folder: Path) -> None:
    rules = load_ruleset_file(FORCED_YATZY)
    strategy = solve(rules, folder=cache_folder)
    with pytest.raises(PositionError, match="filled in order"):
        advise(strategy, Position(filled={"twos": 4}, dice=(1, 2, 3, 4, 5), roll=1))
    with pytest.raises(UnsupportedRuleset, match="in order"):
        solve_target(rules, 100, cache=False)


@pytest.mark.parametrize("order", ["down", "up", "updown", "middle"])
def test_simulated_games_fill_the_boxes_in_order_and_score_the_table(order: str, cache_folder: Path) -> None:
    """The compiled game loop (every keep and box chosen in the kernel) and the numpy one."""
    from yambak.solver.simulate import _Optimal, _play_block, _play_block_compiled

    rules = load_ruleset(_sheet(order, rolls=3))
    strategy = solve(rules, folder=cache_folder)
    sr = strategy.rules
    rows: list[np.ndarray] = []
    fast = _play_block_compiled(
        sr, strategy, np.random.default_rng(1), 20000, 2, on_entry=lambda _t, r, _w: rows.append(r)
    )
    slow = _play_block(sr, strategy, _Optimal(strategy, 2), np.random.default_rng(2), 4000)[0]
    for scores in (fast[0], slow):
        assert abs(scores.mean() - strategy.expected_score) < 4 * scores.std() / np.sqrt(len(scores))
    filled = np.zeros(20000, dtype=np.int64)
    brute = OrderedBrute(rules)
    ids = [r.id for r in rules.rows]
    for row in rows:  # each game's entry is one the order allows, given what that game has filled
        for mask in np.unique(filled):
            open_rows = frozenset(name for i, name in enumerate(ids) if not mask >> i & 1)
            allowed = {ids.index(name) for name in brute.allowed(open_rows)}
            assert set(np.unique(row[filled == mask]).tolist()) <= allowed
        filled |= 1 << row
    assert (filled == sr.full_mask).all()
