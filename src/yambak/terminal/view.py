"""A game in this terminal seen as the web sees a table: the game view every face shows
(`yambak.gameview`), with who plays each seat and the table's settings.

The full-screen app draws one thing, a view in the format the server sends to browsers, whether the
game is played here (`yambak play`), kept here (`yambak keep`) or at an online table (`yambak play
--join`). For a game here, `local_view` reads it from the engine exactly as the web's view does.
"""

from __future__ import annotations

from typing import Any

from ..engine import GameState
from ..gameview import game_view

__all__ = ["by_roll", "local_view"]


def local_view(state: GameState, bots: dict[int, str] | None = None, hints: bool = True) -> dict[str, Any]:
    """The view of a game here: `bots` by seat (the others are people at this terminal)."""
    bots = bots or {}
    view: dict[str, Any] = {**game_view(state, frozenset(range(len(state.players))))}  # the JSON a socket brings
    for p in view["players"]:
        p["kind"], p["bot"] = ("bot", bots[p["seat"]]) if p["seat"] in bots else ("human", None)
    view.update(v=state.serial + len(state.history), settings={"hints": hints}, open_seats=[], online=[], clocks={})
    return view


def by_roll(view: dict[str, Any], seat: int, box: str) -> str:
    """The end of an entry's line naming a points-by-roll rule where the view says the box was written
    with its early points (Generala's served straight: "(the points of roll 1)"), else nothing."""
    column, _, row = box.rpartition(".")
    cell = view["players"][seat]["columns"].get(column, {}).get("boxes", {}).get(row, {})
    return f" (the points of roll {cell['roll']})" if cell.get("roll") is not None else ""
