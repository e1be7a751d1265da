"""A table's bots at work: the bot seats, and the stand-in when it plays a person's turn (`standin.py`).

They run on the owner's event loop, one task per table at most, and act through the same commit as a
person (`TableManager.commit_bot`). Thinking happens off the event loop (a hard bot's first move on a
table may load a strategy table).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from ...bots import choose_action
from ...engine import IllegalAction
from ..live import RequestError
from .standin import STAND_IN, StandIn
from .table import LiveTable

if TYPE_CHECKING:
    from .context import TableContext

__all__ = ["Bots"]

log = logging.getLogger("yambak.server")


class Bots:
    def __init__(self, ctx: TableContext, stand_in: StandIn) -> None:
        self.ctx = ctx
        self.stand_in = stand_in
        self._timers: dict[str, asyncio.TimerHandle] = {}  # table id -> the wake-up for its stand-in

    def seats(self, table: LiveTable) -> list[int]:
        """Seats a bot plays now: the bots', and people's the stand-in plays for."""
        now = self.stand_in.clock.now()
        return [s for s in table.state.to_act() if table.seats[s].kind == "bot" or self.stand_in.due(table, s, now)]

    @staticmethod
    def policy(table: LiveTable, seat: int) -> str:
        return table.seats[seat].bot or "greedy" if table.seats[seat].kind == "bot" else STAND_IN

    def tick(self) -> None:
        """Once a second: hand the turns the stand-in plays now to a bot."""
        for table in list(self.ctx.tables.values()):
            if table.owned and not table.state.finished and not self.running(table) and self.seats(table):
                self._schedule_now(table)

    def schedule(self, table: LiveTable) -> None:
        """Start the table's bots if one is to act. Safe from the event loop and from worker threads."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        loop = self.ctx.loop()
        if running is None or (loop is not None and running is not loop):
            if loop is None or loop.is_closed():
                log.error("table %s: no event loop to run its bots on (the server is not started)", table.id)
                return
            loop.call_soon_threadsafe(self._schedule_now, table)
            return
        self._schedule_now(table)

    def stop(self, table: LiveTable) -> None:
        task = table.bot_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def running(self, table: LiveTable) -> bool:
        return table.bot_task is not None and not table.bot_task.done()

    def working(self, table: LiveTable) -> bool:
        """A bot plays at the table, or has a turn to play (the stand-in's included)."""
        return self.running(table) or bool(self.seats(table))

    def _schedule_now(self, table: LiveTable) -> None:
        if not table.owned or self.running(table):
            return
        if not self.seats(table):
            self._wake_for_stand_in(table)
            return
        table.bot_task = asyncio.get_running_loop().create_task(self._run(table))
        table.bot_task.add_done_callback(lambda task: self._done(table, task))

    def _wake_for_stand_in(self, table: LiveTable) -> None:
        """When the stand-in is to play an away player's turn in a few seconds: be there then, not at the next
        tick (a second later: a wait of 3 s would be up to 4)."""
        waits = self.stand_in.waits(table)
        if not waits or table.state.finished:
            return
        timer = self._timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()
        delay = min(waits.values()) + 0.02  # just after it is due
        self._timers[table.id] = asyncio.get_running_loop().call_later(delay, self._wake, table)

    def _wake(self, table: LiveTable) -> None:
        self._timers.pop(table.id, None)
        if self.ctx.tables.get(table.id) is table:  # still this process's table (not forgotten, not moved)
            self._schedule_now(table)

    @staticmethod
    def _done(table: LiveTable, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("bots at table %s stopped", table.id, exc_info=exc)

    async def _run(self, table: LiveTable) -> None:
        settings = self.ctx.settings
        i = 0
        while True:
            await asyncio.sleep(settings.bot_delay)
            if table.settings.undo:  # a person's last entry may still be taken back: give them a moment
                wait = table.last_entry + settings.undo_grace - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
            async with table.lock:
                seats = self.seats(table)
                if not seats or not table.owned:
                    return
                seat = seats[i % len(seats)]
                i += 1
                try:
                    policy = self.policy(table, seat)
                    action = await asyncio.to_thread(choose_action, table.state, seat, policy, table.rng)
                    await self.ctx.commit(table, seat, action)
                except (IllegalAction, RequestError, ValueError) as exc:  # never expected: log and stop
                    log.error("bot at table %s seat %d: %s", table.id, seat, exc)
                    return
