"""The family's games (Kniffel, Yacht, Generala, Maxi Yatzy, Kismet, yams with the free joker)
against a second implementation written from their public rules (family_oracle.py): every box
of every roll, and random legal games of every option, replayed by both."""

from __future__ import annotations

import itertools
import random

import pytest

from tests.conftest import play_random
from tests.engine import family_oracle as oracle
from yambak.engine import Roll, Score, new_game, replay, state_to_record, summary
from yambak.engine.dice import ManualDice
from yambak.rules import load_ruleset, row_score

VARIANTS = [
    ("kniffel", {}),
    ("kniffel", {"extra_kniffels": True}),
    ("yams", {"joker": "free"}),
    ("yacht", {}),
    ("generala", {}),
    ("generala", {"served": "points", "wrap_straight": True}),
    ("maxi-yatzy", {}),
    ("kismet", {}),
]


def _ids(v: tuple[str, dict]) -> str:
    return v[0] + "".join(f"-{k}={x}" for k, x in v[1].items())


@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_every_box_of_every_roll(variant) -> None:  # type: ignore[no-untyped-def]
    """Every roll (all 252 multisets of five dice, all 462 of six for Maxi Yatzy: both sides count the
    dice, so the order never matters, which a shuffled copy of each checks too), every box, every
    roll number: the engine's row kinds and the oracle write the same value (0 disagreements)."""
    game, options = variant
    rules = load_ruleset(game, options)
    filled = {"yam": 50}  # the double generala reads whether the generala scored
    disagreements = []
    rng = random.Random(1)
    for hand in itertools.combinations_with_replacement(range(1, 7), rules.dice):
        dice = tuple(rng.sample(hand, len(hand)))
        for row in rules.rows:
            if row.needs:
                continue  # read through the engine below
            for roll in (1, 2, 3) if isinstance(row.points, tuple) else (3,):
                mine = row_score(row, dice, roll)
                theirs = oracle.score(game, options, row.id, list(dice), roll, filled)
                if mine != theirs:
                    disagreements.append((row.id, dice, roll, mine, theirs))
    assert disagreements == []


@pytest.mark.parametrize("variant", VARIANTS, ids=_ids)
def test_random_games_agree_with_the_oracle(variant) -> None:  # type: ignore[no-untyped-def]
    game, options = variant
    rules = load_ruleset(game, options)
    for seed in range(6):
        state = play_random(rules, 1 + seed % 3, seed)
        record = state_to_record(state).to_dict()
        assert summary(state) == oracle.replay(record), f"seed {seed}"
        assert summary(replay(record)) == summary(state)


def _turn(state, dice, box, rolls=1):  # type: ignore[no-untyped-def]
    p = state.current
    for _ in range(rolls):
        state, _ = state.apply(Roll(p, dice=dice))
    state, event = state.apply(Score(p, box))
    return state, event


def test_saved_rolls_carry_over_and_run_out() -> None:
    rules = load_ruleset("maxi-yatzy")
    state = new_game(rules, ["A"], dice=ManualDice())
    six = (1, 2, 3, 4, 5, 6)
    state, _ = _turn(state, six, "full_straight")  # one roll: two saved
    assert state.sheets[0].saved == 2 and state.rolls_allowed() == 5
    p = 0
    for _ in range(5):
        state, _ = state.apply(Roll(p, dice=six))
    assert not state.can_roll() and state.outlook().rolls_left == 0
    with pytest.raises(Exception, match="2 saved"):
        state.apply(Roll(p, dice=six))
    state, _ = state.apply(Score(p, "chance"))
    assert state.sheets[0].saved == 0 and state.rolls_allowed() == 3


def test_random_games_never_break_the_saved_rolls_rule() -> None:
    rules = load_ruleset("maxi-yatzy")
    rng = random.Random(5)
    for seed in range(4):
        state = play_random(rules, 2, seed)
        saved = [0, 0]
        for turn in state.history:
            assert len(turn.rolls) <= 3 + saved[turn.player]
            saved[turn.player] += 3 - len(turn.rolls)
            assert saved[turn.player] >= 0
        assert [s.saved for s in state.sheets] == saved
    assert rng  # the games are seeded


def test_generala_served_wins_at_once_and_double_needs_generala() -> None:
    rules = load_ruleset("generala")
    state = new_game(rules, ["A", "B"], dice=ManualDice())
    state, _ = state.apply(Roll(0, dice=(3, 3, 3, 3, 3)))
    out = state.outlook()
    assert out.box("free.double_yam").code == "illegal/needs"
    with pytest.raises(Exception, match="only after free.yam"):
        state.apply(Score(0, "double_yam"))
    state, event = state.apply(Score(0, "yam"))
    assert event.game_over and state.finished and state.winners() == [0] and state.standings() == [1, 2]
    # not served: 50, and the game goes on; a later generala doubles
    state = new_game(rules, ["A"], dice=ManualDice())
    state, _ = _turn(state, (3, 3, 3, 3, 3), "yam", rolls=2)
    assert not state.finished and state.total(0) == 50
    state, _ = _turn(state, (5, 5, 5, 5, 5), "double_yam")  # served, but only the generala box wins
    assert not state.finished and state.total(0) == 150
    # a crossed-out generala leaves the double worth nothing
    state = new_game(rules, ["A"], dice=ManualDice())
    state, _ = _turn(state, (1, 2, 4, 4, 6), "yam", rolls=3)
    state, _ = _turn(state, (6, 6, 6, 6, 6), "double_yam", rolls=2)
    assert state.sheets[0].written[rules.row_index["double_yam"]] == 0


def test_free_joker_goes_anywhere_forced_does_not() -> None:
    """Forced: a further yam of fours must fill fours. Free (Verhoeff's reading): any open box, scoring
    as a joker (a full house, every straight) only once fours is filled."""
    for placement, legal in (("forced", {"free.fours"}), ("free", None)):
        rules = load_ruleset("yams", {"joker": placement})
        state = new_game(rules, ["A"], dice=ManualDice())
        state, _ = _turn(state, (4, 4, 4, 4, 4), "yam")
        state, _ = state.apply(Roll(0, dice=(4, 4, 4, 4, 4)))
        boxes = {b.box for b in state.outlook().legal}
        if legal is None:
            assert len(boxes) == 12
            assert state.preview()["free.large_straight"] == 0 and state.preview()["free.fours"] == 20
            state, event = state.apply(Score(0, "fours"))
            state, _ = state.apply(Roll(0, dice=(4, 4, 4, 4, 4)))
            assert state.preview()["free.large_straight"] == 40 and state.preview()["free.ones"] == 0
        else:
            assert boxes == legal
        _, event = state.apply(Score(0, "large_straight" if legal is None else "fours"))
        assert event.extra_bonus == 100


def test_joker_none_keeps_the_bonus_without_the_joker() -> None:
    data = load_ruleset("yams").spec
    assert data == "yams"
    from yambak.rules.loader import preset_data

    raw = preset_data("yams")
    raw["joker"] = {"row": "yam", "bonus": 100, "placement": "none"}
    raw.pop("options")
    rules = load_ruleset(raw)
    state = new_game(rules, ["A"], dice=ManualDice())
    state, _ = _turn(state, (2, 2, 2, 2, 2), "yam")
    state, _ = state.apply(Roll(0, dice=(2, 2, 2, 2, 2)))
    assert state.preview()["free.large_straight"] == 0 and len(state.preview()) == 12
    _, event = state.apply(Score(0, "chance"))
    assert event.extra_bonus == 100 and event.written == 10


MIXED = {
    "id": "mixed",
    "name": "Every new kind at once",
    "dice": 6,
    "save_rolls": True,
    "faces": {"colours": ["black", "red", "green", "green", "red", "black"]},
    "upper_bonus": {"steps": [[30, 10], [60, 40]]},
    "rows": [
        {"id": "ones", "kind": "upper", "face": 1},
        {"id": "sixes", "kind": "upper", "face": 6},
        {"id": "pairs3", "kind": "three_pairs", "points": "matched"},
        {"id": "castle", "kind": "house", "sizes": [3, 3], "points": "matched", "same_colour": True},
        {"id": "exact4", "kind": "kind", "n": 4, "exact": True, "points": [30, 20, 10]},
        {"id": "flush", "kind": "flush", "points": 25},
        {"id": "run6", "kind": "straight", "runs": [[1, 2, 3, 4, 5, 6]], "points": 40, "wins_by_roll": 1},
        {"id": "six", "kind": "yam", "points": 100},
        {"id": "again", "kind": "yam", "points": 200, "needs": "six"},
    ],
    "columns": [{"id": "down", "order": "down"}, {"id": "free"}],
}


def test_every_new_kind_at_once_on_two_columns_keeps_the_engine_consistent() -> None:
    """A ruleset file mixing every new rule on two columns: random legal games of two players replay to
    the same state, and every box the outlook offers is one `apply` takes."""
    rules = load_ruleset(MIXED)
    for seed in range(5):
        state = play_random(rules, 2, seed)
        assert state.finished
        again = replay(state_to_record(state).to_dict())
        assert summary(again) == summary(state)
        for t in state.history:
            if t.box.endswith(".again"):
                column = t.box.split(".")[0]
                six = [h for h in state.history if h.player == t.player and h.box == f"{column}.six"][0]
                assert state.history.index(six) < state.history.index(t)
    partial = play_random(rules, 2, 11, steps=40)
    if not partial.finished and partial.turn.rolls:
        out = partial.outlook()
        for b in out.legal:
            partial.apply(Score(partial.current, b.box))  # must not raise
