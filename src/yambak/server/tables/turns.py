"""Whose turn it is, kept in the store: games over days.

An asynchronous table keeps a row per person's seat to act (`store/turns.py`); a table of several people
keeps one for each person to act who is not at the table (their "your turn" list brings them back; a game
played live, everybody here, writes nothing). The rows are written in the transaction of the event that
starts or ends a turn (only then: a roll or a hold writes nothing), when a person to act leaves or comes
back, and are gone with the game's end. The row holds the turn's start and, at an asynchronous table
(`TableSettings.asynchronous`: a clock of hours or days), its deadline and when to remind the player, as
wall-clock times (`Settings.clock`), so that
- a restart resumes an asynchronous table's clocks where they were (`TurnClock.resume`), not from zero (a
  live clock starts again: the minutes the server was down were not the player's);
- an asynchronous table may leave memory while it waits (`evict`), and the sweeper brings it back when a
  deadline passes or a reminder is due, so that its owner fires them: without a cluster, this process
  loads it; with one, the table is among the orphans the cluster's monitor adopts (`orphans`), taken by
  whichever process wins its lease;
- the "your turn" lists read them (`/api/me/turns`).

At an asynchronous table, a profile's player who is not at the table hears of their turn (`TurnSignal`
"turn", when it begins) and of a quarter of its clock left (`TurnSignal` "reminder", once: marked in the
store, so a restart does not say it again). Web Push listens to those.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ...engine import GameState
from ...store import Op, Store, TurnRow
from ...viewtypes import JSONObject
from ..common.events import TurnSignal
from .clock import TurnClock
from .table import LiveTable

if TYPE_CHECKING:
    from .context import TableContext

__all__ = ["Turns"]

log = logging.getLogger("yambak.server")

SWEEP_EVERY = 5  # ticks (seconds) between two looks at the store for deadlines of tables out of memory
REMIND_AFTER = 3 / 4  # of an asynchronous turn's clock: the reminder, a quarter of it left


def _utc(seconds: float) -> datetime:
    """The server's clock as the store keeps time (naive UTC)."""
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


def seconds_of(moment: datetime) -> float:
    """A stored time (naive UTC) as the server's clock counts it."""
    return moment.replace(tzinfo=UTC).timestamp()


class Turns:
    def __init__(self, ctx: TableContext, clock: TurnClock) -> None:
        self.ctx = ctx
        self.clock = clock
        self._tasks: set[asyncio.Task[None]] = set()
        self._ticks = 0

    @staticmethod
    def kept(table: LiveTable) -> bool:
        """Does the table keep its turns in the store? Asynchronous ones (deadlines), and those where people
        wait for each other; not a deal's (everybody plays their own dice) nor one person's against bots."""
        people = sum(s.kind in ("human", "open") for s in table.seats)
        return table.settings.deal is None and (table.settings.asynchronous or people > 1)

    def _rows(
        self, table: LiveTable, to_act: Iterable[int], since: Mapping[int, float], fresh: set[int]
    ) -> list[TurnRow]:
        """The rows of the people's seats to act; `fresh`: those whose turn begins now (not reminded yet)."""
        # a live clock's deadline stays in memory (a restart gives it back: the downtime was not the player's)
        limit = table.settings.clock if table.settings.asynchronous and self.clock.running(table) else None
        rows = []
        for seat in self._listed(table, to_act):
            due = remind = None
            if limit:
                due, remind = _utc(since[seat] + limit), _utc(since[seat] + limit * REMIND_AFTER)
            reminded = seat in table.reminded and seat not in fresh
            rows.append(TurnRow(seat, _utc(since[seat]), due, remind, reminded))
        return rows

    def _listed(self, table: LiveTable, to_act: Iterable[int]) -> list[int]:
        """The people's seats to act whose turn the store holds: all at an asynchronous table (deadlines), else
        those not at the table."""
        people = [s for s in to_act if table.seats[s].kind == "human"]
        if table.settings.asynchronous:
            return people
        return [s for s in people if not self.ctx.present(table, s)]

    def _op(self, table: LiveTable, rows: list[TurnRow]) -> Op | None:
        """The write that makes the stored rows these (None: they are already none)."""
        seats = frozenset(r.seat for r in rows)
        if not seats and not table.turns_kept:
            return None
        table.turns_kept = seats
        return Store.turns_op(table.id, rows)

    def with_event(self, table: LiveTable, state: GameState, event: JSONObject) -> Op | None:
        """The write for the event's transaction when it starts or ends a turn (`table.state`: the state before)."""
        if not self.kept(table):
            return self._op(table, [])  # rows of when it was kept (a seat since given to a bot) go
        if state.finished:
            table.turns_kept = frozenset()
            return Store.turns_op(table.id, [])
        starts = TurnClock.starting(table.state, state, event)
        if not starts and set(table.state.to_act()) == set(state.to_act()):
            return None
        now = self.clock.now()
        since = {s: now if s in starts else self.clock.started(table, s) for s in state.to_act()}
        return self._op(table, self._rows(table, state.to_act(), since, starts))

    def now_op(self, table: LiveTable) -> Op | None:
        """The write of the table's turns as they are (a new table, a seat taken or removed, somebody gone or
        back); None: nothing to change."""
        if not self.kept(table) or table.state.finished:
            return self._op(table, [])
        to_act = table.state.to_act()
        since = {s: self.clock.started(table, s) for s in to_act}
        return self._op(table, self._rows(table, to_act, since, set()))

    async def sync(self, table: LiveTable) -> None:
        """Store the table's turns as they are now (after a change that is no event: a seat, somebody gone).
        A failure is logged, not raised: what changed is stored already, the next turn writes them again."""
        op = self.now_op(table)
        if op is None:
            return
        try:
            await self.ctx.store.write(op)
        except Exception:
            table.turns_kept = frozenset(range(len(table.seats)))  # not known: the next change writes them all
            log.exception("table %s: its turns could not be stored", table.id)

    def seen(self, table: LiveTable) -> None:
        """Who is here changed (the owner's count): the rows of a table that is not asynchronous follow it."""
        if not table.owned or not self.kept(table) or table.settings.asynchronous or table.state.finished:
            return
        if frozenset(self._listed(table, table.state.to_act())) != table.turns_kept:
            self._spawn(lambda: self._sync_locked(table))

    async def _sync_locked(self, table: LiveTable) -> None:
        async with table.lock:  # after an event being stored, never before it (the store writes in order)
            if self.ctx.tables.get(table.id) is table and table.owned:
                await self.sync(table)

    def _spawn(self, work: Callable[[], Coroutine[object, object, None]]) -> None:
        """Run `work()` on the event loop, off the caller's path (nothing where no loop runs: a blocking caller)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(work())
        self._tasks.add(task)  # kept until done: a task nobody holds may vanish
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    def stored_starts(stored: Mapping[int, TurnRow]) -> dict[int, float]:
        return {seat: seconds_of(row.since_at) for seat, row in stored.items()}

    # --- telling a player who is not at the table -------------------------------------------------

    def began(self, table: LiveTable, before: GameState, event: JSONObject) -> None:
        """An owner's event is the table's state: a turn that begins at an asynchronous table is told."""
        if table.owned and table.settings.asynchronous and not table.state.finished:
            for seat in TurnClock.starting(before, table.state, event):
                self._signal(table, seat, "turn")

    def _signal(self, table: LiveTable, seat: int, kind: str) -> None:
        row = table.seats[seat]
        if row.kind != "human" or row.profile_id is None or self.ctx.present(table, seat):
            return
        due = self.clock.deadline(table, seat)
        first = next((s.name for s in table.seats if s.kind == "human"), "")
        signal = TurnSignal(table.id, table.name, seat, row.profile_id, kind, None if due is None else _utc(due), first)
        self._spawn(lambda: self.ctx.events.publish(signal))  # off the action's path

    # --- the owner's sweep, once a second -----------------------------------------------------------

    async def sweep(self) -> None:
        await self.remind()
        self._ticks += 1
        if self._ticks % SWEEP_EVERY == 0:
            self.evict()
            await self.load_due()

    async def remind(self) -> None:
        """A quarter of an asynchronous turn's clock left: marked in the store, then told (once). Under the
        table's lock (a busy table waits for the next tick): the mark never lands on a turn begun meanwhile."""
        now = self.clock.now()
        for table in list(self.ctx.tables.values()):
            if not table.owned or not table.settings.asynchronous or not self.clock.running(table):
                continue
            limit = float(table.settings.clock or 0)
            due = [
                seat
                for seat in table.state.to_act()
                if seat not in table.reminded
                and table.seats[seat].kind == "human"
                and now >= self.clock.started(table, seat) + limit * REMIND_AFTER
            ]
            if not due or table.lock.locked():
                continue
            async with table.lock:
                for seat in due:
                    table.reminded.add(seat)
                    try:
                        await self.ctx.store.write(Store.reminded_op(table.id, seat))
                    except Exception:  # told once rather than not: a restart may tell it again
                        log.exception("table %s seat %d: the reminder could not be stored", table.id, seat)
            for seat in due:  # a deadline already passed (the server was down): the stand-in plays, nobody is told
                if now < self.clock.started(table, seat) + limit:
                    self._signal(table, seat, "reminder")

    def evict(self) -> int:
        """Asynchronous tables nobody follows, whose people have not acted for `idle_after`, wait in the store."""
        ctx, idle, now, n = self.ctx, self.ctx.settings.idle_after, time.monotonic(), 0
        for table in list(ctx.tables.values()):
            if not table.owned or not table.settings.asynchronous or table.state.finished or table.conns:
                continue
            if now - max(table.last_action, table.touched) < idle or table.lock.locked():
                continue
            if ctx.working(table):
                continue
            ctx.forget(table)
            n += 1
        return n

    async def load_due(self) -> None:
        """Tables out of memory with a deadline passed or a reminder due come back, owned here, so that their
        clocks fire (a cluster's are adopted by its monitor instead: `orphans`)."""
        ctx = self.ctx
        if ctx.cluster is not None:
            return
        due = await ctx.store.read(ctx.store.due_turns, _utc(self.clock.now()))
        for table_id in due:
            if table_id in ctx.tables:
                continue
            try:
                table = await ctx.aget(table_id)
            except Exception:  # one broken table must not keep the others' clocks from firing
                log.exception("table %s: its deadline cannot be fired", table_id)
                continue
            ctx.schedule(table)
