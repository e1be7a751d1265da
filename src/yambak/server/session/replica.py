"""One of several processes: a session's owner publishes its events, the others follow them.

With several processes (`cluster.py`), one process owns a session's live state at a
time; the others hold a mirror that follows its events through Redis, serve their own
clients' views and resyncs from it, and forward actions to the owner. Without Redis
every session is owned here, as in a single process.

A mirror applies the owner's events in version order. The common case costs no task:
the owner's own text for the event goes straight to the clients here, and the event is
applied when the mirror is next read (`catch_up`). A gap, a doubt or an owner's
`reload` reads the log again (`refresh`). `Replica` is what the cluster talks to for
one kind (`cluster.Owner`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from ...store import Store
from ...viewtypes import EventsMessage, JSONObject, StateMessage
from ..live import Connection, RequestError
from .model import Loaded, OwnerMessage, Session

if TYPE_CHECKING:
    from ..cluster import Cluster

__all__ = ["Moved", "Replica"]

log = logging.getLogger("yambak.server")

S = TypeVar("S", bound=Session)


class Moved(RequestError):
    """This process does not own the session (any more): the requester asks its owner again."""

    def __init__(self) -> None:
        super().__init__("cluster/moved", "the game moved to another process", 503)


class Host(Protocol[S]):
    """What a replica asks of its session manager (`core.SessionManager`): public methods only."""

    KIND: str
    store: Store
    cluster: Cluster | None
    loop: asyncio.AbstractEventLoop | None

    @property
    def sessions(self) -> Mapping[str, S]: ...

    def load(self, session_id: str) -> Loaded | None: ...
    def refill(self, session: S, loaded: Loaded) -> None: ...
    def apply_owners(self, session: S, message: OwnerMessage) -> None: ...
    def owner_message(self, session: S, message: OwnerMessage) -> bool: ...
    def demote(self, session: S) -> None: ...
    def promoted(self, session: S) -> None: ...
    def stop(self, session: S) -> None: ...
    def same_for_all(self, session: S) -> bool: ...
    def acts_here(self, session: S) -> bool: ...
    async def rpc(self, session: S, op: str, args: JSONObject) -> JSONObject: ...
    async def aget(self, session_id: object) -> S: ...
    def resync(self, session: S, conn: Connection, since: int | None) -> EventsMessage | StateMessage: ...
    def owned_ids(self) -> list[str]: ...
    def watched_ids(self) -> list[str]: ...
    def broadcast_event(
        self, session: S, version: int, event: JSONObject, shared: str | None = None, ref: str | None = None
    ) -> str | None: ...


class Replica(Generic[S]):
    def __init__(self, manager: Host[S]) -> None:
        self.manager = manager
        self._tasks: set[asyncio.Task[None]] = set()  # kept until done: a task nobody holds may vanish

    @property
    def kind(self) -> str:
        return self.manager.KIND

    def _spawn(self, coro: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # --- the owner's side ---------------------------------------------------------------------------

    def publish(self, session: S, message: OwnerMessage) -> None:
        cluster = self.manager.cluster
        if cluster is not None:
            cluster.publish(self.kind, session.id, message)

    async def forward(self, session: S, op: str, args: JSONObject) -> JSONObject:
        """Do `op` on the session's owner (this process, once it has taken the session over)."""
        cluster = self.manager.cluster
        assert cluster is not None
        owned, promote = (lambda: session.owned), (lambda: self.promote(session))
        return await cluster.route(self.kind, session.id, op, args, owned, promote)

    async def handle_rpc(self, session_id: str, op: str, args: JSONObject) -> JSONObject:
        """A request forwarded by another process: done here if this process owns the session."""
        session = self.manager.sessions.get(session_id)
        if session is None or not session.owned:
            raise Moved()
        result = await self.manager.rpc(session, op, args)
        if op == "act" and not self.manager.acts_here(session) and not session.state.finished:
            try:
                await self._hand_off(session)  # nobody here plays: the asker takes the session
            except Exception:  # the action is done: its answer stands; the session stays here
                log.exception("%s %s: the handoff failed", self.kind, session.id)
                return result
            return {**result, "_handoff": True}
        return result

    async def _hand_off(self, session: S) -> None:
        """Stop owning a session whose players act through other processes and follow it; the cluster
        passes its lease to the process that asked (`Cluster._serve`). Sticky-less routing then forwards less."""
        cluster = self.manager.cluster
        assert cluster is not None
        async with session.lock:
            if not session.owned or self.manager.acts_here(session):
                return
            await cluster.follow(self.kind, session.id)  # first: nothing the next owner publishes is missed
            self.manager.demote(session)

    # --- a mirror's side --------------------------------------------------------------------------

    def on_message(self, session_id: str, message: OwnerMessage) -> None:
        """An owner's message (an event, a reload): mirrors apply them in order."""
        session = self.manager.sessions.get(session_id)
        if session is None or session.owned:
            return
        idle = not session.inbox and (session.drain is None or session.drain.done()) and not session.lock.locked()
        if idle and self._relay(session, message):  # the common case, without a task per event
            return
        session.inbox.append(message)
        if session.drain is None or session.drain.done():
            session.drain = self._spawn(self._drain(session))

    async def _drain(self, session: S) -> None:
        while session.inbox:
            message = session.inbox.popleft()
            try:
                async with session.lock:
                    if session.owned:
                        session.inbox.clear()
                        return
                    await self._follow(session, message)
            except Exception:
                log.exception("%s %s: a message from its owner failed; reloading", self.kind, session.id)
                await self.refresh(session)

    async def _follow(self, session: S, message: OwnerMessage) -> None:
        kind = message.get("kind")
        if kind != "event":
            if self.manager.owner_message(session, message):
                return
            log.info("%s %s: %s from its owner, reloading", self.kind, session.id, kind)
            await self._refresh_locked(session)
            return
        version, event = message["v"], message["event"]
        last = session.backlog[-1]["v"] if session.backlog else session.version
        if version <= last:  # already here (a reload saw it): once
            return
        if version != last + 1:  # a gap: the log has what was missed
            log.info("%s %s: version %d after %d, reloading", self.kind, session.id, version, last)
            await self._refresh_locked(session)
            return
        if self._relay(session, message):
            return
        self.catch_up(session)
        with session.guard:
            self.manager.apply_owners(session, message)
        self.manager.broadcast_event(session, version, event, message.get("text"), message.get("ref"))

    def _relay(self, session: S, message: OwnerMessage) -> bool:
        """The next event with the owner's text, on a session where every viewer sees the same: send the
        text as it is now, apply the event when this mirror is read. False for anything else."""
        text = message.get("text")
        if message.get("kind") != "event" or text is None or not self.manager.same_for_all(session):
            return False
        if message["event"].get("game_over"):
            return False
        last = session.backlog[-1]["v"] if session.backlog else session.version
        if message["v"] != last + 1:
            return False
        with session.guard:
            session.backlog.append(message)
        for conn in list(session.conns):
            if conn.joined:
                conn.send(text)
        return True

    def catch_up(self, session: S) -> None:
        """A mirror's state brought up to the events its clients were already sent."""
        if not session.backlog:
            return
        with session.guard:
            try:
                for message in session.backlog:
                    self.manager.apply_owners(session, message)
            except Exception:  # not expected; the log is the truth: read it again
                log.exception("%s %s: its owner's events do not apply here; reloading", self.kind, session.id)
                loop = self.manager.loop
                if loop is not None:  # from the event loop or a plain route's thread
                    asyncio.run_coroutine_threadsafe(self.refresh(session), loop)
            finally:
                session.backlog.clear()

    async def refresh(self, session: S) -> None:
        async with session.lock:
            await self._refresh_locked(session)

    async def _refresh_locked(self, session: S) -> None:
        """Reload a session from the store (the caller holds its lock); its clients get what they missed."""
        with session.guard:  # what the log holds replaces the backlog; clients have seen it already
            before = session.backlog[-1]["v"] if session.backlog else session.version
            session.backlog.clear()
        loaded = await self.manager.store.read(self.manager.load, session.id)
        if loaded is None:
            return
        self.manager.refill(session, loaded)
        # no new event: what changed is outside the log (a deal's close, a name): the whole view again
        since = before if session.version != before else None
        for conn in list(session.conns):
            if conn.joined:
                conn.send(self.manager.resync(session, conn, since))

    # --- ownership moving -------------------------------------------------------------------------

    async def promote(self, session: S) -> None:
        """This process now holds the session's lease: load its live state from the log, start its work."""
        async with session.lock:
            session.owned = True
            session.inbox.clear()
            try:
                await self._refresh_locked(session)
            except Exception:
                session.owned = False
                raise
            if self.manager.cluster is not None:
                self.manager.cluster.unfollow(self.kind, session.id)  # an owner does not follow its own events
        log.info("%s %s: taken over at version %d", self.kind, session.id, session.version)
        self.manager.promoted(session)

    async def take_over(self, session_id: str) -> None:
        """The cluster won a session's lease (its owner died): load it here as its owner."""
        session = await self.manager.aget(session_id)
        if not session.owned:
            await self.promote(session)

    async def lost(self, session: S) -> None:
        """Another process wrote to the session's log (the caller holds its lock): follow it from the log."""
        cluster = self.manager.cluster
        if cluster is not None:
            self.manager.demote(session)
            cluster.disown(self.kind, session.id)
            await cluster.follow(self.kind, session.id)
        else:
            self.manager.stop(session)
        await self._refresh_locked(session)

    def lost_lease(self, session_id: str) -> None:
        """The cluster could not renew a session's lease: stop acting for it."""
        session = self.manager.sessions.get(session_id)
        if session is not None and session.owned:
            self.manager.demote(session)
            self._spawn(self._demoted(session))

    async def _demoted(self, session: S) -> None:
        cluster = self.manager.cluster
        assert cluster is not None
        await cluster.follow(self.kind, session.id)  # first: nothing published meanwhile is missed
        await self.refresh(session)

    def owned_ids(self) -> list[str]:
        return self.manager.owned_ids()

    def watched_ids(self) -> list[str]:
        return self.manager.watched_ids()

    # --- the log as the safety net (`Cluster._reconciler`) ---------------------------------------------

    def local_versions(self) -> dict[str, int]:
        """Sessions with clients here: the version their clients were sent last."""
        return {s.id: _seen(s) for s in self.manager.sessions.values() if s.conns}

    async def stored_versions(self, ids: list[str]) -> dict[str, int]:
        return await self.manager.store.read(self.manager.store.versions, ids)

    async def reread(self, session_id: str) -> None:
        """The log is ahead of this copy (its owner's events were lost on the way, or another process
        overtook it): read it again, under the lock so that a commit in progress is not mistaken for it;
        an owner that was overtaken follows from now on."""
        session = self.manager.sessions.get(session_id)
        if session is None:
            return
        async with session.lock:
            stored = await self.manager.store.read(self.manager.store.versions, [session_id])
            if stored.get(session_id, 0) <= _seen(session):
                return
            if session.owned:
                log.warning("%s %s: another process wrote its log; following it", self.kind, session_id)
                await self.lost(session)
            else:
                await self._refresh_locked(session)


def _seen(session: Session) -> int:
    """The version a session's clients here were sent last (a mirror's relayed events included)."""
    return session.backlog[-1]["v"] if session.backlog else session.version
