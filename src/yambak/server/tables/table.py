"""A live table in memory: a game session with seats, fair dice, clocks and who is here."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from typing import TypedDict

from ...engine import FairDice, GameState, state_to_record
from ...rules import Ruleset
from ...store import SeatRow
from ...viewtypes import JSONObject, PlayedFor
from ..live import RequestError
from ..session.model import Session
from .settings import TableSettings

__all__ = ["LiveTable", "LobbyEntry", "Seen", "TableError", "lobby_entry", "record_of"]


class TableError(RequestError):
    """A refused table request (sent as JSON with its code, never a traceback)."""



class LobbyEntry(TypedDict):
    """A table as the lobby lists it (`lobby_entry`)."""

    id: str
    name: str
    rules: str
    rules_name: str
    players: list[str]
    open_seats: int
    duplicate: bool
    finished: bool
    v: int

@dataclass(eq=False)
class Seen:
    """A table's presence as this process knows it (the owner's count, or what the owner said)."""

    online: tuple[int, ...] = ()  # the seats the views show as here
    gone: dict[int, float] = field(default_factory=dict)  # a seat without a device anywhere: since when
    connected: frozenset[int] = frozenset()  # owner: seats with a device anywhere, at the last count
    grace: dict[int, float] = field(default_factory=dict)  # owner: a seat just gone shows as here until then
    nodes: dict[str, frozenset[int]] = field(default_factory=dict)  # owner: the seats of other processes' sockets
    fresh: bool = True  # owner: nobody counted yet (a table loaded or taken over: everybody may be on the way)
    told: frozenset[int] | None = None  # another process's copy: the seats last told to the owner
    reporting: asyncio.Task[None] | None = None
    timer: asyncio.TimerHandle | None = None


@dataclass(eq=False)
class LiveTable(Session):
    listed: bool = True
    seats: list[SeatRow] = field(default_factory=list)
    seed: str | None = None
    rematch: str | None = None
    seat_version: list[int] = field(default_factory=list)
    bot_task: asyncio.Task[None] | None = None
    rng: random.Random = field(default_factory=random.Random)
    fairness: FairDice | None = None  # the table's dice commitment (None for tables older than fair dice)
    settings: TableSettings = field(default_factory=TableSettings)
    # seat -> when its turn began, by the server's clock in seconds (`clock.py`)
    turn_started: dict[int, float] = field(default_factory=dict)
    reminded: set[int] = field(default_factory=set)  # seats told a quarter of their clock is left (`turns.py`)
    turns_kept: frozenset[int] = frozenset()  # seats whose turn the store holds now (`turns.py`)
    last_entry: float = 0.0  # when a person last filled a box (bots wait a moment: it may be taken back)
    seen: Seen = field(default_factory=Seen)  # who is here (`presence.py`)
    # seat -> the entries the stand-in made for its away player since they last played (`standin.py`)
    played_for: dict[int, list[PlayedFor]] = field(default_factory=dict)

    def seats_for(self, hashes: set[str]) -> set[int]:
        return {s.seat for s in self.seats if s.token_hash is not None and s.token_hash in hashes}

    def expected_version(self, seat: int) -> int:
        """The version a client must have seen to act for `seat` (its own last change on duplicate tables)."""
        if self.state.simultaneous:
            return self.seat_version[seat]
        # another player's nonce changes the dice to come, not the position: a roll on the view before it stands
        v = self.version
        for version, event, _ref in reversed(self.recent):
            if version != v or event.get("type") != "nonce":
                break
            v -= 1
        return v

    def listing(self) -> LobbyEntry:
        state = self.state
        return lobby_entry(
            self.id,
            self.name,
            state.rules,
            self.seats,
            duplicate=state.simultaneous,
            finished=state.finished,
            v=self.version,
        )


def lobby_entry(
    table_id: str, name: str, rules: Ruleset, seats: list[SeatRow], *, duplicate: bool, finished: bool, v: int
) -> LobbyEntry:
    """A table as the lobby lists it: the people and bots at it, and how many seats are open (an open
    seat has no name but the one each page gives it in its language)."""
    return {
        "id": table_id,
        "name": name,
        "rules": rules.id,
        "rules_name": rules.name,
        "players": [s.name for s in seats if s.kind != "open"],
        "open_seats": sum(s.kind == "open" for s in seats),
        "duplicate": duplicate,
        "finished": finished,
        "v": v,
    }


def record_of(state: GameState) -> JSONObject:
    return state_to_record(state).to_dict()
