"""Who is at a table: the seats with a device connected, on any process, shown to everyone.

A seat is *here* while some device holding its token follows the table, on this process or another,
and for `AWAY_AFTER` seconds after its last one closed (a page being reloaded is not somebody
leaving); after that it is *away*, since the moment its last device closed (`gone`).

The table's owner counts: it knows its own sockets, and every other process tells it which seats its
sockets hold (`report`, forwarded like an action) whenever they change; a process that dies takes its
seats with it (`sweep`). When what the views say changes, the owner sends its clients the table as it is
now and tells the other processes (`{"kind": "presence"}` on the table's channel), which send theirs.
An owner that takes a table over asks every process to tell it again, and counts the seats it does not
know of yet as just gone, so that the stand-in waits for them.

Times are the server's clock (seconds since the epoch), as the turn clock's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ..live import Connection, RequestError
from .table import LiveTable, Seen

if TYPE_CHECKING:
    from .context import TableContext

__all__ = ["AWAY_AFTER", "Presence", "Seen"]

log = logging.getLogger("yambak.server")

AWAY_AFTER = 2.5  # seconds without a device before a seat shows as away


class Presence:
    def __init__(self, ctx: TableContext, now: Callable[[], float]) -> None:
        self.ctx = ctx
        self.now = now
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- what the views say ----------------------------------------------------------------------

    def online(self, table: LiveTable) -> list[int]:
        if table.owned:
            return list(table.seen.online)
        return sorted(set(table.seen.online) | set(table.online()))  # this process's own sockets at once

    def present(self, table: LiveTable, seat: int) -> bool:
        return seat in table.seen.online

    def gone_since(self, table: LiveTable, seat: int) -> float | None:
        """Since when the seat has had no device anywhere (None: it has one, or shows as here still)."""
        if seat in table.seen.online:
            return None
        return table.seen.gone.get(seat)

    # --- the owner's count -----------------------------------------------------------------------

    def new_table(self, table: LiveTable) -> None:
        """A table made here: its players are not on the way from anywhere, they arrive."""
        table.seen.fresh = False
        self._count(table)

    def changed(self, table: LiveTable, conn: Connection | None = None) -> None:
        """The sockets of this process on the table changed (`conn` said hello, or closed)."""
        if table.owned:
            if self._count(table):
                self._announce(table, conn)
        else:
            self._report_soon(table)

    def _count(self, table: LiveTable) -> bool:
        """Count again (the owner); True when what the views say changed."""
        seen, now = table.seen, self.now()
        here = set(table.online())
        for seats in seen.nodes.values():
            here |= seats
        humans = [s.seat for s in table.seats if s.kind == "human"]
        if seen.fresh:  # loaded or taken over: whoever was here may be reconnecting, or on another process
            seen.fresh = False
            seen.connected = frozenset(humans)
            for s in humans:
                seen.gone[s] = min(now, table.turn_started.get(s, now))  # not gone during their turn
        for s in humans:
            if s in here:
                seen.gone.pop(s, None)
                seen.grace.pop(s, None)
            elif s in seen.connected:  # just left
                seen.gone.setdefault(s, now)
                seen.grace[s] = now + AWAY_AFTER
            else:  # not here yet: not gone during a turn
                seen.gone.setdefault(s, min(now, table.turn_started.get(s, now)))
        for s in list(seen.gone):
            if s >= len(table.seats) or table.seats[s].kind != "human":
                del seen.gone[s]
        seen.connected = frozenset(here)
        online = tuple(s for s in humans if s in here or seen.grace.get(s, 0.0) > now)
        seen.grace = {s: t for s, t in seen.grace.items() if t > now}
        self._wake(table)
        if online != seen.online:
            seen.online = online
            return True
        return False

    def _wake(self, table: LiveTable) -> None:
        """Count again when the next grace ends (a seat that has not come back shows as away then)."""
        seen = table.seen
        if seen.timer is not None:
            seen.timer.cancel()
            seen.timer = None
        loop = self.ctx.loop()
        if not seen.grace or loop is None or loop.is_closed():
            return
        delay = max(0.0, min(seen.grace.values()) - self.now()) + 0.05
        seen.timer = loop.call_later(delay, self._graced, table)

    def _graced(self, table: LiveTable) -> None:
        table.seen.timer = None
        if table.owned and self.ctx.tables.get(table.id) is table and self._count(table):
            self._announce(table)
            self.ctx.schedule(table)  # an away player's turn may be the stand-in's now

    def recount(self, table: LiveTable) -> None:
        """The seats changed (one taken, one given to a bot or removed): count them again."""
        if table.owned and self._count(table):
            self._announce(table)

    def _announce(self, table: LiveTable, skip: Connection | None = None) -> None:
        """Every client here gets the table as it is now; the other processes hear what changed."""
        self.ctx.turns_seen(table)  # a person to act who left is listed as "your turn" (`turns.py`)
        self.ctx.broadcast(table, skip)
        said = self.said(table)
        self.ctx.publish(table, {"kind": "presence", "online": said["online"], "away": said["away"]})

    def said(self, table: LiveTable) -> dict[str, Any]:
        now = self.now()
        seen = table.seen
        return {"online": list(seen.online), "away": {str(s): max(0.0, now - t) for s, t in seen.gone.items()}}

    def reported(self, table: LiveTable, node: str, seats: list[int]) -> dict[str, Any]:
        """Another process's sockets hold these seats now (forwarded to the owner)."""
        held = frozenset(s for s in seats if 0 <= s < len(table.seats))
        cluster = self.ctx.cluster
        if cluster is not None and node == cluster.node:  # this process's own sockets count themselves
            pass
        elif held:
            table.seen.nodes[node] = held
        else:
            table.seen.nodes.pop(node, None)
        if self._count(table):
            self._announce(table)
            self.ctx.schedule(table)
        return self.said(table)

    async def sweep(self) -> None:
        """Seats held on processes that died go (their sockets closed without a word)."""
        cluster = self.ctx.cluster
        if cluster is None:
            return
        tables = [t for t in self.ctx.tables.values() if t.owned and t.seen.nodes]
        dead: dict[str, bool] = {}
        for table in tables:
            for node in list(table.seen.nodes):
                if node not in dead:
                    try:
                        dead[node] = not await cluster.alive(node)
                    except Exception:  # Redis is down: nobody is taken for dead meanwhile
                        return
                if dead[node]:
                    table.seen.nodes.pop(node, None)
            if any(dead.values()) and self._count(table):
                self._announce(table)
                self.ctx.schedule(table)

    def promoted(self, table: LiveTable) -> None:
        """This process owns the table now: count afresh, and ask the others what their sockets hold."""
        seen = table.seen
        seen.nodes.clear()
        seen.fresh = True
        seen.told = None
        if self._count(table):
            self.ctx.broadcast(table, None)
        self.ctx.publish(table, {"kind": "presence?"})

    # --- another process's copy ------------------------------------------------------------------

    def demoted(self, table: LiveTable) -> None:
        """Another process owns the table now: tell it what this process's sockets hold."""
        seen = table.seen
        if seen.timer is not None:
            seen.timer.cancel()
            seen.timer = None
        seen.told = None
        seen.nodes.clear()
        self._report_soon(table)

    def asked(self, table: LiveTable) -> None:
        """A new owner asks what this process's sockets hold."""
        table.seen.told = None
        self._report_soon(table)

    def told(self, table: LiveTable, message: Mapping[str, Any]) -> None:
        """The owner says who is here."""
        self._take(table, message)
        self.ctx.broadcast(table, None)

    def _take(self, table: LiveTable, said: Mapping[str, Any]) -> None:
        now = self.now()
        table.seen.online = tuple(int(s) for s in said.get("online", ()))
        table.seen.gone = {int(s): now - float(age) for s, age in dict(said.get("away", {})).items()}

    def _report_soon(self, table: LiveTable) -> None:
        seen = table.seen
        if self.ctx.cluster is None or (seen.reporting is not None and not seen.reporting.done()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._report(table))
        seen.reporting = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _report(self, table: LiveTable) -> None:
        cluster = self.ctx.cluster
        assert cluster is not None
        seen = table.seen
        while not table.owned:
            seats = frozenset(table.online())
            if seats == seen.told:
                return
            try:
                said = await self.ctx.forward(
                    table, "presence", {"node": cluster.node, "seats": [s for s in sorted(seats)]}
                )
            except RequestError as exc:  # Redis or the owner is gone: the next change or owner asks again
                log.info("table %s: presence not told (%s)", table.id, exc.code)
                return
            seen.told = seats
            if not table.owned and said:
                self._take(table, said)
                self.ctx.broadcast(table, None)
        self.changed(table)  # this process took the table over meanwhile: it counts itself
