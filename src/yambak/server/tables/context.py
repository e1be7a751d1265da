"""What a table's parts (bots, clock, presence, seating, stand-in, turns, reactions) may use of the rest.

The parts never see the table manager: it hands each one this context, which names the few things a
part needs (the tables in memory, the settings and the store, committing a bot's move, telling the
table's followers and the other processes) and what the parts ask of each other (set once all of them
are made). No part imports `manager.py`, even for its types (`tests/test_layers.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...engine import Action, GameState
from ...store import Store
from ..common.events import Events
from ..live import Connection
from ..settings import Settings
from .table import LiveTable

if TYPE_CHECKING:
    from ..cluster import Cluster

__all__ = ["TableContext", "server_seconds"]


def server_seconds(settings: Settings) -> Callable[[], float]:
    """The server's clock, in seconds since the epoch (tests set `Settings.clock`)."""

    def now() -> float:
        return settings.clock().timestamp()

    return now


def _unwired(*_args: Any) -> Any:
    raise RuntimeError("a table part was used before the table manager wired its parts together")


@dataclass(eq=False)
class TableContext:
    tables: dict[str, LiveTable]  # the tables in memory here
    settings: Settings
    store: Store
    events: Events
    cluster: Cluster | None
    now: Callable[[], float]  # the server's clock, in seconds
    loop: Callable[[], asyncio.AbstractEventLoop | None]  # the loop background work runs on (set at startup)
    broadcast: Callable[[LiveTable, Connection | None], None]  # every follower here gets the table as it is
    publish: Callable[[LiveTable, dict[str, Any]], None]  # told to the other processes
    forward: Callable[[LiveTable, str, dict[str, Any]], Awaitable[dict[str, Any]]]  # done on the table's owner
    record: Callable[[LiveTable, GameState | None], dict[str, Any]]  # the game record a snapshot stores
    aget: Callable[[str], Awaitable[LiveTable]]  # a table, loaded if it is not in memory
    # --- set by the table manager once every part is made -------------------------------------------
    commit: Callable[[LiveTable, int, Action], Awaitable[None]] = field(default=_unwired)  # a bot's action
    forget: Callable[[LiveTable], None] = field(default=_unwired)  # the table leaves memory (it waits in the store)
    schedule: Callable[[LiveTable], None] = field(default=_unwired)  # the bots look whether they have a turn
    working: Callable[[LiveTable], bool] = field(default=_unwired)  # a bot or the stand-in is at work
    present: Callable[[LiveTable, int], bool] = field(default=_unwired)  # a seat's player is at the table
    recount: Callable[[LiveTable], None] = field(default=_unwired)  # the seats changed: count who is here
    turns_seen: Callable[[LiveTable], None] = field(default=_unwired)  # presence changed: whose turn is listed
    sync_turns: Callable[[LiveTable], Awaitable[None]] = field(default=_unwired)  # the stored turns made current
    start_clock: Callable[[LiveTable], None] = field(default=_unwired)  # the turn clocks start (the game starts)
