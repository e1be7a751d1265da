"""Whose turn it is at each live table (store/turns.py), on SQLite and PostgreSQL: the rows an event's
transaction writes replace the table's rows, and the deadlines and reminders read them back."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from yambak.store import SessionRow, Store
from yambak.store.turns import TurnRow


def _table(store: Store) -> str:
    tid = secrets.token_hex(8)
    store.create(SessionRow(tid, "t", "yams", False, False, None, {}))
    return tid


def test_turn_rows_replace_the_tables_rows(store):
    tid, other = _table(store), _table(store)
    t0 = datetime(2026, 12, 3, 12, 0, 0)
    due = t0 + timedelta(hours=1)
    store._sync(Store.turns_op(other, [TurnRow(seat=0, since_at=t0)]))  # another table's rows stay
    store._sync(Store.turns_op(tid, [TurnRow(seat=0, since_at=t0), TurnRow(1, t0, due, t0, True)]))
    assert store.turns_of(tid) == {0: TurnRow(0, t0), 1: TurnRow(1, t0, due, t0, True)}
    later = t0 + timedelta(minutes=5)
    store._sync(Store.turns_op(tid, [TurnRow(seat=1, since_at=later, due_at=due)]))  # seat 0's turn ended
    assert store.turns_of(tid) == {1: TurnRow(1, later, due)}
    assert store.due_turns(due) == [tid] and store.due_turns(due - timedelta(seconds=1)) == []
    store._sync(Store.turns_op(tid, []))  # the game is over
    assert store.turns_of(tid) == {} and store.turns_of(other) == {0: TurnRow(0, t0)}
