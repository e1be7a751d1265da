"""What a kind of session (a live table, a kept sheet) tells the session core: its hooks, all public.

`SessionManager` (`core.py`) is one class for every kind; it takes a `SessionKind` and calls nothing else
of the kind's. A kind states the hooks it needs (`SessionKind`'s bodies are the defaults a kind that
names the protocol as its base takes for the rest)."""

from __future__ import annotations

from typing import Protocol, TypeVar

from ...engine import GameState
from ...store import Op, SessionRow
from ...viewtypes import JSONObject, SessionView
from ..common.events import Write
from ..live import Connection, RequestError
from .model import Loaded, More, OwnerMessage, Published, Session

__all__ = ["SessionKind"]

S = TypeVar("S", bound=Session)


class SessionKind(Protocol[S]):
    KIND: str  # the cluster's name for the kind: "table", "sheet"
    NOUN: str  # as messages name one: "table", "score sheet"
    UNKNOWN: str  # the refusal code of an id that names none
    Error: type[RequestError]

    # --- rebuilding from the store ------------------------------------------------------------------

    def cap(self) -> int:
        """How many sessions of this kind may be in memory at once."""
        ...

    def load_more(self, _session_id: str, /) -> More:
        """What the kind reads from the store besides its row and log (`Loaded`'s last item; blocking)."""
        return None

    def blank(self, row: SessionRow) -> S:
        """A session object for a stored row, before `fill` sets it."""
        ...

    def fill(self, session: S, loaded: Loaded, owned: bool) -> None:
        """Set a session to its stored state: the snapshot, then the events after it. Sets at least `state`,
        `name`, `version`, `owned`."""
        ...

    # --- events ----------------------------------------------------------------------------------------

    def apply_logged(self, session: S, message: OwnerMessage) -> GameState:
        """The state after one of the owner's logged events (`message["event"]`), as a follower applies it."""
        ...

    def applied(self, _session: S, _before: GameState, _version: int, _event: JSONObject, /) -> None:
        """The kind's bookkeeping once an event is the session's state (an owner's commit, a mirror's apply)."""
        return None

    def with_event(self, _session: S, _state: GameState, _event: JSONObject, /) -> Op | None:
        """The kind's own write for the event's transaction (a table's turns), if the event calls for one."""
        return None

    def ending(self, _session: S, _state: GameState, /) -> list[Write]:
        """Writes that join the transaction of the event that finishes the game."""
        return []

    def published(self, _session: S, _state: GameState, /) -> Published:
        """What else a follower needs with an event (a table's roll-offs at the end)."""
        return {}

    def record(self, session: S, state: GameState | None = None) -> JSONObject:
        """The session's game record (what its snapshots store)."""
        ...

    # --- viewers ---------------------------------------------------------------------------------------

    def view(self, session: S, seats: frozenset[int] = frozenset()) -> SessionView:
        """What a viewer holding these seats sees."""
        ...

    def public_event(self, _session: S, event: JSONObject, _seats: frozenset[int], /) -> JSONObject:
        """An event as this viewer may see it."""
        return event

    def same_for_all(self, _session: S, /) -> bool:
        """Does every viewer see the same view (so one text serves every process's clients)?"""
        return True

    def connected(self, _session: S, _conn: Connection, /) -> None:
        """A socket of this process said hello to the session, or closed (a table counts who is here)."""
        return None

    # --- owners and mirrors ------------------------------------------------------------------------------

    def acts_here(self, session: S) -> bool:
        """Does anybody act on the session through this process (else its owner may hand it over)?"""
        return any(conn.seats for conn in session.conns)

    def owner_message(self, _session: S, _message: OwnerMessage, /) -> bool:
        """A message of the owner's other than an event (True: handled here)."""
        return False

    def moved(self, _session: S, _owned: bool, /) -> None:
        """This process owns the session now (`owned`: its background work starts here), or another one does."""
        return None

    def stop(self, _session: S, /) -> None:
        """The session's background work stops here (it moved, or it is dropped)."""
        return None

    def busy(self, session: S) -> bool:
        """Background work still runs for the session (it is not dropped from memory then)."""
        return session.lock.locked()

    async def rpc(self, _session: S, op: str, _args: JSONObject, /) -> JSONObject:
        """A request another process forwarded to this owner (the replica checked ownership)."""
        raise self.Error("protocol/unknown-op", f"unknown forwarded request {op!r}")
