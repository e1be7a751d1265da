"""What a viewer sees of a table: the game as the engine says it (`yambak.gameview`), and the table's own
state: who sits where, who is here, the clocks and the stand-in, the settings and the dice commitment."""

from __future__ import annotations

from typing import Literal, TypedDict

from ...bots import model_status
from ...engine import FairDice, GameState
from ...gameview import game_view, public_event
from ...viewtypes import DealOut, FairnessOut, PlayedFor, SeatingOut, TableKeys, TablePlayer, TableView
from ..common.dice import DealDice
from .table import LiveTable

__all__ = ["public_event", "table_view"]

# a seat's kind as the store keeps it (a string), as the view's word
_KINDS: dict[str, Literal["human", "bot", "open"]] = {"human": "human", "bot": "bot", "open": "open"}


class LiveParts(TypedDict, total=False):
    """What the table's parts say now (`TableManager.view`), for its view; a part left out says nothing."""

    online: list[int]
    clocks: dict[str, float]
    stand_in: dict[str, float]
    played_for: dict[str, list[PlayedFor]]
    seating: SeatingOut


def table_view(table: LiveTable, seats: frozenset[int] = frozenset(), live: LiveParts | None = None) -> TableView:
    """`live`: what the table's parts say now (`TableManager.view`): `online` (the seats here, on any
    process), `clocks` (seconds left on each turn clock), `stand_in` (seconds until the stand-in plays an
    away player's turn), `played_for` (what it wrote for each away player since they last played) and
    `seating` (the host, and whether it may remove an open seat or give it to a bot)."""
    state: GameState = table.state
    live = live or {}
    view = game_view(state, seats)
    settings = table.settings.shown()
    settings["asynchronous"] = table.settings.asynchronous
    players: list[TablePlayer] = []
    for p in view["players"]:
        seat = table.seats[p["seat"]]
        # "prior" or "unchecked" when this bot plays on a value model the players should know about
        bot_model = model_status(state.rules, seat.bot) if seat.kind == "bot" and seat.bot else None
        players.append({**p, "kind": _KINDS[seat.kind], "bot": seat.bot, "bot_model": bot_model})
    own: TableKeys = {
        "players": players,
        "id": table.id,
        "name": table.name,
        "v": table.version,
        "rematch": table.rematch,
        "open_seats": [s.seat for s in table.seats if s.kind == "open"],
        "online": live.get("online", []),
        "settings": settings,
        "clocks": live.get("clocks", {}),
        "stand_in": live.get("stand_in", {}),
        "played_for": live.get("played_for", {}),
        "seating": live.get("seating", SeatingOut(host=None, remove=False, bot=False)),
        "can_undo": [p for p in range(len(state.players)) if table.settings.undo and state.can_undo(p)],
        "fairness": _fairness(table.fairness, state),
        "deal": _deal(table.fairness),
    }
    return {**view, **own}



def _deal(fair: FairDice | None) -> DealOut | None:
    """A deal's table (the daily challenge, a club round): when the deal closes (its tables take no
    action from then on: the game stays unfinished and does not count), the seconds left until then by
    the server's clock (the page counts down from them, whatever its own clock says), whether it has
    closed, whether its tournament is paused (no close while it is), and whether its organiser cancelled
    its round (it counts for nobody)."""
    if not isinstance(fair, DealDice) or not fair.deal:
        return None
    closes = fair.closes_at
    left = (closes - fair.now()).total_seconds() if closes is not None else None
    return {
        "id": fair.deal,
        "closes_at": closes.isoformat() + "Z" if closes else None,
        "left": max(0.0, left) if left is not None else None,
        "closed": fair.closed(),
        "paused": closes is None,
        "cancelled": fair.cancelled,
    }


def _fairness(fair: FairDice | None, state: GameState) -> FairnessOut | None:
    """The dice commitment (docs/fairness.md), the seed once the game is over; `open` while the
    seated players may still mix in their nonces (before the game's first roll)."""
    if fair is None:
        return None
    fixed = getattr(fair, "deal", "")  # a deal's dice are the same for every entrant: no nonces
    block = fair.block(revealed=state.finished)  # scheme, commitment, seed, nonces
    return {
        "scheme": block["scheme"],
        "commitment": block["commitment"],
        "seed": block["seed"],
        "nonces": block["nonces"],
        "open": state.serial == 0 and not state.finished and not fixed,
    }
