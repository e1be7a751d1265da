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
from ...viewtypes import JSONObject
from ..cluster import OwnerMessage
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
    settings: Settings
    store: Store
    events: Events
    cluster: Cluster | None
    now: Callable[[], float]  # the server's clock, in seconds
    # --- set by the table manager once the session core and every part are made ----------------------
    tables: dict[str, LiveTable] = field(default_factory=dict)  # the tables in memory here
    loop: Callable[[], asyncio.AbstractEventLoop | None] = field(default=_unwired)  # background work's loop
    broadcast: Callable[[LiveTable, Connection | None], None] = field(default=_unwired)  # to followers here
    publish: Callable[[LiveTable, OwnerMessage], None] = field(default=_unwired)  # to the other processes
    forward: Callable[[LiveTable, str, JSONObject], Awaitable[JSONObject]] = field(default=_unwired)
    record: Callable[[LiveTable, GameState | None], JSONObject] = field(default=_unwired)  # a snapshot's
    aget: Callable[[str], Awaitable[LiveTable]] = field(default=_unwired)  # a table, loaded if not in memory
    commit: Callable[[LiveTable, int, Action], Awaitable[None]] = field(default=_unwired)  # a bot's action
    forget: Callable[[LiveTable], None] = field(default=_unwired)  # the table leaves memory (it waits in the store)
    schedule: Callable[[LiveTable], None] = field(default=_unwired)  # the bots look whether they have a turn
    working: Callable[[LiveTable], bool] = field(default=_unwired)  # a bot or the stand-in is at work
    present: Callable[[LiveTable, int], bool] = field(default=_unwired)  # a seat's player is at the table
    recount: Callable[[LiveTable], None] = field(default=_unwired)  # the seats changed: count who is here
    turns_seen: Callable[[LiveTable], None] = field(default=_unwired)  # presence changed: whose turn is listed
    sync_turns: Callable[[LiveTable], Awaitable[None]] = field(default=_unwired)  # the stored turns made current
    start_clock: Callable[[LiveTable], None] = field(default=_unwired)  # the turn clocks start (the game starts)
