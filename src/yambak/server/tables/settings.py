"""A table's own settings, chosen by whoever creates it and shown to everyone at it.

- `hints`: the coach may advise the players (off by default at duplicate tables, where
  everybody plays the same dice; always on for one person alone).
- `clock`: seconds a player has for a turn; when it runs out (or the player has gone), a bot
  plays that turn and the player takes the seat back on return. Off for friends (no open
  seats), 90 s by default for tables strangers may join. A clock of hours or days
  (`ASYNC_CLOCKS`) makes the table asynchronous: a game over days, whose players come and go
  (the stand-in waits for the clock, not for an away player; `turns.py`).
- `undo`: a player may take back their last entry before the next roll. Only where every
  player sits at this one device (solo, pass and play): never with players on other devices.
- `deal`: the table plays a deal of the daily challenge or of a club tournament (no hints, no
  undo, no clock; see `server/daily`).
- `ranked`: the game rates its players in the ladder of this preset (`server/ranked`): no hints, no
  undo, the turn clock on (a player not there when it runs out twice has left), every seat a profile's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...viewtypes import TableSettingsOut
from ..common.asked import Asked

__all__ = ["ASYNC_CLOCKS", "CLOCK_RANGE", "TableSettings", "choose"]

CLOCK_RANGE = (15, 600)  # seconds per turn, live
ASYNC_CLOCKS = (3600, 8 * 3600, 86400, 3 * 86400)  # seconds per turn of a game over days: 1 h, 8 h, 1 day, 3 days
DEFAULT_CLOCK = 90


@dataclass(frozen=True, slots=True)
class TableSettings:
    hints: bool = True
    clock: int | None = None
    undo: bool = False
    deal: str | None = None  # a deal of the daily challenge or of a tournament (server/daily): its id
    ranked: str | None = None  # the preset whose ratings the game changes (server/ranked); None: not ranked

    @property
    def asynchronous(self) -> bool:
        """A game over days: a clock of hours or more."""
        return self.clock is not None and self.clock >= ASYNC_CLOCKS[0]

    def to_dict(self) -> dict[str, Any]:
        return {**self.shown()}

    def shown(self) -> TableSettingsOut:
        """The settings as stored and as every view shows them."""
        out: TableSettingsOut = {"hints": self.hints, "clock": self.clock, "undo": self.undo}  # in every view
        if self.deal is not None:  # most tables play no deal
            out["deal"] = self.deal
        if self.ranked is not None:  # and are not ranked
            out["ranked"] = self.ranked
        return out

    @classmethod
    def from_dict(cls, data: object) -> TableSettings:
        """Stored settings (a table created before settings existed has none: the old behaviour)."""
        if not isinstance(data, dict):
            return cls(hints=True, clock=None, undo=False)
        clock = data.get("clock")
        return cls(
            hints=data.get("hints") is True,
            clock=clock if isinstance(clock, int) and not isinstance(clock, bool) else None,
            undo=data.get("undo") is True,
            deal=data["deal"] if isinstance(data.get("deal"), str) else None,
            ranked=data["ranked"] if isinstance(data.get("ranked"), str) else None,
        )


def choose(kinds: list[str], listed: bool, duplicate: bool, asked: Asked) -> TableSettings:
    """The settings of a new table from its seat kinds ("human", "open", "bot") and what the
    creator asked for (None: the default; a clock of 0: none; one of `ASYNC_CLOCKS`: hours or days, else
    a live clock in `CLOCK_RANGE`). Undo is refused where players sit at other devices. A ranked table
    (`ranked`: its preset) has no hints and no undo, and always a live clock."""
    people = sum(k in ("human", "open") for k in kinds)
    remote = "open" in kinds
    hints = asked.get("hints")
    if people <= 1 and not remote:
        hints = True  # alone against bots: nobody to be unfair to
    elif hints is None:
        hints = not duplicate
    clock = asked.get("clock")
    if clock is None:
        clock = DEFAULT_CLOCK if listed and remote else None
    elif clock == 0:
        clock = None
    elif int(clock) in ASYNC_CLOCKS:
        clock = int(clock)
    else:
        clock = max(CLOCK_RANGE[0], min(CLOCK_RANGE[1], int(clock)))
    undo = asked.get("undo")
    undo = (not remote) if undo is None else (bool(undo) and not remote)
    if ranked := asked.get("ranked"):
        live = clock if clock is not None and clock <= CLOCK_RANGE[1] else DEFAULT_CLOCK
        return TableSettings(hints=False, clock=live, undo=False, ranked=ranked)
    return TableSettings(hints=bool(hints), clock=clock, undo=undo)
