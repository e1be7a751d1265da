"""Live tables: the one place where client actions meet the engine and the store.

One-way flow for every action: validated message -> engine action -> event ->
store (the event appended to the table's log, committed by the store's writer
thread, off the event loop) -> broadcast. A table's lock serialises its actions,
so versions are gapless and each is stored once; other tables go on while one
waits for its commit. The game record is a snapshot written beside the log every
`snapshot_every` events and at the end; a table rebuilds from its snapshot and
the events after it.

With several processes (`cluster.py`), one process owns a table's live state at a
time; the others hold a mirror that follows its events through Redis, serve their
own clients' views and resyncs from it, and forward actions, joins and rematches
to the owner. Without Redis every table is owned here, as in a single process.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...bots import LEVELS, POLICIES, choose_action
from ...engine import (
    DuplicateDice,
    Event,
    FairDice,
    GameState,
    IllegalAction,
    ManualDice,
    Nonce,
    SecureDice,
    new_game,
    replay,
    state_to_record,
)
from ...rules import RulesetError, load_ruleset
from ...store import EventRow, SeatRow, Store, StoreConflict, TableRow
from .. import metrics
from ..common.clock import naive_utc
from ..common.dice import DealDice, seal
from ..common.dice import secret as deal_secret
from ..common.events import Events, GameEnding, NamesRemoved, Write
from ..common.names import TABLE_NAME_MAX, clean_name
from ..common.tokens import hash_token, new_token
from ..live import Connection, RequestError, dumps
from ..settings import Settings
from . import schema
from .settings import TableSettings, choose
from .view import public_event, table_view

if TYPE_CHECKING:
    from ..cluster import Cluster

log = logging.getLogger("yambak.server")

KIND = "table"
STAND_IN = "hard"  # the bot that plays a turn whose clock ran out


class TableError(RequestError):
    """A refused table request (sent as JSON with its code, never a traceback)."""


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
    owned: bool = True  # this process holds the live state (always, without a cluster)
    inbox: deque = field(default_factory=deque)  # a mirror's events from the owner, in order
    drain: asyncio.Task | None = None
    touched: float = field(default_factory=time.monotonic)
    fairness: FairDice | None = None  # the table's dice commitment (None for tables older than fair dice)
    # A mirror's events already sent to its clients as the owner's text, applied to `state` when it is read
    backlog: list[dict[str, Any]] = field(default_factory=list)
    guard: threading.Lock = field(default_factory=threading.Lock)
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
        if self.state.simultaneous:
            return self.seat_version[seat]
        # another player's nonce changes the dice to come, not the position: a roll on the view before it stands
        v = self.version
        for version, event in reversed(self.recent):
            if version != v or event.get("type") != "nonce":
                break
            v -= 1
        return v

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
    """Re-apply stored events with the dice they recorded (exact, mid-turn included)."""
    for e in events:
        if e.type != "nonce":  # fair dice: a player's nonce changes the dice source, not the game
            state, _ = state.apply(Event.from_dict(e.data).to_action())
    return state


def _fair_dice(fairness: dict[str, Any] | None, duplicate: bool) -> FairDice | None:
    if not fairness or not fairness.get("seed"):
        return None
    nonces = tuple(Nonce(n["seat"], n["nonce"]) for n in fairness.get("nonces", []))
    return FairDice(fairness["seed"], nonces, duplicate)


def _rolloffs_json(state: GameState) -> list[Any]:
    return [[target, [[[seat, list(dice)] for seat, dice in r] for r in rounds]] for target, rounds in state.rolloffs]


def _rolloffs_of(data: list[Any]) -> Any:
    return tuple(
        (str(target), tuple(tuple((int(seat), tuple(dice)) for seat, dice in r) for r in rounds))
        for target, rounds in data
    )


Loaded = tuple[TableRow, list[EventRow], list[EventRow], dict[int, int]]


class TableManager:
    def __init__(
        self, store: Store, settings: Settings, cluster: Cluster | None = None, events: Events | None = None
    ) -> None:
        self.store = store
        self.settings = settings
        self.cluster = cluster
        self.events = events or Events()
        self.events.on_async(NamesRemoved, lambda removed: self.reload_names(list(removed.tables)))
        self.tables: dict[str, LiveTable] = {}
        self.reviews: OrderedDict[str, dict[str, Any]] = OrderedDict()  # finished tables' reviews
        # The loop the bots run on: set at startup, so that a route running in a worker thread
        # (a plain `def` route) can still hand its bots to it.
        self.loop: asyncio.AbstractEventLoop | None = None
        self._listing: tuple[float, list[dict[str, Any]]] = (0.0, [])

    # --- lifecycle ---------------------------------------------------------------------------

    def _dice(self, duplicate: bool, seed: str | None) -> Any:
        return DuplicateDice(seed) if duplicate and seed else SecureDice()

    def _load(self, table_id: str) -> Loaded | None:
        """Everything a table rebuilds from (store reads: call it off the event loop where it matters)."""
        loaded = self.store.load_table(table_id, self.settings.history)
        if loaded is None:
            return None
        row, after, recent = loaded
        return row, after, recent, self.store.seat_versions(table_id)

    def _fill(self, table: LiveTable, loaded: Loaded, owned: bool) -> LiveTable:
        """Set a table (new, or one clients are connected to) to its stored state: the snapshot, then the
        events after it. An owner's state rolls the table's dice; a mirror's only takes the owner's."""
        row, after, recent, seat_versions = loaded
        record = dict(row.record)
        record["players"] = [s.name for s in row.seats]  # names live in the seat rows
        state = replay(record, simultaneous=row.duplicate)
        state = _replay_events(state, after)
        table.fairness = seal(_fair_dice(row.fairness, row.duplicate), row.fairness, self.settings.clock)
        if owned:
            state = state.with_dice(table.fairness or self._dice(row.duplicate, row.seed))
        table.name, table.listed, table.seats, table.state = row.name, row.listed, row.seats, state
        table.seed, table.rematch, table.owned = row.seed, row.rematch, owned
        table.settings = TableSettings.from_dict(row.settings)
        now = time.monotonic()
        table.turn_started = {s: table.turn_started.get(s, now) for s in state.to_act()}
        table.version = after[-1].version if after else row.version
        table.seat_version = [seat_versions.get(i, 0) for i in range(len(row.seats))]
        table.recent = deque(((e.version, e.data) for e in recent), maxlen=self.settings.history)
        return table

    def _build(self, loaded: Loaded, owned: bool) -> LiveTable:
        row = loaded[0]
        table = LiveTable(row.id, row.name, row.listed, row.seats, None, 0)  # type: ignore[arg-type]
        return self._fill(table, loaded, owned)

    def load_unfinished(self) -> int:
        """After a restart of a single process: every unfinished table back in memory, bots resumed.
        (In a cluster, tables come back on demand, and the bots' tables through `adopt_orphans`.)"""
        if self.cluster is not None:
            return 0
        n = 0
        for row in self.store.tables(unfinished_only=True):
            if row.id in self.tables:
                continue
            try:
                loaded = self._load(row.id)
                if loaded is None:
                    continue
                self.tables[row.id] = self._build(loaded, owned=True)
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

    def _forget(self, table: LiveTable) -> None:
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            if self.cluster is not None:  # a finished game's lease just expires: no watcher takes it over meanwhile
                self.cluster.unfollow(KIND, table.id)
                self.cluster.disown(KIND, table.id)

    def release(self, table: LiveTable) -> bool:
        """Drop a finished table nobody watches from memory; opening it again reloads it from the store."""
        if self._idle_finished(table) and self.tables.get(table.id) is table:
            self._forget(table)
            return True
        return False

    def evict_finished(self) -> int:
        return sum(self.release(t) for t in list(self.tables.values()))

    def evict_idle_mirrors(self, idle: float = 30.0) -> int:
        """A mirror nobody here watches any more goes (its owner keeps the table)."""
        now, n = time.monotonic(), 0
        for table in list(self.tables.values()):
            if not table.owned and not table.conns and now - table.touched > idle and not table.lock.locked():
                self._forget(table)
                n += 1
        return n

    def _make_room(self, finished: bool = False) -> None:
        """Before a table enters memory: refused with `server/full` at the cap (a finished table
        being opened is let in: it is dropped again at the next sweep)."""
        if len(self.tables) < self.settings.max_tables:
            return
        self.evict_finished()
        if self.cluster is not None:
            self.evict_idle_mirrors(idle=0.0)
        if len(self.tables) >= self.settings.max_tables and not finished:
            log.warning("table cap reached (%d live tables)", len(self.tables))
            raise TableError("server/full", "the server is full: try again later", 503)

    def _enter(self, loaded: Loaded | None, table_id: str) -> LiveTable:
        """A table loaded from the store comes into memory (as a mirror when a cluster runs)."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if loaded is None:
            raise TableError("table/unknown", "there is no such table", 404)
        self._make_room(finished=loaded[0].finished)
        try:
            table = self._build(loaded, owned=self.cluster is None)
        except Exception:
            log.exception("table %s cannot be loaded", table_id)
            raise TableError("table/broken", "this table's stored game cannot be loaded", 500) from None
        return self.tables.setdefault(table_id, table)

    @staticmethod
    def _plausible(table_id: Any) -> bool:
        return isinstance(table_id, str) and 0 < len(table_id) <= 32

    def get(self, table_id: str) -> LiveTable:
        """A table, loaded from the store if it is not in memory (blocking: for plain `def` routes)."""
        table = self.tables.get(table_id)
        if table is None:
            if not self._plausible(table_id):
                raise TableError("table/unknown", "there is no such table", 404)
            if self.cluster is not None:
                self.cluster.follow_soon(KIND, table_id)
            table = self._enter(self._load(table_id), table_id)
        table.touched = time.monotonic()
        self._catch_up(table)
        return table

    async def aget(self, table_id: str) -> LiveTable:
        """A table, loaded from the store off the event loop if it is not in memory."""
        table = self.tables.get(table_id)
        if table is None:
            if not self._plausible(table_id):
                raise TableError("table/unknown", "there is no such table", 404)
            if self.cluster is not None:  # follow first: an event published meanwhile is not missed
                await self.cluster.follow(KIND, table_id)
            table = self._enter(await self.store.read(self._load, table_id), table_id)
        table.touched = time.monotonic()
        self._catch_up(table)
        return table

    def listed(self) -> list[dict[str, Any]]:
        """The lobby's list: listed tables in play, without those idle (no action, nobody there) too long."""
        if self.cluster is None:
            now = time.monotonic()
            out = [
                t.listing()
                for t in self.tables.values()
                if t.listed and not t.state.finished and (t.conns or now - t.last_action < self.settings.idle_after)
            ]
            return out[-100:][::-1]
        # several processes: the lobby is the store's (refreshed at most every two seconds); a table is
        # idle when its last stored action is old, unless it is live here with somebody connected (who is
        # connected to the other processes is theirs to know: such a table may leave the list early)
        stamp, cached = self._listing
        if time.monotonic() - stamp > 2.0:
            rows = self.store.tables(unfinished_only=True, limit=100, listed_only=True)
            idle = self.store.idle_seconds([r.id for r in rows])
            cached = [
                self._row_listing(r)
                for r in rows
                if idle.get(r.id, 0.0) < self.settings.idle_after or (r.id in self.tables and self.tables[r.id].conns)
            ]
            self._listing = (time.monotonic(), cached)
        return cached

    def _row_listing(self, row: TableRow) -> dict[str, Any]:
        live = self.tables.get(row.id)
        if live is not None:
            return live.listing()
        rules = load_ruleset(row.rules)
        return {
            "id": row.id,
            "name": row.name,
            "rules": rules.id,
            "rules_name": rules.name,
            "players": [s.name for s in row.seats],
            "open_seats": sum(s.kind == "open" for s in row.seats),
            "duplicate": row.duplicate,
            "finished": row.finished,
            "v": row.version,
        }

    # --- creating and joining --------------------------------------------------------------------

    def _new(
        self,
        name: Any,
        preset: Any,
        options: Any,
        seats: Any,
        listed: bool,
        duplicate: bool,
        asked: dict[str, Any] | None = None,
        custom: dict[str, Any] | None = None,
        profile: str | None = None,
        deal: Any = None,
    ) -> tuple[LiveTable, dict[int, str], TableRow]:
        """`profile`: the creator's profile, given to the first person's seat (the others are guests);
        `deal`: a deal of duplicate dice to play (a `DealRow`: its seed, sealed until it closes)."""
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
            if isinstance(s, SeatRow):  # a rematch: the same people, the same profiles
                rows.append(SeatRow(i, s.kind, s.name, s.token_hash, s.bot, s.profile_id))
                continue
            if not isinstance(s, dict):
                raise TableError("input/seats", "each seat is an object")
            kind = s.get("kind", "human")
            if kind == "human":
                token = new_token()
                owner = profile if profile is not None and not tokens else None
                tokens[i] = token
                rows.append(
                    SeatRow(i, "human", clean_name(s.get("name"), f"seat {i + 1} name"), hash_token(token), None, owner)
                )
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
        # Fair dice (engine/fairness.py): a CSPRNG seed, committed to now, revealed when the game ends.
        fair = FairDice(secrets.token_hex(32), (), bool(duplicate))
        if deal is not None:
            fair = DealDice(deal.seed, (), True, deal.id, deal.closes_at, self.settings.clock)
            house, duplicate = dataclasses.replace(house, hints=False, undo=False, clock=None, deal=deal.id), True
        state = new_game(rules, [r.name for r in rows], dice=fair, simultaneous=bool(duplicate))
        table_id = secrets.token_urlsafe(12)
        table = LiveTable(table_id, name, bool(listed), rows, state, 0, None, seat_version=[0] * len(rows))
        table.settings = house
        table.turn_started = dict.fromkeys(state.to_act(), time.monotonic())
        table.recent = deque(maxlen=self.settings.history)
        table.fairness = fair
        secret = {**fair.block(revealed=False), "seed": fair.seed}  # stored; sent to no one before the end
        if isinstance(fair, DealDice):
            secret = deal_secret(fair)
        row = TableRow(
            table_id,
            name,
            rules.spec,
            bool(listed),
            bool(duplicate),
            None,
            self.record(table),
            seats=rows,
            settings=house.to_dict(),
            fairness=secret,
        )
        return table, tokens, row

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
        profile: str | None = None,
    ) -> tuple[LiveTable, dict[int, str]]:
        """A new table. Seats are {"kind": "human"|"open"|"bot", "name"}; humans get tokens (this device).
        `asked`: the creator's table settings (hints, clock, undo; see `settings.py`); `custom`: a
        ruleset of the players' own (house rules), instead of a preset; `profile`: the creator's.
        Blocks on the store: `acreate` is the same without blocking the event loop."""
        table, tokens, row = self._new(name, preset, options, seats, listed, duplicate, asked, custom, profile)
        if self.cluster is not None:  # first: without Redis, a 503 and nothing stored
            self.cluster.claim_new_sync(KIND, table.id)
        try:
            self.store.create_table(row)
        except Exception:
            if self.cluster is not None:
                self.cluster.unclaim(KIND, table.id)
            raise
        self.tables[table.id] = table
        return table, tokens

    async def acreate(
        self,
        name: Any,
        preset: Any,
        options: Any,
        seats: Any,
        listed: bool = True,
        duplicate: bool = False,
        asked: dict[str, Any] | None = None,
        custom: dict[str, Any] | None = None,
        profile: str | None = None,
        deal: Any = None,
    ) -> tuple[LiveTable, dict[int, str]]:
        table, tokens, row = self._new(name, preset, options, seats, listed, duplicate, asked, custom, profile, deal)
        if self.cluster is not None:  # first: without Redis, a 503 and nothing stored
            await self.cluster.claim_new(KIND, table.id)
        try:
            await self.store.write(Store.create_table_op(row))
        except Exception:
            if self.cluster is not None:
                self.cluster.unclaim(KIND, table.id)
            raise
        self.tables[table.id] = table
        return table, tokens

    async def join(self, table: LiveTable, name: Any, seat: Any = None, profile: str | None = None) -> tuple[int, str]:
        name = clean_name(name)
        if not table.owned:
            result = await self._forward(table, "join", {"name": name, "seat": seat, "profile": profile})
            await self.refresh(table)  # the new token works here at once
            return result["seat"], result["token"]
        return await self._join_local(table, name, seat, profile)

    async def _join_local(self, table: LiveTable, name: str, seat: Any, profile: str | None = None) -> tuple[int, str]:
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
                await self.store.write(Store.claim_seat_op(table.id, seat, name, hash_token(token), profile))
            except StoreConflict:
                raise TableError("seat/taken", "that seat is not open", 409) from None
            table.seats[seat] = SeatRow(seat, "human", name, hash_token(token), None, profile)
            table.state = state
            self._broadcast_state(table)
            self._publish(table, {"kind": "reload"})
        return seat, token

    async def rematch(self, table: LiveTable) -> LiveTable:
        if not table.owned:
            result = await self._forward(table, "rematch", {})
            await self.refresh(table)
            return await self.aget(result["id"])
        async with table.lock:
            if not table.state.finished:
                raise TableError("table/not-finished", "a rematch starts when the game is over", 409)
            if table.rematch:
                return await self.aget(table.rematch)
            spec: Any = table.state.rules.spec  # a preset id, {"preset", "options", ...}, or a whole ruleset
            custom = spec if isinstance(spec, dict) and "preset" not in spec else None
            preset = spec if isinstance(spec, str) else spec.get("preset")
            options = {} if isinstance(spec, str) or custom else dict(spec.get("options", {}))
            asked = {**table.settings.to_dict(), "clock": table.settings.clock or 0}
            new, _ = await self.acreate(
                table.name, preset, options, list(table.seats), table.listed, table.state.simultaneous, asked, custom
            )
            table.rematch = new.id
            await self.store.write(Store.set_rematch_op(table.id, new.id))
            for conn in list(table.conns):
                conn.send({"type": "rematch", "table": new.id})
            self._broadcast_state(table)
            self._publish(table, {"kind": "rematch", "table": new.id})
        self.schedule_bots(new)
        return new

    async def rematch_for(self, table_id: str, tokens: list[str]) -> LiveTable:
        """The rematch of a finished table, started by one of its players (the same table for everyone who asks)."""
        table = await self.aget(table_id)
        if not table.seats_for({hash_token(t) for t in tokens}):
            raise TableError("auth/not-seated", "only players at this table can start a rematch", 403)
        return await self.rematch(table)

    def downloadable_record(self, table_id: str) -> dict[str, Any]:
        """A table's game record to download (a duplicate table's only when the game is over)."""
        table = self.get(table_id)
        if table.state.simultaneous and not table.state.finished:  # it would reveal dice still to come
            raise TableError("record/after-game", "a duplicate table's record is available when the game is over", 409)
        return self.record(table)

    def store_finished(
        self, name: str, state: GameState, seats: list[SeatRow], fair: FairDice, deal: str | None = None
    ) -> str:
        """A game played to its end off any table (a bot's par of a deal), stored as a finished table
        whose record and review are a table's; returns its id (blocking)."""
        table_id = secrets.token_urlsafe(12)
        secret = {**fair.block(revealed=False), "seed": fair.seed}
        fairness = deal_secret(fair) if isinstance(fair, DealDice) else secret
        record = {**record_of(state), "fairness": fair.block(revealed=False)}
        row = TableRow(
            table_id,
            clean_name(name, "table name", TABLE_NAME_MAX),
            state.rules.spec,
            False,
            state.simultaneous,
            None,
            record,
            finished=True,
            seats=seats,
            settings=TableSettings(hints=False, deal=deal).to_dict(),
            fairness=fairness,
        )
        self.store.create_table(row)
        return table_id

    # --- acting --------------------------------------------------------------------------------

    async def act(self, table: LiveTable, conn_seats: set[int], msg: schema.ActionMsg | schema.NonceMsg) -> None:
        """Validate and apply one action; raises TableError or IllegalAction and changes nothing then."""
        if msg.seat not in conn_seats:  # checked here too: a forwarded action names only seats held here
            raise TableError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
        if table.owned:
            try:
                await self._act_local(table, conn_seats, msg)
                return
            except _Moved:  # the lease went elsewhere meanwhile
                pass
        await self._forward(table, "act", {"seats": sorted(conn_seats), "msg": msg.model_dump()})

    async def _act_local(self, table: LiveTable, conn_seats: set[int], msg: schema.ActionMsg | schema.NonceMsg) -> None:
        start = time.perf_counter()
        async with table.lock:
            if not table.owned:
                raise _Moved()
            if msg.seat not in conn_seats:
                raise TableError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
            if msg.seat >= len(table.seats):
                raise TableError("auth/not-your-seat", f"there is no seat {msg.seat}")
            if isinstance(msg, schema.NonceMsg):
                await self._nonce(table, msg)
                return
            if isinstance(msg, schema.UndoMsg) and not table.settings.undo:
                raise TableError("table/no-undo", "this table does not allow taking back an entry")
            new_state, event = table.state.apply(schema.to_action(msg))  # game over, turn, legality
            expected = table.expected_version(msg.seat)
            if not expected <= msg.v <= table.version:
                stale = f"you acted on version {msg.v}; the table is at {expected}: resync"
                raise TableError("stale/version", stale, v=table.version)
            await self._commit(table, new_state, event.to_dict())
            if event.type == "scored":
                table.last_entry = time.monotonic()
        metrics.LATENCY.observe(time.perf_counter() - start)
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

        self._catch_up(table)
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
        mark = self._assisted(table, msg.seat)
        if mark is not None:
            await self.store.write(mark)
        return {"type": "advice", "v": version, "seat": msg.seat, "advice": advice.to_dict()}

    def record(self, table: LiveTable, state: GameState | None = None) -> dict[str, Any]:
        """The table's game record, with its dice commitment (the seed revealed once the game is over)."""
        state = state or table.state
        out = record_of(state)
        if table.fairness is not None:
            out["fairness"] = table.fairness.block(revealed=state.finished)
        return out

    def _snapshot(self, table: LiveTable, state: GameState, version: int) -> dict[str, Any] | None:
        """The record to store beside event `version`: every `snapshot_every` events, and at the end."""
        if state.finished or version % max(1, self.settings.snapshot_every) == 0:
            return self.record(table, state)
        return None

    async def _nonce(self, table: LiveTable, msg: schema.NonceMsg) -> None:
        """A player's nonce for the fair dice: once per seat, before the game's first roll, logged as an event."""
        fair = table.fairness
        if fair is None or isinstance(fair, DealDice):
            raise TableError("fair/none", "this table's dice take no nonces")
        if table.state.serial > 0:
            raise TableError("fair/too-late", "nonces are mixed in before the first roll of the game")
        if any(n.seat == msg.seat for n in fair.nonces):
            raise TableError("fair/already", f"seat {msg.seat} has given its nonce")
        expected = table.expected_version(msg.seat)
        if not expected <= msg.v <= table.version:
            raise TableError("stale/version", f"you acted on version {msg.v}: resync", v=table.version)
        fair = fair.with_nonce(Nonce(msg.seat, msg.nonce.lower()))
        event = {"type": "nonce", "player": msg.seat, "nonce": msg.nonce.lower(), "roll": 0, "game_over": False}
        secret = {**fair.block(revealed=False), "seed": fair.seed}
        table.fairness, before = fair, table.fairness
        try:
            await self._commit(table, table.state.with_dice(fair), event, Store.fairness_op(table.id, secret))
        except BaseException:
            table.fairness = before
            raise

    async def _commit(self, table: LiveTable, state: GameState, event: dict[str, Any], also: Any = None) -> None:
        """Store the event (the caller holds the table's lock), then apply and broadcast it. The event that
        ends the game stores its players' results in the same transaction (once: the version is the fence)."""
        version = table.version + 1
        snapshot = self._snapshot(table, state, version)
        log_op = Store.append_op(table.id, version, event["player"], event["type"], event, snapshot, state.finished)
        ending: list[Write] = []
        if state.finished and not table.state.finished:  # the game ends: what other features store with it
            at = naive_utc(self.settings.clock())
            ending = self.events.collect(GameEnding(table.id, state, tuple(table.seats), table.settings.deal, at))

        def op(conn: Any) -> list[Any]:
            log_op(conn)
            if also is not None:  # another write in the same transaction
                also(conn)
            return [w.op(conn) for w in ending]

        try:
            outcomes = await self.store.write(op)
        except StoreConflict as exc:  # another process wrote this version: ours is not the live state
            log.error("store conflict at %s: %s", table.id, exc)
            await self._lost(table)
            raise TableError("server/store", "the action could not be stored: resync", 503) from None
        metrics.ACTIONS.inc()
        for write, outcome in zip(ending, outcomes, strict=True):
            try:
                write.committed(outcome)
            except Exception:  # stored: a subscriber's follow-up must not undo the action
                log.exception("after the end of table %s", table.id)
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
        shared = None
        try:
            shared = self._broadcast_event(table, version, event)
            if shared is None and self.cluster is not None and not state.simultaneous:
                # every viewer anywhere sees the same: the view is made once, here, for every process
                shared = dumps(schema.event(version, event, table_view(table)))
        except Exception:  # stored and applied: clients that miss it will resync
            log.exception("broadcast failed at %s", table.id)
        message: dict[str, Any] = {"kind": "event", "v": version, "event": event}
        if shared is not None:
            message["text"] = shared
        if state.finished and state.rolloffs:
            message["rolloffs"] = _rolloffs_json(state)
        self._publish(table, message)
        if state.finished and not table.conns:
            self._forget(table)  # a game over that nobody here watches: back to the store only

    async def reissue(self, table: LiveTable, seat: int) -> str:
        """A new token for a person's seat, for another device of the profile that sits there (the caller
        checked the profile); the token the seat had before stops working."""
        token = new_token()
        row = table.seats[seat]
        if row.kind != "human" or row.profile_id is None:
            raise TableError("auth/not-your-seat", f"seat {seat} is nobody's to take back")
        await self.store.write(Store.seat_token_op(table.id, seat, row.profile_id, hash_token(token)))
        table.seats[seat] = dataclasses.replace(row, token_hash=hash_token(token))
        self._publish(table, {"kind": "reload"})  # other processes' copies learn it from the store
        return token

    async def uncounted(self, table: LiveTable, seat: int) -> None:
        """The seat's score will not count: a practice game of a deal whose dice its player has seen."""
        mark = self._assisted(table, seat)
        if mark is not None:
            await self.store.write(mark)

    def _assisted(self, table: LiveTable, seat: int) -> Any:
        """The seat asked the coach or a bot played for it: its score will not count (leaderboards, bests).
        Returns the write to make (None when already marked)."""
        row = table.seats[seat]
        if row.kind != "human" or row.assisted:
            return None
        table.seats[seat] = dataclasses.replace(row, assisted=True)
        return Store.assisted_op(table.id, seat)

    async def reload_names(self, table_ids: list[str]) -> None:
        """Tables whose seat names changed in the store (a deleted profile): those in memory reload them,
        and other processes are told to."""
        for table_id in dict.fromkeys(table_ids):
            table = self.tables.get(table_id)
            if table is not None:
                try:
                    await self.refresh(table)
                except Exception:
                    log.exception("table %s: reloading names", table_id)
                self._publish(table, {"kind": "reload"})

    def _views(self, table: LiveTable) -> Any:
        cache: dict[Any, dict[str, Any]] = {}

        def view_for(seats: frozenset[int]) -> dict[str, Any]:
            key = seats if table.state.simultaneous else None
            if key not in cache:
                cache[key] = table_view(table, seats)
            return cache[key]

        return view_for

    def _broadcast_event(
        self, table: LiveTable, version: int, event: dict[str, Any], shared: str | None = None
    ) -> str | None:
        """Send the event with each viewer's view; returns the one text every viewer shares (tables where
        all see the same: not duplicate ones), if it was made. `shared` is that text, made elsewhere."""
        view_for = self._views(table)
        encoded: dict[Any, str] = {}  # one JSON text per distinct view, sent to every socket that shares it
        if shared is not None and not table.state.simultaneous:
            encoded[None] = shared
        for conn in list(table.conns):
            if conn.joined:
                seats = frozenset(conn.seats)
                key = seats if table.state.simultaneous else None
                if key not in encoded:
                    encoded[key] = dumps(
                        schema.event(version, public_event(event, table.state, seats), view_for(seats))
                    )
                conn.send(encoded[key])
        return encoded.get(None)

    def _broadcast_state(self, table: LiveTable) -> None:
        self._catch_up(table)
        view_for = self._views(table)
        for conn in list(table.conns):
            if conn.joined:
                conn.send(schema.state(table.version, view_for(frozenset(conn.seats))))

    def resync(self, table: LiveTable, conn: Connection, since: int | None) -> dict[str, Any]:
        """What a (re)joining client needs: the events it missed, or the full state."""
        self._catch_up(table)
        seats = frozenset(conn.seats)
        view = table_view(table, seats)
        out = schema.state(table.version, view)
        if since is not None and since <= table.version:
            oldest = table.recent[0][0] if table.recent else table.version + 1
            if since == table.version or since + 1 >= oldest:
                missed = [{"v": v, "event": public_event(e, table.state, seats)} for v, e in table.recent if v > since]
                out = schema.events(table.version, missed, view)
        return out

    # --- several processes: forwarding to the owner, following it, taking over --------------------

    def _publish(self, table: LiveTable, message: dict[str, Any]) -> None:
        if self.cluster is not None:
            self.cluster.publish(KIND, table.id, message)

    async def _forward(self, table: LiveTable, op: str, args: dict[str, Any]) -> dict[str, Any]:
        assert self.cluster is not None
        return await self.cluster.route(KIND, table.id, op, args, lambda: table.owned, lambda: self.promote(table))

    async def handle_rpc(self, table_id: str, op: str, args: dict[str, Any]) -> dict[str, Any]:
        """A request forwarded by another process: done here if this process owns the table."""
        table = self.tables.get(table_id)
        if table is None or not table.owned:
            raise _Moved()
        if op == "act":
            msg = schema.client_message.validate_python(args["msg"])
            await self._act_local(table, set(args["seats"]), msg)
            if not self._seated_here(table) and not table.state.finished:  # nobody here plays: the asker takes it
                await self._hand_off(table)
                return {"_handoff": True}
            return {}
        if op == "join":
            seat, token = await self._join_local(table, args["name"], args.get("seat"), args.get("profile"))
            return {"seat": seat, "token": token}
        if op == "rematch":
            new = await self.rematch(table)
            return {"id": new.id}
        raise TableError("protocol/unknown-op", f"unknown forwarded request {op!r}")

    @staticmethod
    def _seated_here(table: LiveTable) -> bool:
        """Does a player (not a spectator) sit at the table through this process?"""
        return any(conn.seats for conn in table.conns)

    async def _hand_off(self, table: LiveTable) -> None:
        """Stop owning a table whose players act through other processes and follow it; the cluster
        passes its lease to the process that asked (`Cluster._serve`). Sticky-less routing then forwards less."""
        assert self.cluster is not None
        async with table.lock:
            if not table.owned or self._seated_here(table):
                return
            await self.cluster.follow(KIND, table.id)  # first: nothing the next owner publishes is missed
            self._as_mirror(table)
            if table.bot_task is not None and not table.bot_task.done():
                table.bot_task.cancel()

    def on_message(self, table_id: str, message: dict[str, Any]) -> None:
        """An owner's message (an event, a reload): mirrors apply them in order."""
        table = self.tables.get(table_id)
        if table is None or table.owned:
            return
        idle = not table.inbox and (table.drain is None or table.drain.done()) and not table.lock.locked()
        if idle and self._relay(table, message):  # the common case, without a task per event
            return
        table.inbox.append(message)
        if table.drain is None or table.drain.done():
            table.drain = asyncio.get_running_loop().create_task(self._drain(table))

    async def _drain(self, table: LiveTable) -> None:
        while table.inbox:
            message = table.inbox.popleft()
            try:
                async with table.lock:
                    if table.owned:
                        table.inbox.clear()
                        return
                    await self._follow(table, message)
            except Exception:
                log.exception("table %s: a message from its owner failed; reloading", table.id)
                await self.refresh(table)

    async def _follow(self, table: LiveTable, message: dict[str, Any]) -> None:
        kind = message.get("kind")
        if kind == "rematch":
            table.rematch = message["table"]
            for conn in list(table.conns):
                conn.send({"type": "rematch", "table": table.rematch})
            self._broadcast_state(table)
            return
        if kind != "event":
            log.info("table %s: %s from its owner, reloading", table.id, kind)
            await self._refresh_locked(table)
            return
        version, event = message["v"], message["event"]
        last = table.backlog[-1]["v"] if table.backlog else table.version
        if version <= last:  # already here (a reload saw it): once
            return
        if version != last + 1:  # a gap: the log has what was missed
            log.info("table %s: version %d after %d, reloading", table.id, version, last)
            await self._refresh_locked(table)
            return
        if self._relay(table, message):
            return
        self._catch_up(table)
        with table.guard:
            self._apply(table, message)
        self._broadcast_event(table, version, event, message.get("text"))

    @staticmethod
    def _relay(table: LiveTable, message: dict[str, Any]) -> bool:
        """The next event with the owner's text, on a table where every viewer sees the same: send the
        text as it is now, apply the event when this mirror is read. False for anything else."""
        text = message.get("text")
        if message.get("kind") != "event" or text is None or table.state.simultaneous:
            return False
        if message["event"].get("game_over"):
            return False
        last = table.backlog[-1]["v"] if table.backlog else table.version
        if message["v"] != last + 1:
            return False
        with table.guard:
            table.backlog.append(message)
        for conn in list(table.conns):
            if conn.joined:
                conn.send(text)
        return True

    def _catch_up(self, table: LiveTable) -> None:
        """A mirror's state brought up to the events its clients were already sent."""
        if table.backlog:
            with table.guard:
                try:
                    for message in table.backlog:
                        self._apply(table, message)
                except Exception:  # not expected; the log is the truth: read it again
                    log.exception("table %s: its owner's events do not apply here; reloading", table.id)
                    if self.loop is not None:  # from the event loop or a plain route's thread
                        asyncio.run_coroutine_threadsafe(self.refresh(table), self.loop)
                finally:
                    table.backlog.clear()

    @staticmethod
    def _as_mirror(table: LiveTable) -> None:
        """Another process owns the table now: this copy takes the owner's dice instead of rolling."""
        table.owned = False
        table.state = table.state.with_dice(ManualDice())

    @staticmethod
    def _apply(table: LiveTable, message: dict[str, Any]) -> None:
        """A mirror applies one of its owner's events (the caller holds `table.guard`)."""
        version, event = message["v"], message["event"]
        if event["type"] == "nonce":
            if table.fairness is not None:
                table.fairness = table.fairness.with_nonce(Nonce(event["player"], event["nonce"]))
            state = table.state
        else:
            state, _ = table.state.apply(Event.from_dict(event).to_action())
        if "rolloffs" in message:
            state = dataclasses.replace(state, rolloffs=_rolloffs_of(message["rolloffs"]))
        now, before = time.monotonic(), set(table.state.to_act())
        table.state, table.version, table.last_action = state, version, now
        for seat in state.to_act():  # the turn clocks, as the owner keeps them
            if seat not in before or (event["type"] == "scored" and seat == event["player"]):
                table.turn_started[seat] = now
        table.seat_version[event["player"]] = version
        table.recent.append((version, event))

    async def refresh(self, table: LiveTable) -> None:
        async with table.lock:
            await self._refresh_locked(table)

    async def _refresh_locked(self, table: LiveTable) -> None:
        """Reload a table from the store (the caller holds its lock); its clients get what they missed."""
        with table.guard:  # what the log holds replaces the backlog; clients have seen it already
            before = table.backlog[-1]["v"] if table.backlog else table.version
            table.backlog.clear()
        loaded = await self.store.read(self._load, table.id)
        if loaded is None:
            return
        self._fill(table, loaded, owned=table.owned)
        for conn in list(table.conns):
            if conn.joined:
                conn.send(self.resync(table, conn, before))

    async def promote(self, table: LiveTable) -> None:
        """This process now holds the table's lease: load its live state from the log, run its bots."""
        async with table.lock:
            table.owned = True
            table.inbox.clear()
            try:
                await self._refresh_locked(table)
            except Exception:
                table.owned = False
                raise
            if self.cluster is not None:
                self.cluster.unfollow(KIND, table.id)  # an owner does not follow its own events
        log.info("table %s: taken over at version %d", table.id, table.version)
        self.schedule_bots(table)

    async def take_over(self, table_id: str) -> None:
        """The cluster won a table's lease (its owner died): load it here as its owner."""
        table = await self.aget(table_id)
        if not table.owned:
            await self.promote(table)

    async def orphans(self) -> list[str]:
        """Unfinished tables with bots: they need an owner even when nobody watches them."""
        return await self.store.read(self.store.unfinished_with_bots)

    async def _lost(self, table: LiveTable) -> None:
        """Another process wrote to the table's log (the caller holds its lock): follow it from the log."""
        if self.cluster is not None:
            self._as_mirror(table)
            self.cluster.disown(KIND, table.id)
            await self.cluster.follow(KIND, table.id)
        if table.bot_task is not None and table.bot_task is not asyncio.current_task():
            table.bot_task.cancel()
        await self._refresh_locked(table)

    def lost_lease(self, table_id: str) -> None:
        """The cluster could not renew a table's lease: stop acting for it."""
        table = self.tables.get(table_id)
        if table is not None and table.owned:
            self._as_mirror(table)
            if table.bot_task is not None:
                table.bot_task.cancel()
            asyncio.get_running_loop().create_task(self._demoted(table))

    async def _demoted(self, table: LiveTable) -> None:
        assert self.cluster is not None
        await self.cluster.follow(KIND, table.id)  # first: nothing published meanwhile is missed
        await self.refresh(table)

    def owned_ids(self) -> list[str]:
        return [t.id for t in self.tables.values() if t.owned]

    def watched_ids(self) -> list[str]:
        """Mirrors of games still going, with clients here: they need a live owner."""
        return [t.id for t in self.tables.values() if not t.owned and t.conns and not t.state.finished]

    def local_versions(self) -> dict[str, int]:
        """Tables with clients here: the version their clients were sent last (the cluster compares it with
        the log)."""
        return {t.id: _seen(t) for t in self.tables.values() if t.conns}

    async def stored_versions(self, ids: list[str]) -> dict[str, int]:
        return await self.store.read(self.store.table_versions, ids)

    async def reread(self, table_id: str) -> None:
        """The log is ahead of this copy: read it again (under the lock, so a commit in progress is not
        mistaken for it); an owner that another process overtook follows it from now on."""
        table = self.tables.get(table_id)
        if table is None:
            return
        async with table.lock:
            stored = await self.store.read(self.store.table_versions, [table_id])
            if stored.get(table_id, 0) <= _seen(table):
                return
            if table.owned:
                log.warning("table %s: another process wrote its log; following it", table_id)
                await self._lost(table)
            else:
                await self._refresh_locked(table)

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
        if not table.owned or not self._bot_seats(table) or (table.bot_task and not table.bot_task.done()):
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
                if not seats or not table.owned:
                    return
                seat = seats[i % len(seats)]
                i += 1
                try:
                    # Think off the event loop: a hard bot's first move on a table may load a strategy table.
                    action = await asyncio.to_thread(
                        choose_action, table.state, seat, self._policy(table, seat), table.rng
                    )
                    new_state, event = table.state.apply(action)
                    mark = self._assisted(table, seat)  # a person's turn played by the stand-in
                    await self._commit(table, new_state, event.to_dict(), mark)
                except (IllegalAction, TableError, ValueError) as exc:  # never expected: log and stop
                    log.error("bot at table %s seat %d: %s", table.id, seat, exc)
                    return


def _seen(table: LiveTable) -> int:
    """The version a table's clients here were sent last (a mirror's relayed events included)."""
    return table.backlog[-1]["v"] if table.backlog else table.version


class _Moved(RequestError):
    """This process does not own the table (any more): the requester asks its owner again."""

    def __init__(self) -> None:
        super().__init__("cluster/moved", "the table moved to another process", 503)
