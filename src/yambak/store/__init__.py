"""Persistence behind one interface: SQLite by default (WAL), PostgreSQL by URL.

Every accepted action is appended to the table's event log as a versioned event
and committed before the server broadcasts it; a (table, version) pair is
unique, so an action can never be stored twice and two writers can never both
store the same version. The game record is a snapshot beside the log, taken
every few events and at the end. Server writes go through a group-committing
writer thread, off the event loop.
"""

from .daily import DealRow, DealScore, Member, SoloBest, TournamentRow
from .profiles import ProfileRow, ResultRow, StatsRow, placeholder
from .ranked import ChangeRow, RatingRow
from .store import DEFAULT_URL, EntryRow, EventRow, KeeperRow, SeatRow, Store, StoreConflict, TableRow

__all__ = [
    "ChangeRow",
    "RatingRow",
    "DEFAULT_URL",
    "DealRow",
    "DealScore",
    "EntryRow",
    "EventRow",
    "KeeperRow",
    "Member",
    "ProfileRow",
    "ResultRow",
    "SeatRow",
    "SoloBest",
    "StatsRow",
    "Store",
    "StoreConflict",
    "TableRow",
    "TournamentRow",
    "placeholder",
]
