"""A finished game's results keep an outright win (docs/rules.md §7) as the turn its seat won it on, so that
a board of one-seat games ranks it as a win (docs/rulesets.md, "Ranking one-seat games")."""

from __future__ import annotations

from datetime import datetime

from yambak.engine import ManualDice, Roll, Score, new_game
from yambak.rules import load_ruleset
from yambak.server.profiles.results import table_results
from yambak.store import SeatRow


def test_a_served_generala_is_kept_as_the_turn_it_was_won_on() -> None:
    state = new_game(load_ruleset("generala"), ["Ann"], dice=ManualDice())
    for dice, box in (((1, 1, 2, 3, 4), "ones"), ((3, 3, 3, 3, 3), "yam")):
        state, _ = state.apply(Roll(0, dice=dice))
        state, _ = state.apply(Score(0, box))
    assert state.finished
    [row] = table_results("t", [SeatRow(0, "human", "Ann", profile_id="ann")], state, datetime(2026, 3, 3), "daily")
    assert (row.score, row.outright_turn, row.won) == (2 + 50, 2, False)  # alone: a win at once, no one beaten
    other = new_game(load_ruleset("generala"), ["Bo"], dice=ManualDice())
    other, _ = other.apply(Roll(0, dice=(3, 3, 3, 3, 3)))
    other, _ = other.apply(Score(0, "threes"))  # a generala in another box wins nothing at once
    [row] = table_results("t", [SeatRow(0, "human", "Bo", profile_id="bo")], other, datetime(2026, 3, 3), "daily")
    assert (row.score, row.outright_turn) == (15, None)


def test_a_replay_frame_says_which_turn_won_outright() -> None:
    from yambak.engine import state_to_record
    from yambak.server.replays import frame

    state = new_game(load_ruleset("generala"), ["Ann", "Bo"], dice=ManualDice())
    for seat, dice, box in ((0, (1, 1, 2, 3, 4), "ones"), (1, (2, 3, 4, 6, 6), "sixes"), (0, (6,) * 5, "yam")):
        state, _ = state.apply(Roll(seat, dice=dice))
        state, _ = state.apply(Score(seat, box))
    record = state_to_record(state).to_dict()
    assert "outright" not in frame(record, 2)  # before the winning turn
    last = frame(record, 3)
    assert last["outright"] == {"seats": [0], "turn": 2, "box": "free.yam", "by_roll": 1} and last["round"] == 2


def test_the_history_lists_a_game_won_outright_as_such() -> None:
    from yambak.server.profiles.history import game_item

    state = new_game(load_ruleset("generala"), ["Ann"], dice=ManualDice())
    state, _ = state.apply(Roll(0, dice=(6, 6, 6, 6, 6)))
    state, _ = state.apply(Score(0, "yam"))
    [row] = table_results("t", [SeatRow(0, "human", "Ann", profile_id="ann")], state, datetime(2026, 3, 3))
    item = game_item(row, "en", {})
    assert (item["score"], item["outright"], item["won"]) == (50, 1, False)  # alone: no one beaten, a win at once
