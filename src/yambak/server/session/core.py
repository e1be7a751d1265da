"""A game session: what a live table and a kept sheet both are.

One live game with a version, an event log, an owner process and followers. One-way
flow for every action: validated message -> the engine (a table's action, a sheet's
entry through the keeper core) -> event -> store (the event appended to the
session's log, committed by the store's group-committing writer, never blocking the event loop) ->
broadcast to every follower here, and published to the other processes. A
session's lock serialises its actions, so versions are gapless and each is stored
once; other sessions go on while one waits for its commit. The game record is a
snapshot written beside the log every `snapshot_every` events and at the end; a
session rebuilds from its snapshot and the events after it.

`SessionManager` holds the sessions of one kind in memory (a cap, finished ones
dropped: they stay in the store), loads them, commits, broadcasts and resyncs;
`replica.Replica` makes it one of several processes. What differs between a table
and a sheet is a handful of hooks (`docs/architecture.md` lists them): how a
session is rebuilt from the store, how a logged event changes its state, and what
a viewer sees.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar, final

from sqlalchemy import Connection as SQLConnection

from ...engine import GameState
from ...store import EventRow, Op, RefTaken, SessionRow, Statements, Store, StoreConflict
from ...viewtypes import EventsMessage, JSONObject, Missed, SessionView, StateMessage
from .. import metrics
from ..common.events import Events, NamesRemoved
from ..live import Connection, dumps
from ..settings import Settings
from .kind import SessionKind
from .model import Loaded, OwnerMessage, Session, recent_of
from .protocol import event_message, events_message, state_message
from .replica import Replica

if TYPE_CHECKING:
    from ..cluster import Cluster

__all__ = ["Loaded", "Session", "SessionKind", "SessionManager"]

log = logging.getLogger("yambak.server")

# What a session rebuilds from: its row (the snapshot), the events after it, the newest events (for
# reconnecting clients), and what the kind reads besides.
S = TypeVar("S", bound=Session)


@final
class SessionManager(Generic[S]):
    """The sessions of one kind in this process: one final class for every kind, told what differs by `kind`
    (a feature's manager holds one: `front.py`)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        kind: SessionKind[S],
        cluster: Cluster | None = None,
        events: Events | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.kind = kind
        self.KIND, self.NOUN, self.UNKNOWN, self.Error = kind.KIND, kind.NOUN, kind.UNKNOWN, kind.Error
        self.cluster = cluster
        self.events = events or Events()
        self.events.on_async(NamesRemoved, lambda removed: self.reload_names(list(removed.sessions.get(self.KIND, ()))))
        self.sessions: dict[str, S] = {}
        self.replica: Replica[S] = Replica(self)  # what the cluster talks to
        # The loop the session's background work runs on: set at startup, so that a route running in
        # a worker thread (a plain `def` route) can still hand work to it.
        self.loop: asyncio.AbstractEventLoop | None = None

    # --- what the replica asks of the kind, through the manager --------------------------------------

    def load(self, session_id: str) -> Loaded | None:
        """Everything a session rebuilds from (store reads: call it off the event loop where it matters)."""
        loaded = self.store.load_session(session_id, self.settings.history, self.KIND)
        return None if loaded is None else (*loaded, self.kind.load_more(session_id))

    def refill(self, session: S, loaded: Loaded) -> None:
        """A session in memory set again to its stored state (a mirror's reload, a takeover)."""
        self.kind.fill(session, loaded, session.owned)
        session.stored_finished = loaded[0].finished

    def apply_owners(self, session: S, message: OwnerMessage) -> None:
        """A mirror applies one of its owner's events (the caller holds `session.guard`)."""
        version, event = message["v"], message["event"]
        state = self.kind.apply_logged(session, message)
        before = session.state
        session.state, session.version = state, version
        session.last_action = time.monotonic()
        session.recent.append((version, event, message.get("ref")))
        self.kind.applied(session, before, version, event)

    def owner_message(self, session: S, message: OwnerMessage) -> bool:
        return self.kind.owner_message(session, message)

    def demote(self, session: S) -> None:
        """Another process owns the session now: this copy follows it, its work here stops."""
        session.owned = False
        self.kind.moved(session, False)
        self.kind.stop(session)

    def promoted(self, session: S) -> None:
        """This process owns the session now (its background work starts here)."""
        self.kind.moved(session, True)

    def stop(self, session: S) -> None:
        self.kind.stop(session)

    def same_for_all(self, session: S) -> bool:
        return self.kind.same_for_all(session)

    def acts_here(self, session: S) -> bool:
        return self.kind.acts_here(session)

    def connected(self, session: S, conn: Connection) -> None:
        self.kind.connected(session, conn)

    def record(self, session: S, state: GameState | None = None) -> JSONObject:
        return self.kind.record(session, state)

    def view(self, session: S, seats: frozenset[int] = frozenset()) -> SessionView:
        return self.kind.view(session, seats)

    # --- memory: a cap on live sessions, finished ones dropped (they stay in the store) -------------

    def _idle_finished(self, session: S) -> bool:
        return session.state.finished and not session.conns and not self.kind.busy(session)

    def drop(self, session: S) -> None:
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]
            if self.cluster is not None:  # a finished game's lease just expires: no watcher takes it over meanwhile
                self.cluster.unfollow(self.KIND, session.id)
                self.cluster.disown(self.KIND, session.id)

    def release(self, session: S) -> bool:
        """Drop a finished session nobody follows from memory; opening it again reloads it from the store."""
        if self._idle_finished(session) and self.sessions.get(session.id) is session:
            self.drop(session)
            return True
        return False

    def evict_finished(self) -> int:
        return sum(self.release(s) for s in list(self.sessions.values()))

    def evict_idle_mirrors(self, idle: float = 30.0) -> int:
        """A mirror nobody here follows any more goes (its owner keeps the session)."""
        now, n = time.monotonic(), 0
        for session in list(self.sessions.values()):
            if not session.owned and not session.conns and now - session.touched > idle and not session.lock.locked():
                self.drop(session)
                n += 1
        return n

    def make_room(self, finished: bool = False) -> None:
        """Before a session enters memory: refused with `server/full` at the cap (a finished one being opened
        is let in: it is dropped again at the next sweep)."""
        if len(self.sessions) < self.kind.cap():
            return
        self.evict_finished()
        if self.cluster is not None:
            self.evict_idle_mirrors(idle=0.0)
        if len(self.sessions) >= self.kind.cap() and not finished:
            log.warning("%s cap reached (%d in memory)", self.NOUN, len(self.sessions))
            raise self.Error("server/full", "the server is full: try again later", 503)

    def build(self, loaded: Loaded, owned: bool) -> S:
        session = self.kind.blank(loaded[0])
        self.kind.fill(session, loaded, owned)
        session.stored_finished = loaded[0].finished
        return session

    def _enter(self, loaded: Loaded | None, session_id: str) -> S:
        """A session loaded from the store comes into memory (as a mirror when a cluster runs)."""
        session = self.sessions.get(session_id)
        if session is not None:
            return session
        if loaded is None:
            raise self.Error(self.UNKNOWN, f"there is no such {self.NOUN}", 404)
        self.make_room(finished=loaded[0].finished)
        try:
            session = self.build(loaded, owned=self.cluster is None)
        except Exception:
            log.exception("%s %s cannot be loaded", self.NOUN, session_id)
            raise self.Error(f"{self.KIND}/broken", f"this {self.NOUN}'s stored game cannot be loaded", 500) from None
        return self.sessions.setdefault(session_id, session)

    @staticmethod
    def _plausible(session_id: str) -> bool:
        return 0 < len(session_id) <= 32

    def get(self, session_id: object) -> S:
        """A session, loaded from the store if it is not in memory (blocking: for plain `def` routes)."""
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            if not isinstance(session_id, str) or not self._plausible(session_id):
                raise self.Error(self.UNKNOWN, f"there is no such {self.NOUN}", 404)
            if self.cluster is not None:
                self.cluster.follow_soon(self.KIND, session_id)
            session = self._enter(self.load(session_id), session_id)
        session.touched = time.monotonic()
        self.replica.catch_up(session)
        return session

    async def aget(self, session_id: object) -> S:
        """A session, loaded from the store off the event loop if it is not in memory."""
        session = self.sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None:
            if not isinstance(session_id, str) or not self._plausible(session_id):
                raise self.Error(self.UNKNOWN, f"there is no such {self.NOUN}", 404)
            if self.cluster is not None:  # follow first: an event published meanwhile is not missed
                await self.cluster.follow(self.KIND, session_id)
            session = self._enter(await self.store.read(self.load, session_id), session_id)
        session.touched = time.monotonic()
        self.replica.catch_up(session)
        return session

    def admit_new(self, session: S) -> None:
        """A session made here comes into memory, owned by this process."""
        self.sessions[session.id] = session

    def store_new(self, row: SessionRow, also: Op | None = None) -> None:
        """Store a new session's row (and `also`, another write for the same transaction), its lease taken
        first: without Redis, a coded 503 and nothing stored (blocking: plain routes)."""
        if self.cluster is not None:
            self.cluster.claim_new_sync(self.KIND, row.id)
        try:
            self.store.create(row, also)
        except Exception:
            if self.cluster is not None:
                self.cluster.unclaim(self.KIND, row.id)
            raise

    async def astore_new(self, row: SessionRow, also: Op | None = None) -> None:
        """`store_new` without blocking the event loop."""
        if self.cluster is not None:
            await self.cluster.claim_new(self.KIND, row.id)
        try:
            await self.store.write(Store.create_op(row, also))
        except Exception:
            if self.cluster is not None:
                self.cluster.unclaim(self.KIND, row.id)
            raise

    # --- committing -----------------------------------------------------------------------------

    def _snapshot(self, session: S, state: GameState, version: int) -> JSONObject | None:
        """The record to store beside event `version`: every `snapshot_every` events, at the end, and after
        the end (a sheet's undo may reopen a finished game)."""
        due = version % max(1, self.settings.snapshot_every) == 0
        if state.finished or session.stored_finished or due:
            return self.record(session, state)
        return None

    async def commit(
        self,
        session: S,
        state: GameState,
        event: JSONObject,
        *,
        seat: int,
        kind: str | None = None,
        ref: str | None = None,
        also: Op | None = None,
    ) -> int:
        """Store the event (the caller holds the session's lock), then apply and broadcast it; its version.
        `kind`: the event's type as logged (else its `type`); `ref`: the client's id for the action
        (stored with it: sent again, it is found, not applied again); `also`: another write for the same
        transaction. The event that ends the game takes the writes other features want with it
        (`_ending`: once, the version is the fence)."""
        started = time.thread_time()
        version = session.version + 1
        snapshot = self._snapshot(session, state, version)
        log_op = Store.append_op(
            session.id, version, seat, kind or str(event["type"]), event, snapshot, state.finished, ref=ref
        )
        ending = self.kind.ending(session, state) if state.finished and not session.state.finished else []
        own = self.kind.with_event(session, state, event)
        writes: list[Op] = [log_op, *(w for w in (also, own) if w is not None)]
        op: Callable[[SQLConnection], list[object]]
        if not ending and all(isinstance(w, Statements) for w in writes):  # nearly every action: one message
            op = Statements.chain((w for w in writes if isinstance(w, Statements)), [])
        else:

            def op(conn: SQLConnection) -> list[object]:
                for write in writes:
                    write(conn)
                return [w.op(conn) for w in ending]

        metrics.cpu_add("commit", time.thread_time() - started)
        try:
            outcomes = await self.store.write(op)
        except RefTaken:  # the action was logged before under its ref: the caller answers with that event
            raise
        except StoreConflict as exc:  # another process wrote this version: ours is not the live state
            log.error("store conflict at %s %s: %s", self.NOUN, session.id, exc)
            await self.replica.lost(session)
            raise self.Error("server/store", "the action could not be stored: resync", 503) from None
        metrics.ACTIONS.inc()
        started, viewed = time.thread_time(), metrics.cpu_now("view")
        for write, outcome in zip(ending, outcomes, strict=True):
            try:
                write.committed(outcome)
            except Exception:  # stored: a subscriber's follow-up must not undo the action
                log.exception("after the end of %s %s", self.NOUN, session.id)
        if snapshot is not None:
            session.stored_finished = state.finished
        before = session.state
        session.state, session.version, session.last_action = state, version, time.monotonic()
        session.recent.append((version, event, ref))
        self.kind.applied(session, before, version, event)
        shared = None
        try:
            shared = self.broadcast_event(session, version, event, ref=ref)
            quiet = self.cluster is None or self.cluster.quiet(self.KIND, session.id)
            if shared is None and not quiet and self.same_for_all(session):
                # every viewer anywhere sees the same: the view is made once, here, for every process
                shared = dumps(event_message(version, event, self._view(session), ref))
        except Exception:  # stored and applied: clients that miss it will resync
            log.exception("broadcast failed at %s %s", self.NOUN, session.id)
        message: OwnerMessage = {"kind": "event", "v": version, "event": event, "ref": ref}
        if shared is not None:
            message["text"] = shared
        published = self.kind.published(session, state)
        if "rolloffs" in published:
            message["rolloffs"] = published["rolloffs"]
        self.replica.publish(session, message)
        metrics.cpu_add("broadcast", time.thread_time() - started - (metrics.cpu_now("view") - viewed))
        if state.finished and not session.conns:
            self.drop(session)  # a game over that nobody here follows: back to the store only
        return version

    # --- followers ------------------------------------------------------------------------------

    def _view(self, session: S, seats: frozenset[int] = frozenset()) -> SessionView:
        """`view`, its CPU counted (metrics: where an action's time goes)."""
        started = time.thread_time()
        try:
            return self.kind.view(session, seats)
        finally:
            metrics.cpu_add("view", time.thread_time() - started)

    def _views(self, session: S) -> Callable[[frozenset[int]], SessionView]:
        cache: dict[frozenset[int] | None, SessionView] = {}
        same = self.same_for_all(session)

        def view_for(seats: frozenset[int]) -> SessionView:
            key = None if same else seats
            if key not in cache:
                cache[key] = self._view(session, seats)
            return cache[key]

        return view_for

    def broadcast_event(
        self, session: S, version: int, event: JSONObject, shared: str | None = None, ref: str | None = None
    ) -> str | None:
        """Send the event with each follower's view; returns the one text every follower shares (sessions
        where all see the same), if it was made. `shared` is that text, made elsewhere."""
        view_for = self._views(session)
        same = self.same_for_all(session)
        encoded: dict[
            frozenset[int] | None, str
        ] = {}  # one JSON text per distinct view, sent to every socket that shares it
        if shared is not None and same:
            encoded[None] = shared
        for conn in list(session.conns):
            if conn.joined:
                seats = frozenset(conn.seats)
                key = None if same else seats
                if key not in encoded:
                    public = self.kind.public_event(session, event, seats)
                    encoded[key] = dumps(event_message(version, public, view_for(seats), ref))
                conn.send(encoded[key])
        return encoded.get(None)

    def broadcast_state(self, session: S, skip: Connection | None = None) -> None:
        """Every follower here (but `skip`) gets the session as it is now (a change that is not an event: a
        seat taken, somebody gone)."""
        self.replica.catch_up(session)
        view_for = self._views(session)
        for conn in list(session.conns):
            if conn.joined and conn is not skip:
                conn.send(state_message(session.version, view_for(frozenset(conn.seats))))

    def resync(self, session: S, conn: Connection, since: int | None) -> EventsMessage | StateMessage:
        """What a (re)joining client needs: nothing when it saw the newest version (no view: the one it
        has is current), else the events it missed with the view after them, or the full state."""
        self.replica.catch_up(session)
        seats = frozenset(conn.seats)
        if since is not None and since == session.version:
            return events_message(session.version, [], None)
        view = self._view(session, seats)
        if since is not None and since < session.version:
            oldest = session.recent[0][0] if session.recent else session.version + 1
            if since + 1 >= oldest:
                missed: list[Missed] = []
                for v, e, r in session.recent:
                    if v > since:
                        one: Missed = {"v": v, "event": self.kind.public_event(session, e, seats)}
                        if r is not None:
                            one["ref"] = r
                        missed.append(one)
                return events_message(session.version, missed, view)
        return state_message(session.version, view)

    def recent_of(self, events: list[EventRow]) -> deque[tuple[int, JSONObject, str | None]]:
        return recent_of(events, self.settings.history)

    # --- several processes (replica.py does the work) ----------------------------------------------

    def owned_ids(self) -> list[str]:
        return [s.id for s in self.sessions.values() if s.owned]

    def watched_ids(self) -> list[str]:
        """Mirrors of games still going, with clients here: they need a live owner."""
        return [s.id for s in self.sessions.values() if not s.owned and s.conns and not s.state.finished]

    async def rpc(self, session: S, op: str, args: JSONObject) -> JSONObject:
        """A request another process forwarded to this owner (`replica.handle_rpc` checked ownership)."""
        return await self.kind.rpc(session, op, args)

    async def refresh(self, session: S) -> None:
        await self.replica.refresh(session)

    async def reload_names(self, session_ids: list[str]) -> None:
        """Sessions whose names changed in the store (a deleted profile): those in memory reload them,
        and other processes are told to."""
        for session_id in dict.fromkeys(session_ids):
            session = self.sessions.get(session_id)
            if session is not None:
                try:
                    await self.refresh(session)
                except Exception:
                    log.exception("%s %s: reloading names", self.NOUN, session_id)
            if self.cluster is not None:
                self.cluster.publish(self.KIND, session_id, {"kind": "reload"})
