"""A game in this terminal seen as the web sees a table: the game view every face shows
(`yambak.gameview`), with who plays each seat and the table's settings.

The full-screen app draws one thing, a view in the format the server sends to browsers, whether the
game is played here (`yambak play`), kept here (`yambak keep`) or at an online table (`yambak play
--join`). For a game here, `local_view` reads it from the engine exactly as the web's view does.
"""

from __future__ import annotations

from typing import TypedDict

from ..engine import GameState
from ..gameview import game_view
from ..viewtypes import TablePlayer, TableSettingsOut, ViewKeys

__all__ = ["FaceView", "by_roll", "local_view"]


class _TableFaceKeys(TypedDict):
    players: list[TablePlayer]
    v: int
    settings: TableSettingsOut
    open_seats: list[int]
    online: list[int]
    clocks: dict[str, float]


class FaceView(ViewKeys, _TableFaceKeys):
    """What the app draws: the game view with who plays each seat, and the few table keys it reads. A
    server's `TableView` is one as it comes (the same keys and more); `local_view` makes one here."""


def local_view(state: GameState, bots: dict[int, str] | None = None, hints: bool = True) -> FaceView:
    """The view of a game here: `bots` by seat (the others are people at this terminal)."""
    bots = bots or {}
    view = game_view(state, frozenset(range(len(state.players))))  # the JSON a socket brings
    players = [
        TablePlayer(**p, kind="bot" if p["seat"] in bots else "human", bot=bots.get(p["seat"]), bot_model=None)
        for p in view["players"]
    ]
    settings: TableSettingsOut = {"hints": hints, "clock": None, "undo": False}  # a game here has no clock
    return {
        **view,
        "players": players,
        "v": state.serial + len(state.history),
        "settings": settings,
        "open_seats": [],
        "online": [],
        "clocks": {},
    }


def by_roll(view: FaceView, seat: int, box: str) -> str:
    """The end of an entry's line naming a points-by-roll rule where the view says the box was written
    with its early points (Generala's served straight: "(the points of roll 1)"), else nothing."""
    column, _, row = box.rpartition(".")
    shown = view["players"][seat]["columns"].get(column)
    cell = shown["boxes"].get(row) if shown else None
    roll = cell.get("roll") if cell else None
    return f" (the points of roll {roll})" if roll is not None else ""
