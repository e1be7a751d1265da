"""The pure game engine: immutable states, actions, events, dice sources and records.

>>> from yambak.rules import load_ruleset
>>> from yambak.engine import new_game, Roll, Score
>>> state = new_game(load_ruleset("yams"), ["Ann"], seed=1)
>>> state, event = state.apply(Roll(0))
>>> state, event = state.apply(Score(0, "chance"))
>>> event.type, event.written == sum(event.dice)
('scored', True)
"""

from .actions import Action, Announce, Hold, Release, Roll, Score, Undo, Withdraw
from .dice import DiceSource, DuplicateDice, ManualDice, RollContext, SecureDice, SeededDice
from .errors import IllegalAction, RecordError, YambakError
from .fairness import FairDice, Nonce, verify_record
from .keeping import entry_turn, play_turn, scratch_turn, typed_turn
from .outlook import BoxOutlook, EntryBound, Outlook
from .record import FORMAT, GameRecord, replay, state_to_record, summary
from .revision import Revision, revise, undo
from .scoresheet import ColumnScore, Sheet
from .state import Event, GameState, Turn, TurnRecord, new_game

__all__ = [
    "Action",
    "Announce",
    "BoxOutlook",
    "ColumnScore",
    "DiceSource",
    "DuplicateDice",
    "EntryBound",
    "Event",
    "FairDice",
    "FORMAT",
    "GameRecord",
    "GameState",
    "Hold",
    "IllegalAction",
    "ManualDice",
    "Nonce",
    "Outlook",
    "RecordError",
    "Release",
    "Revision",
    "Roll",
    "RollContext",
    "Score",
    "SecureDice",
    "SeededDice",
    "Sheet",
    "Turn",
    "TurnRecord",
    "Undo",
    "Withdraw",
    "YambakError",
    "new_game",
    "replay",
    "play_turn",
    "revise",
    "entry_turn",
    "scratch_turn",
    "state_to_record",
    "summary",
    "typed_turn",
    "undo",
    "verify_record",
]
