"""Property-based tests: random legal games of every preset never break an invariant."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import RULE_VARIANTS, variant_id
from yambak.engine import (
    Announce,
    Hold,
    IllegalAction,
    Release,
    Roll,
    Score,
    Withdraw,
    new_game,
    replay,
    state_to_record,
)
from yambak.engine.scoresheet import column_scores, grand_total
from yambak.rules import load_ruleset

SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def candidate_actions(state, p):  # type: ignore[no-untyped-def]
    """A universe of actions, legal and not, for seat p."""
    rules = state.rules
    n = rules.rolled_dice
    boxes = [rules.box_id(b) for b in range(rules.n_boxes)]
    out = [Roll(p), Roll(p, held=tuple(range(n))), Roll(p, held=(0,)), Withdraw(p), Hold(p, (0,)), Release(p, (0,))]
    out += [Roll(p, held=(n,)), Hold(p, (-1,)), Score(p, "nowhere.at_all"), Announce(p, "nowhere")]
    out += [Score(p, b) for b in boxes] + [Score(p, b, strike=True) for b in boxes]
    out += [Announce(p, b) for b in boxes]
    out += [Roll(1 - p if len(state.players) > 1 else p + 5), Score(p + 17, boxes[0])]
    return out


def check_invariants(before, after, event) -> None:  # type: ignore[no-untyped-def]
    rules = after.rules
    for p, (s0, s1) in enumerate(zip(before.sheets, after.sheets, strict=False)):
        changed = [b for b in range(rules.n_boxes) if s0.written[b] != s1.written[b]]
        if event.type == "scored" and event.player == p:
            assert len(changed) == 1 and s0.written[changed[0]] is None  # exactly one box, filled once
            assert s1.turns == s0.turns + 1
            row = rules.rows[changed[0] % rules.n_rows]
            if row.needs:  # a box that needs another is filled after it, and scores only if it scored
                needed = changed[0] - changed[0] % rules.n_rows + rules.row_index[row.needs]
                assert s0.written[needed] is not None
                assert s0.entry_score(needed) or s1.written[changed[0]] == 0
            if rules.save_rolls:  # unused rolls saved, extra ones taken from the saved
                assert s1.saved == s0.saved + rules.rolls_per_turn - event.roll >= 0
            else:
                assert s1.saved == 0 and event.roll <= rules.rolls_per_turn
        else:
            assert not changed
        # totals are sums of their parts
        cols = column_scores(rules, s1)
        for column, c in zip(rules.columns, cols, strict=True):
            pairs = list(zip(rules.rows, c.boxes.values(), strict=True))
            lower = sum(v for r, v in pairs if not r.is_upper and v is not None)
            upper = sum(v for r, v in pairs if r.is_upper and v is not None)
            assert c.upper == upper
            assert c.total == (c.upper + c.bonus + lower + (c.minimax or 0)) * column.multiplier
        assert grand_total(rules, s1) == sum(c.total for c in cols) + s1.extra_bonus
    if not after.simultaneous and event.type == "scored" and not after.finished:
        assert after.current == (event.player + 1) % len(after.players)  # seat order


@pytest.mark.parametrize("variant", RULE_VARIANTS, ids=variant_id)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(1, 3), six=st.booleans())
def test_random_games_keep_invariants_and_round_trip(variant, seed, players, six) -> None:  # type: ignore[no-untyped-def]
    preset, options = variant
    six = six and load_ruleset(preset, options).dice == 5  # six_dice: five of six count
    rules = load_ruleset(preset, options, ["six_dice"] if six else None)
    state = new_game(rules, [f"P{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    while not state.finished:
        actions = state.legal_actions()
        assert actions, "a player in turn always has a legal action"
        before = state
        state, event = state.apply(rng.choice(actions))
        check_invariants(before, state, event)
    if state.outright is None:
        assert all(s.full for s in state.sheets)
        assert len(state.history) == rules.n_boxes * players
    else:  # an outright win ends the game at once, the winner's turn last
        won = state.history[-1].player
        assert state.outright.seats == (won,) and state.winners() == [won]
        assert state.outright.turn == state.sheets[won].turns
    record = state_to_record(state)
    rebuilt = replay(record.to_dict())
    assert rebuilt.sheets == state.sheets
    assert state_to_record(rebuilt).to_dict() == {**record.to_dict()}
    assert rebuilt.match_points() == state.match_points()


@pytest.mark.parametrize("variant", RULE_VARIANTS[::3], ids=variant_id)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 120))
def test_legal_actions_agree_with_apply(variant, seed, steps) -> None:  # type: ignore[no-untyped-def]
    """Every listed action applies; every other candidate is refused and changes nothing."""
    preset, options = variant
    rules = load_ruleset(preset, options)
    state = new_game(rules, ["A", "B"], seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.finished:
            break
        state, _ = state.apply(rng.choice(state.legal_actions()))
    if state.finished:
        return
    p = state.current
    legal = state.legal_actions(p)
    for action in legal:
        state.apply(action)  # must not raise
    legal_boxes = set(state.preview(p))
    snapshot = state_to_record(state).to_dict()
    for action in candidate_actions(state, p):
        try:
            state.apply(action)
            accepted = True
        except IllegalAction as exc:
            accepted = False
            assert exc.code.startswith("illegal/") and exc.message
        if isinstance(action, Score) and action.player == p:
            expect = (
                rules.parse_box(action.box) is not None and rules.box_id(rules.parse_box(action.box)) in legal_boxes
            )
            if action.strike and not rules.strike_any:
                expect = False
            assert accepted == expect, action
        elif isinstance(action, (Announce, Withdraw)):
            assert accepted == (action in legal), action
        elif isinstance(action, Roll) and action.player == p and action.held in (None, (0,)):
            assert accepted == state.can_roll(p) or not state.turns[p].rolls, action
        assert state_to_record(state).to_dict() == snapshot
