"""A table's turn clock: when each person's turn began, and how long they have left.

Times are the server's clock (`Settings.clock`, seconds since the epoch), the same on every process,
so that an owner that takes a table over counts on from where the last one was. A table without a
clock (`TableSettings.clock` None) has no deadline; a ranked game's clock runs once every seat is
taken. What happens when a clock runs out is the stand-in's (`standin.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from ...viewtypes import JSONObject

if TYPE_CHECKING:
    from ...engine import GameState
    from .table import LiveTable

__all__ = ["TurnClock"]


class TurnClock:
    def __init__(self, now: Callable[[], float]) -> None:
        self.now = now

    def start(self, table: LiveTable, seats: Iterable[int] | None = None) -> None:
        """The clocks of these seats (default: every seat to act) start now."""
        now = self.now()
        for seat in table.state.to_act() if seats is None else seats:
            table.turn_started[seat] = now
            table.reminded.discard(seat)

    def resume(self, table: LiveTable, stored: Mapping[int, float] | None = None) -> None:
        """A table comes into memory: the seats to act keep the start they had here, else the one `stored`
        with their turn (an asynchronous table's, `turns.py`: a restart does not give a day's clock back),
        else start now."""
        now, stored = self.now(), stored or {}
        table.turn_started = {s: table.turn_started.get(s, stored.get(s, now)) for s in table.state.to_act()}

    @staticmethod
    def starting(before: GameState, after: GameState, event: JSONObject) -> set[int]:
        """The seats whose turn begins with this event (a duplicate table's player who scored starts anew)."""
        acting = set(before.to_act())
        scored = event.get("player") if event.get("type") == "scored" else None
        return {s for s in after.to_act() if s not in acting or s == scored}

    def applied(self, table: LiveTable, before: GameState, event: JSONObject) -> None:
        """An event is the table's state: a turn that begins starts its clock."""
        now = self.now()
        for seat in self.starting(before, table.state, event):
            table.turn_started[seat] = now
            table.reminded.discard(seat)

    def running(self, table: LiveTable) -> bool:
        waiting = table.settings.ranked is not None and any(s.kind == "open" for s in table.seats)
        return table.settings.clock is not None and not table.state.finished and not waiting

    def started(self, table: LiveTable, seat: int) -> float:
        return table.turn_started.get(seat, self.now())

    def deadline(self, table: LiveTable, seat: int) -> float | None:
        """When the seat's turn clock runs out, by the server's clock (None: no clock runs)."""
        if not self.running(table):
            return None
        return self.started(table, seat) + float(table.settings.clock or 0)

    def left(self, table: LiveTable, now: float | None = None) -> dict[str, float]:
        """Seconds left on the turn clock of each person to act (tables with a clock)."""
        if not self.running(table):
            return {}
        now = self.now() if now is None else now
        limit = float(table.settings.clock or 0)
        return {
            str(s): max(0.0, limit - (now - self.started(table, s)))
            for s in table.state.to_act()
            if table.seats[s].kind == "human"
        }

    def ran_out(self, table: LiveTable, seat: int, now: float | None = None) -> bool:
        left = self.left(table, now).get(str(seat))
        return left is not None and left <= 0
