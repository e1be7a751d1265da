"""Persistence behind one interface: SQLite by default (WAL), PostgreSQL by URL.

Every accepted action is appended to its game session's event log as a versioned event
and committed before the server broadcasts it; a (table, version) pair is
unique, so an action can never be stored twice and two writers can never both
store the same version. The game record is a snapshot beside the log, taken
every few events and at the end. Server writes go through a group-committing
writer that never blocks the event loop.
"""

from .daily import DealRow, DealScore, LogEntry, Member, SoloBest, TournamentRow
from .decisions import DecisionRow, KindLoss, Losses, MistakeRow
from .fairplay import REVIEWED, AssistedRow, Rate
from .profiles import ProfileRow, ResultRow, StatsRow, placeholder
from .push import PushRow
from .ranked import ChangeRow, RatingRow
from .store import DEFAULT_URL, EventRow, Op, RefTaken, SeatRow, SessionRow, Statements, Store, StoreConflict
from .trainer import TrainerAnswerRow, TrainerRatingRow
from .turns import TurnRow

__all__ = [
    "AssistedRow",
    "REVIEWED",
    "Rate",
    "ChangeRow",
    "RatingRow",
    "DEFAULT_URL",
    "DealRow",
    "DealScore",
    "DecisionRow",
    "LogEntry",
    "EventRow",
    "Op",
    "KindLoss",
    "Losses",
    "Member",
    "MistakeRow",
    "ProfileRow",
    "PushRow",
    "RefTaken",
    "ResultRow",
    "SeatRow",
    "SessionRow",
    "SoloBest",
    "Statements",
    "StatsRow",
    "Store",
    "StoreConflict",
    "TournamentRow",
    "TrainerAnswerRow",
    "TrainerRatingRow",
    "TurnRow",
    "placeholder",
]
