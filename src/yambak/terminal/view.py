"""A game in this terminal seen as the web sees a table: the server's own view of it.

The full-screen app draws one thing, a table view in the format the server sends to
browsers (`server/tables/view.py`), whether the game is played here (`yambak play`),
kept here (`yambak keep`) or at an online table (`yambak play --join`). For a game
here, `local_view` hands the server's `table_view` a table that lives in this process,
so the boxes, previews and totals are read from the engine exactly as the web reads them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine import GameState
from ..server.tables.settings import TableSettings
from ..server.tables.view import table_view

__all__ = ["local_view"]


@dataclass(frozen=True)
class _Seat:
    seat: int
    kind: str  # human | bot
    bot: str | None = None


@dataclass
class _HereTable:
    """What `table_view` reads of a table, for a game with every seat at this terminal."""

    state: GameState
    seats: list[_Seat]
    settings: TableSettings
    id: str = ""
    name: str = ""
    version: int = 0
    rematch: str | None = None
    fairness: None = None
    conns: set[Any] = field(default_factory=set)

    def clocks(self) -> dict[str, float]:
        return {}


def local_view(state: GameState, bots: dict[int, str] | None = None, hints: bool = True) -> dict[str, Any]:
    """The table view of a game here: `bots` by seat (the others are people at this terminal)."""
    bots = bots or {}
    seats = [_Seat(p, "bot" if p in bots else "human", bots.get(p)) for p in range(len(state.players))]
    return table_view(_HereTable(state, seats, TableSettings(hints=hints), version=state.serial + len(state.history)))
