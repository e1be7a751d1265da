"""How server features tell each other what happened, without importing each other.

A feature publishes a fact; the features that care subscribed to its type at start-up (the app is
where they meet, `server/lifespan.py`). The facts today:

- `GameEnding`: a live table's game ends with the action being stored now. A handler may answer
  with a `Write`, which joins that action's transaction (a player's results are stored exactly
  once, with the game's last event) and is told its outcome once committed.
- `NamesRemoved`: a deleted profile's name left these tables and sheets in the store; copies in
  memory load them again.
- `SeatsRevoked`: seats of these tables lost their token in the store (the device it was given to signed
  out of the seat's profile); copies in memory load their seats again, and its sockets lose those seats.
- `TurnSignal`: a player at an asynchronous table should hear of it (their turn began, or a quarter of
  its clock is left) while they are not at the table: Web Push tells their devices.
- `Graded`: the coach graded a result; a handler may answer with a `Write` that joins the transaction
  storing the grade (the fair-play review voids a thrown ranked game there).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy.engine import Connection

from ...engine import GameState
from ...store import ResultRow, SeatRow

__all__ = ["Events", "GameEnding", "Graded", "NamesRemoved", "SeatsRevoked", "TurnSignal", "Write"]

log = logging.getLogger("yambak.server")
E = TypeVar("E")


@dataclass(frozen=True)
class GameEnding:
    table_id: str
    state: GameState  # the finished game
    seats: tuple[SeatRow, ...]
    deal: str | None  # the deal the table played (`daily:...`, `club:...`), if any
    at: datetime  # naive UTC
    ranked: str | None = None  # a ranked table's preset: its game rates its players (server/ranked)


@dataclass(frozen=True)
class NamesRemoved:
    """The sessions of each kind ("table", "sheet") whose stored names changed."""

    sessions: dict[str, tuple[str, ...]]


@dataclass(frozen=True)
class SeatsRevoked:
    """Tables some of whose seats lost their token in the store."""

    tables: tuple[str, ...]


@dataclass(frozen=True)
class TurnSignal:
    """It is `profile_id`'s turn at `table_id` (`kind` "turn": it began; "reminder": a quarter of the clock
    is left, the deadline `due_at`, naive UTC)."""

    table_id: str
    table_name: str
    seat: int
    profile_id: str
    kind: str  # turn | reminder
    due_at: datetime | None = None
    first: str = ""  # the first person's name: a table made in one click (no name stored) is called after them


@dataclass(frozen=True)
class Graded:
    """A result's grade is being stored: its points lost per decision (None: no decision had a choice)."""

    result: ResultRow
    accuracy: float | None


@dataclass(frozen=True)
class Write:
    """A store operation to run in the publisher's transaction, and what to do with its result."""

    op: Callable[[Connection], Any]
    committed: Callable[[Any], None] = lambda _result: None


class Events:
    def __init__(self) -> None:
        self._now: dict[type, list[Callable[[Any], Any]]] = {}
        self._later: dict[type, list[Callable[[Any], Awaitable[None]]]] = {}

    def on(self, kind: type[E], handler: Callable[[E], Any]) -> None:
        """A handler run in the publisher's own step (it must not block); its answers are collected."""
        self._now.setdefault(kind, []).append(handler)

    def on_async(self, kind: type[E], handler: Callable[[E], Awaitable[None]]) -> None:
        self._later.setdefault(kind, []).append(handler)

    def collect(self, event: object) -> list[Any]:
        """Every synchronous handler's answer to the event (None answers left out)."""
        answers = (handler(event) for handler in self._now.get(type(event), ()))
        return [a for a in answers if a is not None]

    async def publish(self, event: object) -> None:
        """Run every asynchronous handler; one that fails is logged and does not stop the others."""
        for handler in self._later.get(type(event), ()):
            try:
                await handler(event)
            except Exception:
                log.exception("a handler of %s failed", type(event).__name__)
