"""What a live table tells the session core (`session/kind.py`): how it is rebuilt, how an event changes it,
what a viewer sees, and what happens when its owner changes. The hooks ask the table's parts; none of them
calls back into the table manager (`tests/server/test_trace.py` follows a `score` through them)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ...engine import DuplicateDice, Event, FairDice, GameState, IllegalAction, ManualDice, Nonce, SecureDice, replay
from ...store import EventRow, Op, SessionRow, TurnRow
from ...viewtypes import JSONObject, JSONValue, TableView
from ..cluster import OwnerMessage, Published
from ..common.clock import naive_utc
from ..common.dice import seal
from ..common.events import GameEnding, Write
from ..live import Connection
from ..session import Loaded, SessionKind
from ..session.model import recent_of
from . import schema
from .bots import Bots
from .clock import TurnClock
from .context import TableContext
from .presence import Presence
from .reactions import Reactions
from .seating import Seating
from .settings import TableSettings
from .standin import StandIn, stood_in
from .table import LiveTable, TableError, record_of
from .turns import Turns
from .view import LiveParts, public_event, table_view

__all__ = ["Forwarded", "TableKind", "apply_event", "seat_of", "seats_of"]

log = logging.getLogger("yambak.server")

# A request another process forwarded to a table's owner: (table, its arguments) -> the answer
Forwarded = Callable[[LiveTable, JSONObject], Awaitable[JSONObject]]

# A hold or release that changed nothing: refused since, but a log may hold one from before (the same state).
_NO_CHANGE = frozenset({"illegal/already-held", "illegal/not-held"})


def apply_event(state: GameState, data: JSONObject) -> GameState:
    """A logged event applied again with the dice it recorded."""
    try:
        state, _ = state.apply(Event.from_dict(data).to_action())
    except IllegalAction as exc:
        if exc.code not in _NO_CHANGE:
            raise
    return stood_in(state, data)


def _replay_events(state: GameState, events: list[EventRow]) -> GameState:
    """Re-apply stored events with the dice they recorded (exact, mid-turn included)."""
    for e in events:
        if e.type != "nonce":  # fair dice: a player's nonce changes the dice source, not the game
            state = apply_event(state, e.data)
    return state


def _fair_dice(fairness: dict[str, Any] | None, duplicate: bool) -> FairDice | None:
    if not fairness or not fairness.get("seed"):
        return None
    nonces = tuple(Nonce(n["seat"], n["nonce"]) for n in fairness.get("nonces", []))
    return FairDice(fairness["seed"], nonces, duplicate)


def _rolloffs_json(state: GameState) -> list[JSONValue]:
    return [[target, [[[seat, list(dice)] for seat, dice in r] for r in rounds]] for target, rounds in state.rolloffs]


def _rolloffs_of(data: list[Any]) -> Any:
    return tuple(
        (str(target), tuple(tuple((int(seat), tuple(dice)) for seat, dice in r) for r in rounds))
        for target, rounds in data
    )


class TableKind(SessionKind[LiveTable]):
    """A live table's hooks, over its parts (made by the table manager, which hands them a `TableContext`)."""

    KIND = "table"
    NOUN = "table"
    UNKNOWN = "table/unknown"
    Error = TableError

    def __init__(
        self,
        ctx: TableContext,
        clock: TurnClock,
        presence: Presence,
        stand_in: StandIn,
        bots: Bots,
        seating: Seating,
        reactions: Reactions,
        turns: Turns,
        forwarded: Mapping[str, Forwarded],
    ) -> None:
        self.ctx, self.clock, self.presence, self.stand_in = ctx, clock, presence, stand_in
        self.bots, self.seating, self.reactions, self.turns = bots, seating, reactions, turns
        self.forwarded = forwarded  # the table manager's own forwarded requests (an action, a join, a rematch)

    def cap(self) -> int:
        return self.ctx.settings.max_tables

    def load_more(self, table_id: str, /) -> tuple[dict[int, int], dict[int, TurnRow]]:
        return self.ctx.store.seat_versions(table_id), self.ctx.store.turns_of(table_id)

    def blank(self, row: SessionRow) -> LiveTable:
        return LiveTable(row.id, row.name, None)  # type: ignore[arg-type]  # `fill` sets the state

    def fill(self, table: LiveTable, loaded: Loaded, owned: bool) -> None:
        """An owner's state rolls the table's dice; a mirror's only takes the owner's."""
        row, after, recent, more = loaded
        seat_versions, turns = more if more is not None else ({}, {})  # `load_more` always reads them
        record = dict(row.record)
        record["players"] = [s.name for s in row.seats]  # names live in the seat rows
        state = replay(record, simultaneous=row.duplicate)
        state = _replay_events(state, after)
        table.fairness = seal(_fair_dice(row.fairness, row.duplicate), row.fairness, self.ctx.settings.clock)
        if owned:
            state = state.with_dice(table.fairness or dice(row.duplicate, row.seed))
        table.name, table.listed, table.seats, table.state = row.name, row.listed, row.seats, state
        table.seed, table.rematch, table.owned = row.seed, row.rematch, owned
        table.settings = TableSettings.from_dict(row.settings)
        self.clock.resume(table, self.turns.stored_starts(turns) if table.settings.asynchronous else None)
        table.reminded = {seat for seat, turn in turns.items() if turn.reminded}
        table.turns_kept = frozenset(turns)
        table.version = after[-1].version if after else row.version
        table.seat_version = [seat_versions.get(i, 0) for i in range(len(row.seats))]
        table.recent = recent_of(recent, self.ctx.settings.history)
        self.stand_in.rebuild(table)
        self.reseated(table)

    def reseated(self, table: LiveTable) -> None:
        """The seats' tokens changed (one taken back, one signed out): sockets here lose the seats their
        tokens no longer prove, and those seats count as away."""
        if self.seating.held(table):
            self.presence.changed(table)

    def apply_logged(self, table: LiveTable, message: OwnerMessage) -> GameState:
        event = message["event"]
        if event["type"] == "nonce":
            seat, nonce = event["player"], event["nonce"]
            if table.fairness is not None and isinstance(seat, int) and isinstance(nonce, str):
                table.fairness = table.fairness.with_nonce(Nonce(seat, nonce))
            state = table.state
        else:
            state = apply_event(table.state, event)
        if "rolloffs" in message:
            state = dataclasses.replace(state, rolloffs=_rolloffs_of(message["rolloffs"]))
        return state

    def with_event(self, table: LiveTable, state: GameState, event: JSONObject, /) -> Op | None:
        return self.turns.with_event(table, state, event)

    def applied(self, table: LiveTable, before: GameState, version: int, event: JSONObject, /) -> None:
        self.clock.applied(table, before, event)
        self.turns.began(table, before, event)
        seat = event["player"]
        if isinstance(seat, int):  # every event names its seat
            table.seat_version[seat] = version
        self.stand_in.applied(table, event)

    def ending(self, table: LiveTable, state: GameState, /) -> list[Write]:
        at = naive_utc(self.ctx.settings.clock())
        return self.ctx.events.collect(
            GameEnding(table.id, state, tuple(table.seats), table.settings.deal, at, table.settings.ranked)
        )

    def published(self, _table: LiveTable, state: GameState, /) -> Published:
        return {"rolloffs": _rolloffs_json(state)} if state.finished and state.rolloffs else {}

    def record(self, table: LiveTable, state: GameState | None = None) -> JSONObject:
        """The table's game record, with its dice commitment (the seed revealed once the game is over)."""
        state = state or table.state
        out = record_of(state)
        if table.fairness is not None:
            out["fairness"] = table.fairness.block(revealed=state.finished)
        return out

    def view(self, table: LiveTable, seats: frozenset[int] = frozenset()) -> TableView:
        live: LiveParts = {
            "online": self.presence.online(table),
            "clocks": self.clock.left(table),
            "stand_in": self.stand_in.waits(table),
            "played_for": {str(s): list(entries) for s, entries in table.played_for.items()},
            "seating": self.seating.can(table),
        }
        return table_view(table, seats, live)

    def public_event(self, table: LiveTable, event: JSONObject, seats: frozenset[int], /) -> JSONObject:
        return public_event(event, table.state, seats)

    def same_for_all(self, table: LiveTable, /) -> bool:
        return not table.state.simultaneous  # a duplicate table hides what a viewer has not played yet

    def connected(self, table: LiveTable, conn: Connection, /) -> None:
        self.presence.changed(table, conn)

    def owner_message(self, table: LiveTable, message: OwnerMessage, /) -> bool:
        kind = message.get("kind")
        if kind == "presence":
            self.presence.told(table, message)
            return True
        if kind == "presence?":
            self.presence.asked(table)
            return True
        if kind == "reaction":
            self.reactions.show(table, dict(message["message"]))
            return True
        if kind == "reseat":  # an open seat left: the sockets here move up with their seats, then reload
            self.seating.renumber(table, int(message["removed"]))
            return False
        if kind != "rematch":
            return False
        table.rematch = message["table"]
        for conn in list(table.conns):
            conn.send({"type": "rematch", "table": table.rematch})
        self.ctx.broadcast(table, None)
        return True

    def moved(self, table: LiveTable, owned: bool, /) -> None:
        if owned:
            self.presence.promoted(table)
            self.bots.schedule(table)
            return
        # another process owns the table now: this copy takes the owner's dice instead of rolling
        table.state = table.state.with_dice(ManualDice())
        self.presence.demoted(table)

    def stop(self, table: LiveTable, /) -> None:
        self.bots.stop(table)

    def busy(self, table: LiveTable) -> bool:
        return self.bots.running(table)

    async def rpc(self, table: LiveTable, op: str, args: JSONObject, /) -> JSONObject:
        if op == "close_seat":
            msg = schema.client_message.validate_python(args["msg"])
            await self.seating.close_here(table, set(seats_of(args["seats"])), msg)
            return {}
        if op == "react":
            return self.reactions.here(table, seat_of(args["seat"]), str(args["reaction"]))
        if op == "presence":
            return self.presence.reported(table, str(args["node"]), seats_of(args["seats"]))
        if op in self.forwarded:
            return await self.forwarded[op](table, args)
        return await SessionKind.rpc(self, table, op, args)


def seat_of(value: JSONValue) -> int:
    """A seat in a forwarded request (its sender wrote an int)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not a seat: {value!r}")
    return value


def seats_of(value: JSONValue) -> list[int]:
    if not isinstance(value, list):
        raise TypeError(f"not a list of seats: {value!r}")
    return [seat_of(v) for v in value]


def dice(duplicate: bool, seed: str | None) -> DuplicateDice | SecureDice:
    """An owner's dice for a table without fair dice (tables older than them)."""
    return DuplicateDice(seed) if duplicate and seed else SecureDice()
