"""Whose turn it is at each live table, in the store (mixed into `Store`): the rows a table writes with the
event that starts or ends a turn (`server/tables/turns.py`). They outlive the process: a restart resumes
each turn's clock from its start, the deadlines and reminders of tables out of memory are found here, and
the "your turn" lists read them. All times naive UTC.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import aliased

from .driver import DriverStatement, Statements
from .models import GameSession, Seat, Turn

__all__ = ["TurnRow", "TurnStore"]

Op = Callable[[Connection], object]

# written with every event that starts or ends a turn: compiled once (driver.py)
_TURNS = cast(Table, Turn.__table__)
_CLEAR = DriverStatement(delete(_TURNS).where(_TURNS.c.table_id == bindparam("table_id")))
_ADD = DriverStatement(insert(_TURNS).values({c.name: bindparam(c.name) for c in _TURNS.columns}))


@dataclass(frozen=True)
class TurnRow:
    seat: int
    since_at: datetime
    due_at: datetime | None = None  # the clock runs out (tables with a clock)
    remind_at: datetime | None = None  # a quarter of the clock left (asynchronous tables)
    reminded: bool = False


class TurnStore:
    """The turns half of `Store` (it provides `engine`)."""

    engine: Engine

    @staticmethod
    def turns_op(table_id: str, rows: Sequence[TurnRow]) -> Statements[None]:
        """The table's turns are these from now on (none: the game is over, or only bots are to act)."""
        adds = [(_ADD, {"table_id": table_id, **asdict(r)}) for r in rows]  # one or two: a row each
        return Statements([(_CLEAR, {"table_id": table_id}), *adds], None)

    @staticmethod
    def reminded_op(table_id: str, seat: int) -> Op:
        def op(conn: Connection) -> None:
            conn.execute(update(Turn).where(Turn.table_id == table_id, Turn.seat == seat).values(reminded=True))

        return op

    def turns_of(self, table_id: str) -> dict[int, TurnRow]:
        with self.engine.connect() as conn:
            q = select(Turn.seat, Turn.since_at, Turn.due_at, Turn.remind_at, Turn.reminded)
            return {r.seat: TurnRow(*r) for r in conn.execute(q.where(Turn.table_id == table_id))}

    def due_turns(self, now: datetime, limit: int = 200) -> list[str]:
        """Unfinished tables with a deadline passed or a reminder due (their owner acts on them), the longest
        due first (a table that cannot be loaded does not keep the others waiting for ever)."""
        remind = and_(Turn.remind_at <= now, Turn.reminded.is_(False))
        q = (
            select(Turn.table_id)
            .join(GameSession, GameSession.id == Turn.table_id)
            .where(GameSession.finished.is_(False), or_(Turn.due_at <= now, remind))
            .group_by(Turn.table_id)
            .order_by(func.min(func.coalesce(Turn.remind_at, Turn.due_at)))
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return list(conn.execute(q).scalars())

    def profile_turns(self, profile_id: str, since: datetime | None = None, limit: int = 50) -> list[dict[str, Any]]:
        """The tables where it is this profile's turn: the nearest deadline first, then the newest turn without
        one, begun after `since` (a game without a clock that everybody left is not listed for ever); `first`:
        who sits first there, whom a table without a name of its own is called after."""
        mine, first = aliased(Seat), aliased(Seat)
        first_person = (
            select(func.min(Seat.seat)).where(Seat.table_id == Turn.table_id, Seat.kind == "human").scalar_subquery()
        )
        q = (
            select(
                Turn.table_id,
                Turn.seat,
                Turn.since_at,
                Turn.due_at,
                GameSession.name,
                GameSession.rules,
                first.name.label("first"),
            )  # fmt: skip
            .join(GameSession, GameSession.id == Turn.table_id)
            .join(mine, and_(mine.table_id == Turn.table_id, mine.seat == Turn.seat))
            .join(first, and_(first.table_id == Turn.table_id, first.seat == first_person))
            .where(mine.profile_id == profile_id, GameSession.finished.is_(False))
            .order_by(Turn.due_at.is_(None), Turn.due_at, Turn.since_at.desc())
            .limit(limit)
        )
        if since is not None:
            q = q.where(or_(Turn.due_at.is_not(None), Turn.since_at >= since))
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(q)]
