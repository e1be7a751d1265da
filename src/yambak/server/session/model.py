"""What one game session is in memory (a live table and a kept sheet extend it), and what it rebuilds from."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from ...engine import GameState
from ...store import EventRow, SessionRow, TurnRow
from ...viewtypes import JSONObject
from ..cluster import OwnerMessage, Published
from ..live import Connection

__all__ = ["Loaded", "More", "OwnerMessage", "Published", "Session"]

# What a kind reads from the store besides (`SessionKind.load_more`): a table's seat versions and kept turns.
More = tuple[dict[int, int], dict[int, TurnRow]] | None
# What a session rebuilds from: its row (the snapshot), the events after it, the newest events (for
# reconnecting clients), and what the kind reads besides.
Loaded = tuple[SessionRow, list[EventRow], list[EventRow], More]


@dataclass(eq=False)
class Session:
    id: str
    name: str
    state: GameState
    version: int = 0
    conns: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    owned: bool = True  # this process holds the live state (always, without a cluster)
    inbox: deque[OwnerMessage] = field(default_factory=deque)  # a mirror's messages from the owner, in order
    drain: asyncio.Task[None] | None = None
    touched: float = field(default_factory=time.monotonic)
    recent: deque[tuple[int, JSONObject, str | None]] = field(default_factory=lambda: deque(maxlen=200))
    # A mirror's events already sent to its clients as the owner's text, applied to `state` when it is read
    backlog: list[OwnerMessage] = field(default_factory=list)
    guard: threading.Lock = field(default_factory=threading.Lock)
    last_action: float = field(default_factory=time.monotonic)  # for the lobby: idle tables leave it
    stored_finished: bool = False  # as the newest snapshot says (an undo after the end snapshots again)

    def online(self) -> list[int]:
        """Seats with a device following the session through this process, as of now."""
        return sorted({s for c in self.conns if c.joined for s in c.seats})


def recent_of(events: list[EventRow], size: int) -> deque[tuple[int, JSONObject, str | None]]:
    """A session's newest events as its reconnecting clients get them (`size`: `Settings.history`)."""
    return deque(((e.version, e.data, e.ref) for e in events), maxlen=size)
