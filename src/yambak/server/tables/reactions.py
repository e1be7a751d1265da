"""Quick reactions between the players of a table: a fixed set (the page draws each as a picture with a
translated phrase; nobody types anything), from a seat to everybody at the table, on every process.

A reaction is not a move: it is not logged and changes no version. It goes to the table's owner (a
reaction sent to another process is forwarded, as an action is), which holds each seat to a few at a
time (`RATE`, `BURST`), sends it to its own clients and tells the other processes, which send it to
theirs. Each viewer may mute a player's reactions on their own device (the page keeps that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...viewtypes import JSONObject
from ..limits import Bucket
from ..live import RequestError
from ..session import Moved
from .table import LiveTable

if TYPE_CHECKING:
    from .context import TableContext

__all__ = ["BURST", "RATE", "REACTIONS", "Reactions"]

# The set, in the order the page offers them (their pictures and phrases: web/static/reactions.js).
REACTIONS = ("nice", "wow", "ouch", "luck", "thanks", "gg")
RATE, BURST = 0.5, 3  # a seat's reactions: three at once, then one every two seconds


class Reactions:
    def __init__(self, ctx: TableContext) -> None:
        self.ctx = ctx
        self.buckets: dict[tuple[str, int], Bucket] = {}

    async def send(self, table: LiveTable, conn_seats: set[int], seat: int, reaction: str) -> None:
        if seat not in conn_seats:
            raise RequestError("auth/not-your-seat", f"this connection holds no token for seat {seat}")
        if table.owned:
            try:
                self.here(table, seat, reaction)
                return
            except Moved:
                pass
        await self.ctx.forward(table, "react", {"seat": seat, "reaction": reaction})

    def here(self, table: LiveTable, seat: int, reaction: str) -> JSONObject:
        """The owner: within the seat's limit, to every client of the table (here and elsewhere)."""
        if not table.owned:
            raise Moved()
        if seat >= len(table.seats) or table.seats[seat].kind != "human" or reaction not in REACTIONS:
            raise RequestError("input/invalid", "not a reaction of this table")
        key = (table.id, seat)
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) > 10000:  # tables long gone: their buckets go too
                self.buckets.clear()
            bucket = self.buckets[key] = Bucket(RATE, BURST)
        if not bucket.take():
            raise RequestError("react/too-fast", "a reaction at a time: wait a moment", 429)
        message: JSONObject = {"type": "reaction", "seat": seat, "reaction": reaction}
        self.show(table, message)
        self.ctx.publish(table, {"kind": "reaction", "message": message})
        return {}

    @staticmethod
    def show(table: LiveTable, message: JSONObject) -> None:
        """To every client of the table on this process."""
        for conn in list(table.conns):
            if conn.joined:
                conn.send(message)
