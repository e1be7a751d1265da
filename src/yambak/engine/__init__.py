"""The pure game engine: immutable states, actions, events, dice sources and records.

A `GameState` is read and played in the spirit of OpenSpiel's `State`: `to_act()`, `legal_actions()`,
`apply(action)` (a new state and the event), `outlook()` (everything a face shows about the position),
`finished` and `returns()`. Its queries about a sheet (`legal_boxes`, `fillable`, `entry_bounds`) speak
in box indices (column x rows + row; `rules.box_id` names one); actions, events, records and what faces
show (`preview`, `outlook`) name boxes by id (`column.row`).

>>> from yambak.rules import load_ruleset
>>> from yambak.engine import new_game, Roll, Score
>>> state = new_game(load_ruleset("yams"), ["Ann"], seed=1)
>>> state, event = state.apply(Roll(0))
>>> state, event = state.apply(Score(0, "chance"))
>>> event.type, event.written == sum(event.dice)
('scored', True)
"""

from .actions import Action, Announce, Hold, Release, Roll, Score, Undo, Withdraw
from .dice import DiceSource, DuplicateDice, ManualDice, SecureDice, SeededDice
from .errors import IllegalAction, RecordError
from .fairness import FairDice, Nonce, verify_record
from .keeping import entry_boxes, entry_turn, play_turn, scratch_turn, typed_turn
from .record import GameRecord, replay, state_to_record, summary
from .revision import revise
from .scoresheet import Sheet
from .state import Event, GameState, TurnRecord, new_game, rank_key

# Exactly what the other packages use (tests/engine/test_surface.py); the rest stays in its module.
__all__ = [
    "Action",
    "Announce",
    "DiceSource",
    "DuplicateDice",
    "Event",
    "FairDice",
    "GameRecord",
    "GameState",
    "Hold",
    "IllegalAction",
    "ManualDice",
    "Nonce",
    "RecordError",
    "Release",
    "Roll",
    "Score",
    "SecureDice",
    "SeededDice",
    "Sheet",
    "TurnRecord",
    "Undo",
    "Withdraw",
    "entry_boxes",
    "entry_turn",
    "new_game",
    "play_turn",
    "rank_key",
    "replay",
    "revise",
    "scratch_turn",
    "state_to_record",
    "summary",
    "typed_turn",
    "verify_record",
]
