"""What a feature's manager (`TableManager`, `KeeperManager`) shows of its session core: the core is one
final class (`core.SessionManager`) it holds, never a class it extends, so a feature adds requests of its
own and changes nothing of the core's; what differs between kinds is the core's `SessionKind`."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Generic, TypeVar

from ...engine import GameState
from ...store import Store
from ...viewtypes import EventsMessage, JSONObject, SessionView, StateMessage
from ..common.events import Events
from ..live import Connection, RequestError
from ..settings import Settings
from .core import SessionManager
from .kind import SessionKind
from .model import Session
from .replica import Replica

if TYPE_CHECKING:
    from ..cluster import Cluster

__all__ = ["SessionFront"]

S = TypeVar("S", bound=Session)


class SessionFront(Generic[S]):
    """A feature's manager over its session core: the core's public requests, passed through."""

    def __init__(
        self, store: Store, settings: Settings, kind: SessionKind[S], cluster: Cluster | None, events: Events | None
    ) -> None:
        self.core: SessionManager[S] = SessionManager(store, settings, kind, cluster, events)
        self.store, self.settings, self.cluster, self.events = store, settings, cluster, self.core.events
        self.sessions: dict[str, S] = self.core.sessions  # one dict: the core's

    @property
    def KIND(self) -> str:  # noqa: N802  # the kind's name, as the core's
        return self.core.KIND

    @property
    def NOUN(self) -> str:  # noqa: N802
        return self.core.NOUN

    @property
    def Error(self) -> type[RequestError]:  # noqa: N802
        return self.core.Error

    @property
    def replica(self) -> Replica[S]:
        return self.core.replica

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self.core.loop

    @loop.setter
    def loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.core.loop = loop

    def get(self, session_id: object) -> S:
        return self.core.get(session_id)

    async def aget(self, session_id: object) -> S:
        return await self.core.aget(session_id)

    def view(self, session: S, seats: frozenset[int] = frozenset()) -> SessionView:
        return self.core.view(session, seats)

    def record(self, session: S, state: GameState | None = None) -> JSONObject:
        return self.core.record(session, state)

    def connected(self, session: S, conn: Connection) -> None:
        self.core.connected(session, conn)

    def acts_here(self, session: S) -> bool:
        return self.core.acts_here(session)

    def resync(self, session: S, conn: Connection, since: int | None) -> EventsMessage | StateMessage:
        return self.core.resync(session, conn, since)

    def broadcast_state(self, session: S, skip: Connection | None = None) -> None:
        self.core.broadcast_state(session, skip)

    def release(self, session: S) -> bool:
        return self.core.release(session)

    def evict_finished(self) -> int:
        return self.core.evict_finished()

    def evict_idle_mirrors(self, idle: float = 30.0) -> int:
        return self.core.evict_idle_mirrors(idle)

    def owned_ids(self) -> list[str]:
        return self.core.owned_ids()

    def watched_ids(self) -> list[str]:
        return self.core.watched_ids()

    async def refresh(self, session: S) -> None:
        await self.core.refresh(session)

    async def reload_names(self, session_ids: list[str]) -> None:
        await self.core.reload_names(session_ids)
