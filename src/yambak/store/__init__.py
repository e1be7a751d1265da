"""Persistence behind one interface: SQLite by default (WAL), PostgreSQL by URL.

Every accepted action is appended as a versioned event together with the
table's game record (RULES.md section 11) in one transaction, before the server
broadcasts it. A (table, version) pair is unique, so an action can never be
stored twice.
"""

from .store import DEFAULT_URL, EventRow, KeeperRow, SeatRow, Store, StoreConflict, TableRow

__all__ = ["DEFAULT_URL", "EventRow", "KeeperRow", "SeatRow", "Store", "StoreConflict", "TableRow"]
