"""An open seat nobody takes: the host closes it.

The host (the table's first seat held by a person) may remove an open seat before the game's first
roll (the seats after it move up one; the game starts again with one player fewer, its dice
commitment kept), or give it to a bot at any time (a friend who never came). Never at a ranked table
(it waits for its players) or a deal's (it has no open seats).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...engine import Nonce, new_game
from ...store import SeatRow, Store, StoreConflict
from ...viewtypes import JSONObject, SeatingOut
from ..live import RequestError
from ..session import Moved
from ..session.protocol import welcome
from . import schema
from .table import LiveTable

if TYPE_CHECKING:
    from .context import TableContext

__all__ = ["Seating"]

BOT = "medium"  # the level of a bot given an open seat


class Seating:
    def __init__(self, ctx: TableContext) -> None:
        self.ctx = ctx

    @staticmethod
    def host(table: LiveTable) -> int | None:
        return next((s.seat for s in table.seats if s.kind == "human"), None)

    def can(self, table: LiveTable) -> SeatingOut:
        """For the views: the host, and what it may do with an open seat now."""
        fixed = table.settings.ranked is not None or table.settings.deal is not None or table.state.finished
        open_seats = not fixed and any(s.kind == "open" for s in table.seats)
        return {
            "host": self.host(table),
            "remove": open_seats and table.state.serial == 0 and len(table.seats) > 1,
            "bot": open_seats,
        }

    async def close(self, table: LiveTable, conn_seats: set[int], msg: schema.CloseSeatMsg) -> None:
        if msg.seat not in conn_seats:
            raise RequestError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
        if table.owned:
            try:
                await self.close_here(table, conn_seats, msg)
                return
            except Moved:
                pass
        args: JSONObject = {"seats": [s for s in sorted(conn_seats)], "msg": msg.model_dump()}
        await self.ctx.forward(table, "close_seat", args)

    async def close_here(self, table: LiveTable, conn_seats: set[int], msg: schema.CloseSeatMsg) -> None:
        ctx = self.ctx
        async with table.lock:
            if not table.owned:
                raise Moved()
            if msg.seat not in conn_seats or msg.seat != self.host(table):
                raise RequestError("seat/not-host", "only the table's host closes an open seat", 403)
            if msg.v != table.version:
                raise RequestError("stale/version", f"you acted on version {msg.v}: resync", v=table.version)
            can = self.can(table)
            target = msg.target
            if target >= len(table.seats) or table.seats[target].kind != "open" or not can["bot"]:
                raise RequestError("seat/not-open", "that seat is not open", 409)
            if msg.bot:
                await self._to_bot(table, target)
            elif not can["remove"]:
                raise RequestError("seat/started", "the game has started: give the seat to a bot instead", 409)
            else:
                await self._remove(table, target)
            await ctx.sync_turns(table)
            ctx.recount(table)
            ctx.broadcast(table, None)
        ctx.schedule(table)

    async def _to_bot(self, table: LiveTable, target: int) -> None:
        name = f"Bot {target + 1}"
        try:
            await self.ctx.store.write(Store.seat_bot_op(table.id, target, name, BOT))
        except StoreConflict:
            raise RequestError("seat/not-open", "that seat is not open", 409) from None
        table.seats[target] = SeatRow(target, "bot", name, None, BOT)
        players = list(table.state.players)
        players[target] = name
        table.state = dataclasses.replace(table.state, players=tuple(players))
        self.ctx.publish(table, {"kind": "reload"})

    async def _remove(self, table: LiveTable, target: int) -> None:
        """The open seat goes; every seat after it moves up one, for this process's sockets too."""
        ctx = self.ctx
        moved = {s: s - (s > target) for s in range(len(table.seats)) if s != target}
        seats = [dataclasses.replace(row, seat=moved[row.seat]) for row in table.seats if row.seat != target]
        fair = table.fairness
        if fair is not None:
            nonces = tuple(Nonce(moved[n.seat], n.value) for n in fair.nonces if n.seat in moved)
            fair = dataclasses.replace(fair, nonces=nonces)
        state = new_game(
            table.state.rules,
            [s.name for s in seats],
            dice=fair or table.state.dice_source,
            simultaneous=table.state.simultaneous,
        )
        record = ctx.record(table, state)
        if fair is not None:
            record["fairness"] = fair.block(revealed=False)
        secret = {**fair.block(revealed=False), "seed": fair.seed} if fair is not None else None
        try:
            await ctx.store.write(Store.remove_seat_op(table.id, target, seats, record, secret))
        except StoreConflict:
            raise RequestError("seat/not-open", "that seat is not open", 409) from None
        table.seats, table.state, table.fairness = seats, state, fair
        table.seat_version = [0] * len(seats)
        ctx.start_clock(table)
        self.renumber(table, target)
        ctx.publish(table, {"kind": "reseat", "removed": target})

    @staticmethod
    def held(table: LiveTable) -> bool:
        """This process's sockets hold the seats their tokens prove now: a seat whose token went (its device
        signed out, another device took it back) is one they no longer act for (told with a new welcome).
        True when some socket lost a seat."""
        lost = False
        for conn in list(table.conns):
            seats = conn.seats & table.seats_for(conn.keys)
            if seats != conn.seats:
                conn.seats, lost = seats, True
                if conn.joined:
                    conn.send(welcome(table.version, sorted(seats)))
        return lost

    @staticmethod
    def renumber(table: LiveTable, removed: int) -> None:
        """This process's sockets and presence after a seat left: the seats after it moved up one."""

        def moved(s: int) -> int:
            return s - (s > removed)

        for conn in list(table.conns):
            conn.seats = {moved(s) for s in conn.seats if s != removed}
            if conn.joined:
                conn.send(welcome(table.version, sorted(conn.seats)))
        seen = table.seen
        seen.online = tuple(moved(s) for s in seen.online if s != removed)
        seen.connected = frozenset(moved(s) for s in seen.connected if s != removed)
        seen.gone = {moved(s): t for s, t in seen.gone.items() if s != removed}
        seen.grace = {moved(s): t for s, t in seen.grace.items() if s != removed}
        seen.nodes = {n: frozenset(moved(s) for s in seats if s != removed) for n, seats in seen.nodes.items()}
        seen.told = None
