"""The view every face reads: what it says about turn order and standings is the engine's."""

from __future__ import annotations

from tests.conftest import play_random
from yambak.engine import ManualDice, Roll, Score, new_game, play_turn, typed_turn
from yambak.gameview import game_view
from yambak.rules import load_ruleset


def test_the_view_says_whose_turn_follows_and_the_standings_at_the_end() -> None:
    state = play_random(load_ruleset("yammen"), 3, seed=5)
    view = game_view(state)
    assert view["next_seat"] == [state.next_seat(s) for s in range(3)] == [1, 2, 0]
    assert view["standings"] == state.standings() and view["ranking"] == state.ranking()
    assert view["ranking"][0] in view["winners"]
    running = game_view(play_random(load_ruleset("yams"), 2, seed=5, steps=10))
    assert "standings" not in running and "ranking" not in running and running["next_seat"] == [1, 0]


def test_players_level_on_everything_share_a_place() -> None:
    rules = load_ruleset("yams")
    state = new_game(rules, ["Ann", "Bea", "Cas"], dice=ManualDice())
    while not state.finished:  # Ann and Bea write the same; Cas writes less
        seat, box = state.current, rules.box_id(len(state.history) // 3)
        dice = (1, 1, 1, 1, 1) if seat == 2 else (6, 6, 6, 6, 6)
        state = play_turn(state, typed_turn(state, dice, 1, box))
    view = game_view(state)
    assert view["standings"] == [1, 1, 3] and view["ranking"] == [0, 1, 2] and view["winners"] == [0, 1]


def test_a_points_by_roll_entry_names_its_roll() -> None:
    # Generala's straight pays 25 served (roll 1) and 20 later; its full house 35 and 30: the sheet names
    # the roll where it paid more, and nothing where the later roll's points were written
    rules = load_ruleset("generala")
    state = new_game(rules, ["Ann"], dice=ManualDice())
    for dice, roll, box in [((1, 2, 3, 4, 5), 1, "straight"), ((2, 2, 3, 3, 3), 2, "full_house"),
                            ((6, 6, 6, 6, 1), 1, "four_kind"), ((1, 1, 1, 2, 2), 3, "ones")]:  # fmt: skip
        state = play_turn(state, typed_turn(state, dice, roll, box))
    boxes = next(iter(game_view(state)["players"][0]["columns"].values()))["boxes"]
    assert boxes["straight"] == {"score": 25, "roll": 1}
    assert boxes["four_kind"] == {"score": 45, "roll": 1}
    assert boxes["full_house"] == {"score": 30} and boxes["ones"] == {"score": 3}
    # Yamb's straight: 66, 56, 46 by roll; the second roll's 56 is more than the last's
    yamb = load_ruleset("yamb")
    state = new_game(yamb, ["Ann"], dice=ManualDice())
    state = play_turn(state, typed_turn(state, (2, 3, 4, 5, 6), 2, "free.straight"))
    assert game_view(state)["players"][0]["columns"]["free"]["boxes"]["straight"] == {"score": 56, "roll": 2}


def test_an_outright_win_is_in_the_view_with_the_roll_it_needed() -> None:
    """docs/rules.md §7: the faces word it from the view ("won outright: served generala"), never a total."""
    state = new_game(load_ruleset("generala"), ["Ann", "Bo"], dice=ManualDice(), simultaneous=True)
    state, _ = state.apply(Roll(0, dice=(3, 3, 3, 3, 3)))
    state, _ = state.apply(Score(0, "yam"))
    view = game_view(state, frozenset({0}))  # Bo still plays the turn: Ann sees her win, the game not over
    assert not view["finished"] and view["outright"] == {"seats": [0], "turn": 1, "box": "free.yam", "by_roll": 1}
    assert "outright" not in game_view(state, frozenset({1}))  # Bo, before his turn 1: it would tell his dice
    state, _ = state.apply(Roll(1, dice=(3, 3, 3, 3, 3)))
    state, _ = state.apply(Score(1, "threes"))
    view = game_view(state)
    assert view["finished"] and view["winners"] == [0] and view["outright"]["seats"] == [0]
    assert "outright" not in game_view(new_game(load_ruleset("generala"), ["Ann"], dice=ManualDice()))
    # what the exact coach's values count such a win as, for the faces to say (none where nothing wins so)
    assert view["rules"]["win_points"] == load_ruleset("generala").win_points == 400
    assert game_view(new_game(load_ruleset("yams"), ["Ann"]))["rules"]["win_points"] is None
