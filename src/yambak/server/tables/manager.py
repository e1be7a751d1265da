"""Live tables: the one place where client actions meet the engine and the store.

One-way flow for every action: validated message -> engine action -> event ->
store (event + game record, one transaction) -> broadcast. A table's lock
serialises its actions, so versions are gapless and each is stored once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import random
import secrets
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from ...bots import LEVELS, POLICIES, choose_action
from ...engine import (
    DuplicateDice,
    Event,
    GameRecord,
    GameState,
    IllegalAction,
    ManualDice,
    SecureDice,
    new_game,
    state_to_record,
)
from ...names import NAME_MAX, InvalidName, normalize_name
from ...rules import RulesetError, load_ruleset
from ...store import EventRow, SeatRow, Store, StoreConflict, TableRow
from ..live import Connection, RequestError, dumps
from ..settings import Settings
from . import schema
from .settings import TableSettings, choose
from .view import public_event, table_view

log = logging.getLogger("yambak.server")

TABLE_NAME_MAX = 60
STAND_IN = "hard"  # the bot that plays a turn whose clock ran out


class TableError(RequestError):
    """A refused table request (sent as JSON with its code, never a traceback)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def clean_name(name: Any, what: str = "name", limit: int = NAME_MAX) -> str:
    """A player's, table's or sheet's name as others will see it (`yambak.names`), or `input/name`."""
    try:
        return normalize_name(name, what, limit)
    except InvalidName as exc:
        raise TableError("input/name", exc.message) from None


@dataclass(eq=False)
class LiveTable:
    id: str
    name: str
    listed: bool
    seats: list[SeatRow]
    state: GameState
    version: int = 0
    seed: str | None = None
    rematch: str | None = None
    seat_version: list[int] = field(default_factory=list)
    recent: deque = field(default_factory=lambda: deque(maxlen=200))
    conns: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task | None = None
    rng: random.Random = field(default_factory=random.Random)
    settings: TableSettings = field(default_factory=TableSettings)
    last_action: float = field(default_factory=time.monotonic)  # for the lobby: idle tables leave it
    turn_started: dict[int, float] = field(default_factory=dict)  # seat -> when its turn began (turn clock)
    last_entry: float = 0.0  # when a person last filled a box (bots wait a moment: it may be taken back)

    def clocks(self, now: float | None = None) -> dict[str, float]:
        """Seconds left on the turn clock of each person to act (tables with a clock)."""
        if self.settings.clock is None or self.state.finished:
            return {}
        now = time.monotonic() if now is None else now
        return {
            str(s): max(0.0, self.settings.clock - (now - self.turn_started.get(s, now)))
            for s in self.state.to_act()
            if self.seats[s].kind == "human"
        }

    def stand_in(self, seat: int, now: float | None = None) -> bool:
        """A bot plays this person's turn: the turn clock ran out (the player is slow or gone)."""
        left = self.clocks(now).get(str(seat))
        return left is not None and left <= 0

    def seats_for(self, hashes: set[str]) -> set[int]:
        return {s.seat for s in self.seats if s.token_hash is not None and s.token_hash in hashes}

    def expected_version(self, seat: int) -> int:
        """The version a client must have seen to act for `seat` (its own last change on duplicate tables)."""
        return self.seat_version[seat] if self.state.simultaneous else self.version

    def listing(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "rules": self.state.rules.id,
            "rules_name": self.state.rules.name,
            "players": [s.name for s in self.seats if s.kind != "open"],
            "open_seats": sum(s.kind == "open" for s in self.seats),
            "duplicate": self.state.simultaneous,
            "finished": self.state.finished,
            "v": self.version,
        }


def record_of(state: GameState) -> dict[str, Any]:
    return state_to_record(state).to_dict()


def _replay_events(state: GameState, events: list[EventRow]) -> GameState:
    """Re-apply a stored event log with the dice it recorded (exact, mid-turn included)."""
    for e in events:
        state, _ = state.apply(Event.from_dict(e.data).to_action())
    return state


class TableManager:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.tables: dict[str, LiveTable] = {}
        self.reviews: OrderedDict[str, dict[str, Any]] = OrderedDict()  # finished tables' reviews
        # The loop the bots run on: set at startup, so that a route running in a worker thread
        # (a plain `def` route) can still hand its bots to it.
        self.loop: asyncio.AbstractEventLoop | None = None

    # --- lifecycle ---------------------------------------------------------------------------

    def _dice(self, duplicate: bool, seed: str | None) -> Any:
        return DuplicateDice(seed) if duplicate and seed else SecureDice()

    def _build(self, row: TableRow) -> LiveTable:
        rules = load_ruleset(row.rules)
        names = [s.name for s in row.seats]
        state = new_game(rules, names, dice=ManualDice(), simultaneous=row.duplicate)
        events = self.store.events(row.id)
        state = _replay_events(state, events)
        rolloffs = GameRecord.from_dict(row.record).rolloffs
        if state.finished and rolloffs:
            state = dataclasses.replace(state, rolloffs=rolloffs)
        state = state.with_dice(self._dice(row.duplicate, row.seed))
        table = LiveTable(
            row.id,
            row.name,
            row.listed,
            row.seats,
            state,
            row.version,
            row.seed,
            row.rematch,
            seat_version=[0] * len(names),
            settings=TableSettings.from_dict(row.settings),
        )
        table.turn_started = dict.fromkeys(state.to_act(), time.monotonic())
        table.recent = deque(maxlen=self.settings.history)
        for e in events[-self.settings.history :]:
            table.recent.append((e.version, e.data))
        for e in events:
            table.seat_version[e.seat] = e.version
        if len(events) != row.version:
            log.error("table %s: %d events stored for version %d", row.id, len(events), row.version)
        return table

    def load_unfinished(self) -> int:
        """After a restart: every unfinished table back in memory, bots resumed."""
        n = 0
        for row in self.store.tables(unfinished_only=True):
            if row.id in self.tables:
                continue
            try:
                self.tables[row.id] = self._build(row)
            except Exception:  # a broken row must not keep every other table from resuming
                log.exception("table %s cannot be resumed", row.id)
                continue
            n += 1
        return n

    def start_bots(self) -> None:
        for table in self.tables.values():
            self.schedule_bots(table)

    # --- memory: a cap on live tables, finished ones dropped (they stay in the store) ----------------

    def _idle_finished(self, table: LiveTable) -> bool:
        return table.state.finished and not table.conns and (table.bot_task is None or table.bot_task.done())

    def release(self, table: LiveTable) -> bool:
        """Drop a finished table nobody watches from memory; opening it again reloads it from the store."""
        if self._idle_finished(table) and self.tables.get(table.id) is table:
            del self.tables[table.id]
            return True
        return False

    def evict_finished(self) -> int:
        return sum(self.release(t) for t in list(self.tables.values()))

    def _make_room(self, finished: bool = False) -> None:
        """Before a table enters memory: refused with `server/full` at the cap (a finished table
        being opened is let in: it is dropped again at the next sweep)."""
        if len(self.tables) < self.settings.max_tables:
            return
        self.evict_finished()
        if len(self.tables) >= self.settings.max_tables and not finished:
            log.warning("table cap reached (%d live tables)", len(self.tables))
            raise TableError("server/full", "the server is full: try again later", 503)

    def get(self, table_id: str) -> LiveTable:
        table = self.tables.get(table_id)
        if table is None and isinstance(table_id, str) and 0 < len(table_id) <= 32:
            row = self.store.get_table(table_id)
            if row is not None:
                self._make_room(finished=row.finished)
                try:
                    table = self.tables.setdefault(row.id, self._build(row))
                except Exception:
                    log.exception("table %s cannot be loaded", row.id)
                    raise TableError("table/broken", "this table's stored game cannot be loaded", 500) from None
        if table is None:
            raise TableError("table/unknown", "there is no such table", 404)
        return table

    def listed(self) -> list[dict[str, Any]]:
        """The lobby's list: listed tables in play, without those idle (no action, nobody there) too long."""
        now = time.monotonic()
        out = [
            t.listing()
            for t in self.tables.values()
            if t.listed and not t.state.finished and (t.conns or now - t.last_action < self.settings.idle_after)
        ]
        return out[-100:][::-1]

    # --- creating and joining --------------------------------------------------------------------

    def create(
        self,
        name: Any,
        preset: Any,
        options: Any,
        seats: Any,
        listed: bool = True,
        duplicate: bool = False,
        asked: dict[str, Any] | None = None,
        custom: dict[str, Any] | None = None,
    ) -> tuple[LiveTable, dict[int, str]]:
        """A new table. Seats are {"kind": "human"|"open"|"bot", "name"}; humans get tokens (this device).
        `asked`: the creator's table settings (hints, clock, undo; see `settings.py`); `custom`: a
        ruleset of the players' own (house rules), instead of a preset."""
        name = clean_name(name, "table name", TABLE_NAME_MAX)
        self._make_room()
        if not isinstance(options, dict) or len(options) > 20:
            raise TableError("input/invalid", "options must be an object")
        if custom is None and (not isinstance(preset, str) or len(preset) > 40):
            raise TableError("input/invalid", "preset must be a preset id")
        try:
            rules = load_ruleset(custom) if custom is not None else load_ruleset(preset, options or None)
        except RulesetError as exc:
            raise TableError("input/rules", str(exc)) from None
        except (TypeError, ValueError, KeyError) as exc:  # a custom ruleset of the wrong shape
            raise TableError("input/rules", f"not a ruleset: {str(exc)[:200]}") from None
        if not isinstance(seats, list) or not 1 <= len(seats) <= self.settings.max_seats:
            raise TableError("input/seats", f"a table has 1 to {self.settings.max_seats} seats")
        tokens: dict[int, str] = {}
        rows: list[SeatRow] = []
        for i, s in enumerate(seats):
            if isinstance(s, SeatRow):
                rows.append(SeatRow(i, s.kind, s.name, s.token_hash, s.bot))
                continue
            if not isinstance(s, dict):
                raise TableError("input/seats", "each seat is an object")
            kind = s.get("kind", "human")
            if kind == "human":
                token = new_token()
                tokens[i] = token
                rows.append(SeatRow(i, "human", clean_name(s.get("name"), f"seat {i + 1} name"), hash_token(token)))
            elif kind == "bot":
                bot = s.get("bot", "medium")
                if bot not in LEVELS and bot not in POLICIES:
                    raise TableError("input/seats", f"a bot is one of {', '.join([*LEVELS, *POLICIES])}")
                label = s.get("name") or f"Bot {i + 1}"
                rows.append(SeatRow(i, "bot", clean_name(label, f"seat {i + 1} name"), None, bot))
            elif kind == "open":
                rows.append(SeatRow(i, "open", f"Seat {i + 1}"))
            else:
                raise TableError("input/seats", f"unknown seat kind {str(kind)[:20]!r}")
        house = choose([r.kind for r in rows], bool(listed), bool(duplicate), asked or {})
        seed = secrets.token_hex(16) if duplicate else None
        state = new_game(rules, [r.name for r in rows], dice=self._dice(duplicate, seed), simultaneous=bool(duplicate))
        table_id = secrets.token_urlsafe(12)
        table = LiveTable(table_id, name, bool(listed), rows, state, 0, seed, seat_version=[0] * len(rows))
        table.settings = house
        table.turn_started = dict.fromkeys(state.to_act(), time.monotonic())
        table.recent = deque(maxlen=self.settings.history)
        self.store.create_table(
            TableRow(
                table_id,
                name,
                rules.spec,
                bool(listed),
                bool(duplicate),
                seed,
                record_of(state),
                seats=rows,
                settings=house.to_dict(),
            )
        )
        self.tables[table_id] = table
        return table, tokens

    async def join(self, table: LiveTable, name: Any, seat: Any = None) -> tuple[int, str]:
        name = clean_name(name)
        async with table.lock:
            open_seats = [s.seat for s in table.seats if s.kind == "open"]
            if seat is None:
                if not open_seats:
                    raise TableError("seat/none-open", "every seat at this table is taken", 409)
                seat = open_seats[0]
            if not isinstance(seat, int) or isinstance(seat, bool) or seat not in open_seats:
                raise TableError("seat/taken", "that seat is not open", 409)
            token = new_token()
            players = list(table.state.players)
            players[seat] = name
            state = dataclasses.replace(table.state, players=tuple(players))
            try:
                self.store.claim_seat(table.id, seat, name, hash_token(token), record_of(state))
            except StoreConflict:
                raise TableError("seat/taken", "that seat is not open", 409) from None
            table.seats[seat] = SeatRow(seat, "human", name, hash_token(token))
            table.state = state
            self._broadcast_state(table)
        return seat, token

    async def rematch(self, table: LiveTable) -> LiveTable:
        async with table.lock:
            if not table.state.finished:
                raise TableError("table/not-finished", "a rematch starts when the game is over", 409)
            if table.rematch:
                return self.get(table.rematch)
            spec: Any = table.state.rules.spec  # a preset id, {"preset", "options", ...}, or a whole ruleset
            custom = spec if isinstance(spec, dict) and "preset" not in spec else None
            preset = spec if isinstance(spec, str) else spec.get("preset")
            options = {} if isinstance(spec, str) or custom else dict(spec.get("options", {}))
            asked = {**table.settings.to_dict(), "clock": table.settings.clock or 0}
            new, _ = self.create(
                table.name, preset, options, list(table.seats), table.listed, table.state.simultaneous, asked, custom
            )
            table.rematch = new.id
            self.store.set_rematch(table.id, new.id)
            for conn in list(table.conns):
                conn.send({"type": "rematch", "table": new.id})
            self._broadcast_state(table)
        self.schedule_bots(new)
        return new

    # --- acting --------------------------------------------------------------------------------

    async def act(self, table: LiveTable, conn_seats: set[int], msg: schema.ActionMsg) -> None:
        """Validate and apply one action; raises TableError or IllegalAction and changes nothing then."""
        async with table.lock:
            if msg.seat not in conn_seats:
                raise TableError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
            if msg.seat >= len(table.seats):
                raise TableError("auth/not-your-seat", f"there is no seat {msg.seat}")
            if isinstance(msg, schema.UndoMsg) and not table.settings.undo:
                raise TableError("table/no-undo", "this table does not allow taking back an entry")
            new_state, event = table.state.apply(schema.to_action(msg))  # game over, turn, legality
            expected = table.expected_version(msg.seat)
            if not expected <= msg.v <= table.version:
                stale = f"you acted on version {msg.v}; the table is at {expected}: resync"
                raise TableError("stale/version", stale, v=table.version)
            try:
                self._commit(table, new_state, event.to_dict())
            except StoreConflict as exc:
                log.error("store conflict at %s: %s", table.id, exc)
                raise TableError("server/store", "the action could not be stored: resync", 503) from None
            if event.type == "scored":
                table.last_entry = time.monotonic()
        self.schedule_bots(table)

    async def review(self, table: LiveTable) -> dict[str, Any]:
        """The coach's review of a finished game (computed once, then kept)."""
        from ...coach import review

        if not table.state.finished:
            raise TableError("table/not-finished", "the review is ready when the game is over", 409)
        cached = self.reviews.get(table.id)
        if cached is None:
            result = await asyncio.to_thread(review, record_of(table.state))
            cached = result.to_dict(len(table.state.players))
            self.reviews[table.id] = cached
            while len(self.reviews) > 200:
                self.reviews.popitem(last=False)
        return cached

    async def advise(self, table: LiveTable, conn_seats: set[int], msg: schema.AdviseMsg) -> dict[str, Any]:
        """The coach's advice for the seat's position (tables that allow hints), as the `advice` message."""
        from ...coach import CoachError, advise

        if msg.seat not in conn_seats:
            raise TableError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
        if not table.settings.hints:
            raise TableError("table/no-hints", "hints are off at this table")
        state, version = table.state, table.version
        if msg.v != version or msg.seat not in state.to_act() or not state.turns[msg.seat].rolls:
            raise TableError("advice/unavailable", "no advice for this position: roll first, or resync")
        try:
            advice = await asyncio.to_thread(advise, state, msg.seat)
        except CoachError as exc:
            raise TableError("advice/unavailable", str(exc)) from None
        return {"type": "advice", "v": version, "seat": msg.seat, "advice": advice.to_dict()}

    def _commit(self, table: LiveTable, state: GameState, event: dict[str, Any]) -> None:
        version = table.version + 1
        self.store.append(table.id, version, event["player"], event["type"], event, record_of(state), state.finished)
        now = time.monotonic()
        before = set(table.state.to_act())
        table.state = state
        table.version = version
        table.last_action = now
        for seat in state.to_act():  # a turn begins: its clock starts
            if seat not in before or (event["type"] == "scored" and seat == event["player"]):
                table.turn_started[seat] = now
        table.seat_version[event["player"]] = version
        table.recent.append((version, event))
        try:
            self._broadcast_event(table, version, event)
        except Exception:  # stored and applied: clients that miss it will resync
            log.exception("broadcast failed at %s", table.id)
        if state.finished and not table.conns and self.tables.get(table.id) is table:
            del self.tables[table.id]  # a game over that nobody watches: back to the store only

    def _views(self, table: LiveTable) -> Any:
        cache: dict[Any, dict[str, Any]] = {}

        def view_for(seats: frozenset[int]) -> dict[str, Any]:
            key = seats if table.state.simultaneous else None
            if key not in cache:
                cache[key] = table_view(table, seats)
            return cache[key]

        return view_for

    def _broadcast_event(self, table: LiveTable, version: int, event: dict[str, Any]) -> None:
        view_for = self._views(table)
        encoded: dict[Any, str] = {}  # one JSON text per distinct view, sent to every socket that shares it
        for conn in list(table.conns):
            if conn.joined:
                seats = frozenset(conn.seats)
                key = seats if table.state.simultaneous else None
                if key not in encoded:
                    encoded[key] = dumps(
                        schema.event(version, public_event(event, table.state, seats), view_for(seats))
                    )
                conn.send(encoded[key])

    def _broadcast_state(self, table: LiveTable) -> None:
        view_for = self._views(table)
        for conn in list(table.conns):
            if conn.joined:
                conn.send(schema.state(table.version, view_for(frozenset(conn.seats))))

    def resync(self, table: LiveTable, conn: Connection, since: int | None) -> dict[str, Any]:
        """What a (re)joining client needs: the events it missed, or the full state."""
        seats = frozenset(conn.seats)
        view = table_view(table, seats)
        if since is not None and since <= table.version:
            oldest = table.recent[0][0] if table.recent else table.version + 1
            if since == table.version or since + 1 >= oldest:
                missed = [{"v": v, "event": public_event(e, table.state, seats)} for v, e in table.recent if v > since]
                return schema.events(table.version, missed, view)
        return schema.state(table.version, view)

    # --- bots ----------------------------------------------------------------------------------

    def _bot_seats(self, table: LiveTable) -> list[int]:
        """Seats a bot plays now: the bots', and people's whose turn clock ran out."""
        now = time.monotonic()
        return [s for s in table.state.to_act() if table.seats[s].kind == "bot" or table.stand_in(s, now)]

    def _policy(self, table: LiveTable, seat: int) -> str:
        return table.seats[seat].bot or "greedy" if table.seats[seat].kind == "bot" else STAND_IN

    def tick(self) -> None:
        """Once a second: hand the turns whose clock ran out to a bot."""
        for table in list(self.tables.values()):
            if table.settings.clock is not None and not table.state.finished and self._bot_seats(table):
                self._schedule_now(table)

    def schedule_bots(self, table: LiveTable) -> None:
        """Start the table's bots if one is to act. Safe from the event loop and from worker threads."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is None or (self.loop is not None and running is not self.loop):
            loop = self.loop
            if loop is None or loop.is_closed():
                log.error("table %s: no event loop to run its bots on (the server is not started)", table.id)
                return
            loop.call_soon_threadsafe(self._schedule_now, table)
            return
        self._schedule_now(table)

    def _schedule_now(self, table: LiveTable) -> None:
        if not self._bot_seats(table) or (table.bot_task and not table.bot_task.done()):
            return
        table.bot_task = asyncio.get_running_loop().create_task(self._run_bots(table))
        table.bot_task.add_done_callback(lambda task: self._bots_done(table, task))

    def _bots_done(self, table: LiveTable, task: asyncio.Task) -> None:
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            log.error("bots at table %s stopped", table.id, exc_info=exc)

    async def _run_bots(self, table: LiveTable) -> None:
        i = 0
        while True:
            await asyncio.sleep(self.settings.bot_delay)
            if table.settings.undo:  # a person's last entry may still be taken back: give them a moment
                wait = table.last_entry + self.settings.undo_grace - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
            async with table.lock:
                seats = self._bot_seats(table)
                if not seats:
                    return
                seat = seats[i % len(seats)]
                i += 1
                try:
                    # Think off the event loop: a hard bot's first move on a table may load a strategy table.
                    action = await asyncio.to_thread(
                        choose_action, table.state, seat, self._policy(table, seat), table.rng
                    )
                    new_state, event = table.state.apply(action)
                    self._commit(table, new_state, event.to_dict())
                except (IllegalAction, StoreConflict, ValueError) as exc:  # never expected: log and stop
                    log.error("bot at table %s seat %d: %s", table.id, seat, exc)
                    return
