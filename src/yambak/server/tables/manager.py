"""Live tables: a game session (`server/session`) whose dice the server rolls, with seats, bots and clocks.

What a table adds to the session core: seats held by people (with tokens), bots and open seats;
the fair dice (a commitment, players' nonces, a deal's sealed seed); joining, rematches, the coach's
advice and review; the lobby's list. Parts of their own, each with one job: the turn clock
(`clock.py`), who is here (`presence.py`), the stand-in that plays an absent or slow player's turn
(`standin.py`) and the bots at work (`bots.py`). Duplicate tables show each viewer only what their own
progress allows (`view.py`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ...bots import LEVELS, POLICIES
from ...engine import (
    Action,
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
from ...rules import Ruleset, RulesetError, check_house_rules, load_ruleset
from ...store import EventRow, RefTaken, SeatRow, SessionRow, Store, StoreConflict, TurnRow
from .. import metrics
from ..common.clock import naive_utc
from ..common.coach import Asker, CoachPool
from ..common.dice import DealDice, seal
from ..common.dice import secret as deal_secret
from ..common.events import GameEnding, Write
from ..common.names import TABLE_NAME_MAX, clean_name
from ..common.tokens import hash_token, new_token
from ..live import Connection, RequestError
from ..session import Loaded, Moved, Session, SessionManager
from . import schema
from .bots import Bots
from .clock import TurnClock
from .presence import Presence, Seen
from .reactions import Reactions
from .seating import Seating
from .settings import TableSettings, choose
from .standin import StandIn
from .turns import Turns
from .view import public_event, table_view

__all__ = ["LiveTable", "NewTable", "TableError", "TableManager", "record_of"]

log = logging.getLogger("yambak.server")


class TableError(RequestError):
    """A refused table request (sent as JSON with its code, never a traceback)."""


@dataclass(eq=False)
class LiveTable(Session):
    listed: bool = True
    seats: list[SeatRow] = field(default_factory=list)
    seed: str | None = None
    rematch: str | None = None
    seat_version: list[int] = field(default_factory=list)
    bot_task: asyncio.Task[None] | None = None
    rng: random.Random = field(default_factory=random.Random)
    fairness: FairDice | None = None  # the table's dice commitment (None for tables older than fair dice)
    settings: TableSettings = field(default_factory=TableSettings)
    # seat -> when its turn began, by the server's clock in seconds (`clock.py`)
    turn_started: dict[int, float] = field(default_factory=dict)
    reminded: set[int] = field(default_factory=set)  # seats told a quarter of their clock is left (`turns.py`)
    turns_kept: frozenset[int] = frozenset()  # seats whose turn the store holds now (`turns.py`)
    last_entry: float = 0.0  # when a person last filled a box (bots wait a moment: it may be taken back)
    seen: Seen = field(default_factory=Seen)  # who is here (`presence.py`)
    # seat -> the entries the stand-in made for its away player since they last played (`standin.py`)
    played_for: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def seats_for(self, hashes: set[str]) -> set[int]:
        return {s.seat for s in self.seats if s.token_hash is not None and s.token_hash in hashes}

    def expected_version(self, seat: int) -> int:
        """The version a client must have seen to act for `seat` (its own last change on duplicate tables)."""
        if self.state.simultaneous:
            return self.seat_version[seat]
        # another player's nonce changes the dice to come, not the position: a roll on the view before it stands
        v = self.version
        for version, event, _ref in reversed(self.recent):
            if version != v or event.get("type") != "nonce":
                break
            v -= 1
        return v

    def listing(self) -> dict[str, Any]:
        state = self.state
        return lobby_entry(
            self.id,
            self.name,
            state.rules,
            self.seats,
            duplicate=state.simultaneous,
            finished=state.finished,
            v=self.version,
        )


def lobby_entry(
    table_id: str, name: str, rules: Ruleset, seats: list[SeatRow], *, duplicate: bool, finished: bool, v: int
) -> dict[str, Any]:
    """A table as the lobby lists it: the people and bots at it, and how many seats are open (an open
    seat has no name but the one each page gives it in its language)."""
    return {
        "id": table_id,
        "name": name,
        "rules": rules.id,
        "rules_name": rules.name,
        "players": [s.name for s in seats if s.kind != "open"],
        "open_seats": sum(s.kind == "open" for s in seats),
        "duplicate": duplicate,
        "finished": finished,
        "v": v,
    }


@dataclass(frozen=True)
class NewTable:
    """A table checked and built, not stored yet (`TableManager.prepare`, then `aopen`)."""

    table: LiveTable
    tokens: dict[int, str]
    row: SessionRow


def record_of(state: GameState) -> dict[str, Any]:
    return state_to_record(state).to_dict()


# A hold or release that changed nothing: refused since, but a log may hold one from before (the same state).
_NO_CHANGE = frozenset({"illegal/already-held", "illegal/not-held"})


def _apply_event(state: GameState, data: dict[str, Any]) -> GameState:
    """A logged event applied again with the dice it recorded."""
    try:
        state, _ = state.apply(Event.from_dict(data).to_action())
    except IllegalAction as exc:
        if exc.code not in _NO_CHANGE:
            raise
    return state


def _replay_events(state: GameState, events: list[EventRow]) -> GameState:
    """Re-apply stored events with the dice they recorded (exact, mid-turn included)."""
    for e in events:
        if e.type != "nonce":  # fair dice: a player's nonce changes the dice source, not the game
            state = _apply_event(state, e.data)
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


class TableManager(SessionManager[LiveTable]):
    KIND = "table"
    NOUN = "table"
    UNKNOWN = "table/unknown"
    Error = TableError

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        now = lambda: self.settings.clock().timestamp()  # noqa: E731  # the server's clock, in seconds
        self.turn_clock = TurnClock(now)
        self.presence = Presence(self, now)
        self.stand_in = StandIn(self.turn_clock, self.presence, self.settings.away_turn)
        self.bots = Bots(self, self.stand_in)
        self.seating = Seating(self)
        self.reactions = Reactions(self)
        self.turns = Turns(self)
        self.reviews: OrderedDict[str, dict[str, Any]] = OrderedDict()  # finished tables' reviews
        self.coach = CoachPool(self.settings.coach_process, "yambak-advice")  # advice, off the players' path
        self._listing: tuple[float, list[dict[str, Any]]] = (0.0, [])
        # the fence of an action (set by the app): (table) -> a write checking again in the action's own
        # transaction, or None; raises to refuse it now (a deal's table stops at the deal's close)
        self.admit: Any = None

    # --- the session core's hooks ----------------------------------------------------------------

    def cap(self) -> int:
        return self.settings.max_tables

    def _load_more(self, table_id: str) -> tuple[dict[int, int], dict[int, TurnRow]]:
        return self.store.seat_versions(table_id), self.store.turns_of(table_id)

    def _blank(self, row: SessionRow) -> LiveTable:
        return LiveTable(row.id, row.name, None)  # type: ignore[arg-type]  # `_fill` sets the state

    def _fill(self, table: LiveTable, loaded: Loaded, owned: bool) -> None:
        """An owner's state rolls the table's dice; a mirror's only takes the owner's."""
        row, after, recent, (seat_versions, turns) = loaded
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
        self.turn_clock.resume(table, self.turns.stored_starts(turns) if table.settings.asynchronous else None)
        table.reminded = {seat for seat, turn in turns.items() if turn.reminded}
        table.turns_kept = frozenset(turns)
        table.version = after[-1].version if after else row.version
        table.seat_version = [seat_versions.get(i, 0) for i in range(len(row.seats))]
        table.recent = self.recent_of(recent)
        self.stand_in.rebuild(table)

    def apply_logged(self, table: LiveTable, message: dict[str, Any]) -> GameState:
        event = message["event"]
        if event["type"] == "nonce":
            if table.fairness is not None:
                table.fairness = table.fairness.with_nonce(Nonce(event["player"], event["nonce"]))
            state = table.state
        else:
            state = _apply_event(table.state, event)
        if "rolloffs" in message:
            state = dataclasses.replace(state, rolloffs=_rolloffs_of(message["rolloffs"]))
        return state

    def _with_event(self, table: LiveTable, state: GameState, event: dict[str, Any]) -> Any:
        return self.turns.with_event(table, state, event)

    def _applied(self, table: LiveTable, before: GameState, version: int, event: dict[str, Any]) -> None:
        self.turn_clock.applied(table, before, event)
        self.turns.began(table, before, event)
        table.seat_version[event["player"]] = version
        self.stand_in.applied(table, event)

    def record(self, table: LiveTable, state: GameState | None = None) -> dict[str, Any]:
        """The table's game record, with its dice commitment (the seed revealed once the game is over)."""
        state = state or table.state
        out = record_of(state)
        if table.fairness is not None:
            out["fairness"] = table.fairness.block(revealed=state.finished)
        return out

    def view(self, table: LiveTable, seats: frozenset[int] = frozenset()) -> dict[str, Any]:
        live = {
            "online": self.presence.online(table),
            "clocks": self.turn_clock.left(table),
            "stand_in": self.stand_in.waits(table),
            "played_for": {str(s): list(entries) for s, entries in table.played_for.items()},
            "seating": self.seating.can(table),
        }
        return table_view(table, seats, live)

    def connected(self, table: LiveTable, conn: Connection) -> None:
        self.presence.changed(table, conn)

    def public_event(self, table: LiveTable, event: dict[str, Any], seats: frozenset[int]) -> dict[str, Any]:
        return public_event(event, table.state, seats)

    def same_for_all(self, table: LiveTable) -> bool:
        return not table.state.simultaneous  # a duplicate table hides what a viewer has not played yet

    def _ending(self, table: LiveTable, state: GameState) -> list[Write]:
        at = naive_utc(self.settings.clock())
        return self.events.collect(
            GameEnding(table.id, state, tuple(table.seats), table.settings.deal, at, table.settings.ranked)
        )

    def _published_extra(self, _table: LiveTable, state: GameState) -> dict[str, Any]:
        return {"rolloffs": _rolloffs_json(state)} if state.finished and state.rolloffs else {}

    def _owner_message(self, table: LiveTable, message: dict[str, Any]) -> bool:
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
        self.broadcast_state(table)
        return True

    def _as_mirror(self, table: LiveTable) -> None:
        """Another process owns the table now: this copy takes the owner's dice instead of rolling."""
        table.owned = False
        table.state = table.state.with_dice(ManualDice())
        self.presence.demoted(table)

    def _promoted(self, table: LiveTable) -> None:
        self.presence.promoted(table)
        self.bots.schedule(table)

    def _stop_work(self, table: LiveTable) -> None:
        self.bots.stop(table)

    def _busy(self, table: LiveTable) -> bool:
        return self.bots.running(table)

    async def rpc(self, table: LiveTable, op: str, args: dict[str, Any]) -> dict[str, Any]:
        if op == "act":
            msg = schema.client_message.validate_python(args["msg"])
            return await self._act_owned(table, set(args["seats"]), msg, args.get("ref"))
        if op == "join":
            seat, token = await self._join_local(table, args["name"], args.get("seat"), args.get("profile"))
            return {"seat": seat, "token": token}
        if op == "rematch":
            new = await self.rematch(table)
            return {"id": new.id}
        if op == "close_seat":
            msg = schema.client_message.validate_python(args["msg"])
            await self.seating.close_here(table, set(args["seats"]), msg)
            return {}
        if op == "react":
            return self.reactions.here(table, int(args["seat"]), str(args["reaction"]))
        if op == "presence":
            return self.presence.reported(table, str(args["node"]), [int(s) for s in args["seats"]])
        return await super().rpc(table, op, args)

    # --- lifecycle -----------------------------------------------------------------------------

    @staticmethod
    def _dice(duplicate: bool, seed: str | None) -> Any:
        return DuplicateDice(seed) if duplicate and seed else SecureDice()

    def load_unfinished(self) -> int:
        """After a restart of a single process: every unfinished table back in memory, bots resumed.
        (In a cluster, tables come back on demand, and the bots' tables through `adopt_orphans`.)"""
        if self.cluster is not None:
            return 0
        n = 0
        for row in self.store.tables(unfinished_only=True):
            if row.id in self.sessions:
                continue
            try:
                loaded = self._load(row.id)
                if loaded is None:
                    continue
                self.sessions[row.id] = self._build(loaded, owned=True)
            except Exception:  # a broken row must not keep every other table from resuming
                log.exception("table %s cannot be resumed", row.id)
                continue
            n += 1
        return n

    def start_bots(self) -> None:
        for table in self.sessions.values():
            self.bots.schedule(table)

    def schedule_bots(self, table: LiveTable) -> None:
        self.bots.schedule(table)

    def tick(self) -> None:
        self.bots.tick()

    async def sweep(self) -> None:
        await self.presence.sweep()
        await self.turns.sweep()

    def forget(self, table: LiveTable) -> None:
        """The table leaves memory (it waits in the store: `turns.py`)."""
        self._stop_work(table)
        if self.cluster is not None:  # its lease goes now: the first process to see a deadline due takes it
            self.cluster.unfollow(self.KIND, table.id, owned=True)
        self._forget(table)

    async def orphans(self) -> list[str]:
        """Unfinished tables with bots, and those with a deadline passed or a reminder due: they need an owner
        even when nobody watches them."""
        with_bots = await self.store.read(self.store.unfinished_with_bots)
        due = await self.store.read(self.store.due_turns, naive_utc(self.settings.clock()))
        return list(dict.fromkeys([*with_bots, *due]))

    def listed(self) -> list[dict[str, Any]]:
        """The lobby's list: listed tables in play, without those idle (no action, nobody there) too long."""
        if self.cluster is None:
            now = time.monotonic()
            out = [
                t.listing()
                for t in self.sessions.values()
                if t.listed and not t.state.finished and (t.conns or now - t.last_action < self.settings.idle_after)
            ]
            return out[-100:][::-1]
        # several processes: the lobby is the store's (refreshed at most every two seconds); a table is
        # idle when its last stored action is old, unless it is live here with somebody connected (who is
        # connected to the other processes is theirs to know: such a table may leave the list early)
        stamp, cached = self._listing
        if time.monotonic() - stamp > 2.0:
            rows = self.store.tables(unfinished_only=True, limit=100, listed_only=True)
            idle, here = self.store.idle_seconds([r.id for r in rows]), self.sessions
            cached = [
                self._row_listing(r)
                for r in rows
                if idle.get(r.id, 0.0) < self.settings.idle_after or (r.id in here and here[r.id].conns)
            ]
            self._listing = (time.monotonic(), cached)
        return cached

    def _row_listing(self, row: SessionRow) -> dict[str, Any]:
        live = self.sessions.get(row.id)
        if live is not None:
            return live.listing()
        return lobby_entry(
            row.id,
            row.name,
            load_ruleset(row.rules),
            row.seats,
            duplicate=row.duplicate,
            finished=row.finished,
            v=row.version,
        )

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
        deal: Any = None,
    ) -> NewTable:
        """Everything a new table is, checked, with nothing stored yet (`aopen` stores it). `deal`: a deal
        of duplicate dice to play (a `DealRow`: its seed, sealed until it closes); `name` None: no name of
        its own (its pages call it after whoever sits first: no player's name is stored)."""
        name = "" if name is None else clean_name(name, "table name", TABLE_NAME_MAX)
        self._make_room()
        if not isinstance(options, dict) or len(options) > 20:
            raise TableError("input/invalid", "options must be an object")
        if custom is None and (not isinstance(preset, str) or len(preset) > 40):
            raise TableError("input/invalid", "preset must be a preset id")
        try:
            rules = load_ruleset(custom) if custom is not None else load_ruleset(preset, options or None)
            if custom is not None:
                check_house_rules(rules)  # bounded: what a bot, a view and the coach take in a moment
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
        # Fair dice (engine/fairness.py): a CSPRNG seed, committed to now, revealed when the game ends.
        fair = FairDice(secrets.token_hex(32), (), bool(duplicate))
        if deal is not None:
            fair = DealDice(deal.seed, (), True, deal.id, deal.closes_at, self.settings.clock)
            house, duplicate = dataclasses.replace(house, hints=False, undo=False, clock=None, deal=deal.id), True
        state = new_game(rules, [r.name for r in rows], dice=fair, simultaneous=bool(duplicate))
        table_id = secrets.token_urlsafe(12)
        table = LiveTable(table_id, name, state, listed=bool(listed), seats=rows, seat_version=[0] * len(rows))
        table.settings = house
        self.turn_clock.start(table)
        self.presence.new_table(table)
        table.recent = self.recent_of([])
        table.fairness = fair
        secret = {**fair.block(revealed=False), "seed": fair.seed}  # stored; sent to no one before the end
        if isinstance(fair, DealDice):
            secret = deal_secret(fair)
        row = SessionRow(
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
        return NewTable(table, tokens, row)

    def prepare(
        self,
        name: Any,
        preset: Any,
        options: Any,
        seats: Any,
        listed: bool = True,
        duplicate: bool = False,
        asked: dict[str, Any] | None = None,
        custom: dict[str, Any] | None = None,
    ) -> NewTable:
        """A new table checked in full, nothing made yet: a request is refused before it makes anything
        (a profile, a row); `aopen` then stores it."""
        return self._new(name, preset, options, seats, listed, duplicate, asked, custom)

    @staticmethod
    def _give_first_seat(new: NewTable, profile: str | None) -> None:
        """The creator's profile goes to the first person's seat of a new table (the others are guests)."""
        first = next((i for i in sorted(new.tokens) if new.table.seats[i].kind == "human"), None)
        if profile is not None and first is not None:  # table.seats and row.seats are one list
            new.table.seats[first] = dataclasses.replace(new.table.seats[first], profile_id=profile)

    async def aopen(self, new: NewTable, profile: str | None = None) -> tuple[LiveTable, dict[int, str]]:
        """Store a prepared table and take it into memory. `profile`: the creator's, given to the first
        person's seat (the others are guests)."""
        self._give_first_seat(new, profile)
        await self._astore_new(new.row, self.turns.now_op(new.table))
        self._admit(new.table)
        return new.table, new.tokens

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
        new = self._new(name, preset, options, seats, listed, duplicate, asked, custom)
        self._give_first_seat(new, profile)
        self._store_new(new.row, self.turns.now_op(new.table))
        self._admit(new.table)
        return new.table, new.tokens

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
        new = self._new(name, preset, options, seats, listed, duplicate, asked, custom, deal)
        return await self.aopen(new, profile)

    def check_join(self, table: LiveTable, name: Any, seat: Any = None) -> str:
        """A request to sit down checked before anything is made for it (a profile): the name as it will
        be shown; refused when no such seat is open. `join` checks again under the table's lock."""
        shown = clean_name(name)
        open_seats = [s.seat for s in table.seats if s.kind == "open"]
        if not open_seats:
            raise TableError("seat/none-open", "every seat at this table is taken", 409)
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat not in open_seats):
            raise TableError("seat/taken", "that seat is not open", 409)
        return shown

    async def join(self, table: LiveTable, name: Any, seat: Any = None, profile: str | None = None) -> tuple[int, str]:
        name = clean_name(name)
        if not table.owned:
            result = await self.replica.forward(table, "join", {"name": name, "seat": seat, "profile": profile})
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
            seated = profile is None or any(s.profile_id == profile for s in table.seats)
            if table.settings.ranked is not None and seated:  # profiles only, each at one seat
                raise TableError("ranked/profile", "a ranked table seats profiles, each once", 403)
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
            if table.settings.ranked is not None and not any(s.kind == "open" for s in table.seats):
                self.turn_clock.start(table)  # the game starts: clocks run
            await self.turns.sync(table)  # the seat's profile, a clock that starts
            self.presence.recount(table)
            self.broadcast_state(table)
            self.replica.publish(table, {"kind": "reload"})
        return seat, token

    async def rematch(self, table: LiveTable) -> LiveTable:
        if not table.owned:
            result = await self.replica.forward(table, "rematch", {})
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
                table.name or None, preset, options, list(table.seats), table.listed, table.state.simultaneous,
                asked, custom,
            )  # fmt: skip
            table.rematch = new.id
            await self.store.write(Store.set_rematch_op(table.id, new.id))
            for conn in list(table.conns):
                conn.send({"type": "rematch", "table": new.id})
            self.broadcast_state(table)
            self.replica.publish(table, {"kind": "rematch", "table": new.id})
        self.bots.schedule(new)
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
        row = SessionRow(
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
        self.store.create(row)
        return table_id

    # --- acting --------------------------------------------------------------------------------

    async def act(
        self,
        table: LiveTable,
        conn_seats: set[int],
        msg: schema.ActionMsg | schema.NonceMsg,
        ref: str | int | None = None,
    ) -> dict[str, Any] | None:
        """Validate and apply one action; raises TableError or IllegalAction and changes nothing then.
        `ref`: the client's id for the action, stored with its event. Returns None when the action made a
        new event (every follower, the sender too, gets it), or, for an action applied before under this
        ref (a resend after a lost answer or a reconnect, a forward retried after a takeover), the
        sender's `ack` with that event: never a second application, never a refusal of what was done."""
        if msg.seat not in conn_seats:  # checked here too: a forwarded action names only seats held here
            raise TableError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
        key = None if ref is None else str(ref)
        if table.owned:
            try:
                return self._ack(table, await self._act_owned(table, conn_seats, msg, key), ref, conn_seats)
            except Moved:  # the lease went elsewhere meanwhile
                pass
        # A forwarded action always carries a ref: sent again (no answer in time, a takeover), it is found.
        key = key or "~" + secrets.token_urlsafe(12)
        args = {"seats": sorted(conn_seats), "msg": msg.model_dump(), "ref": key}
        try:
            done = await self.replica.forward(table, "act", args)
        except RequestError as exc:  # no answer in time, Redis failing: the log says whether it was done
            if exc.code.startswith(("auth/", "protocol/")):
                raise
            found = await self._logged(table, key, conn_seats)
            if found is None:
                raise
            done = found
        return self._ack(table, done, ref, conn_seats)

    async def _act_owned(
        self, table: LiveTable, conn_seats: set[int], msg: schema.ActionMsg | schema.NonceMsg, ref: str | None
    ) -> dict[str, Any]:
        """The owner's side of `act` (a forwarded action's too): {} for a new event, {"v", "event"} for an
        action logged before under `ref`."""
        try:
            await self._act_local(table, conn_seats, msg, ref)
            return {}
        except Moved:
            raise
        except (RequestError, IllegalAction, RefTaken) as exc:
            if isinstance(exc, RequestError) and exc.code.startswith(("auth/", "protocol/")):
                raise
            # an action done before was made on a version older than the table's now; the store is not
            # asked about one made on the newest (a refusal never costs a read of the log for nothing)
            older = msg.v < table.version or isinstance(exc, RefTaken) or exc.code.startswith("server/")
            found = await self._logged(table, ref, conn_seats, recent_only=not older)
            if found is not None:
                return found
            if isinstance(exc, RefTaken):  # the ref names another seat's action: this one was not applied
                raise TableError("protocol/ref-taken", "this ref names another action: send a new ref") from None
            raise

    async def _logged(
        self, table: LiveTable, ref: str | None, seats: set[int], recent_only: bool = False
    ) -> dict[str, Any] | None:
        """The event an action of these seats made under `ref`, if it was logged: the table's recent
        events, else the log (only when an action is refused or unanswered: never on the way of a new one)."""
        if ref is None:
            return None
        for version, event, logged in reversed(table.recent):
            if logged == ref:
                return {"v": version, "event": event} if event.get("player") in seats else None
        if recent_only:
            return None
        row = await self.store.read(self.store.ref_event, table.id, ref)
        if row is None or row.data.get("player") not in seats:
            return None
        return {"v": row.version, "event": row.data}

    def _ack(self, table: LiveTable, done: dict[str, Any], ref: Any, seats: set[int]) -> dict[str, Any] | None:
        """The sender's answer for an action applied before (None: a new event, which answers it)."""
        if "event" not in done or ref is None:
            return None
        event = public_event(done["event"], table.state, frozenset(seats))
        return {"type": "ack", "ref": ref, "v": done["v"], "event": event}

    async def _act_local(
        self, table: LiveTable, conn_seats: set[int], msg: schema.ActionMsg | schema.NonceMsg, ref: str | None = None
    ) -> None:
        start = time.perf_counter()
        async with table.lock:
            if not table.owned:
                raise Moved()
            if msg.seat not in conn_seats:
                raise TableError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
            if msg.seat >= len(table.seats):
                raise TableError("auth/not-your-seat", f"there is no seat {msg.seat}")
            if isinstance(msg, schema.NonceMsg):
                await self._nonce(table, msg, ref)
                return
            if isinstance(msg, schema.UndoMsg) and not table.settings.undo:
                raise TableError("table/no-undo", "this table does not allow taking back an entry")
            engine = time.thread_time()
            new_state, event = table.state.apply(schema.to_action(msg))  # game over, turn, legality
            metrics.cpu_add("engine", time.thread_time() - engine)
            expected = table.expected_version(msg.seat)
            if not expected <= msg.v <= table.version:
                stale = f"you acted on version {msg.v}; the table is at {expected}: resync"
                raise TableError("stale/version", stale, v=table.version)
            fence = self.admit(table) if self.admit is not None else None
            await self._commit(table, new_state, event.to_dict(), seat=event.player, ref=ref, also=fence)
            if event.type == "scored":
                table.last_entry = time.monotonic()
        metrics.LATENCY.observe(time.perf_counter() - start)
        self.bots.schedule(table)

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

    async def advise(
        self, table: LiveTable, conn_seats: set[int], msg: schema.AdviseMsg, asker: Asker | None = None
    ) -> dict[str, Any]:
        """The coach's advice for the seat's position (tables that allow hints), as the `advice` message:
        computed in the coach's process, one at a time for the client's `asker` (a newer request of the
        same client cancels this one)."""
        from ...coach import CoachError
        from ...coach.advice import advice_dict

        self.replica.catch_up(table)
        if msg.seat not in conn_seats:
            raise TableError("auth/not-your-seat", f"this connection holds no token for seat {msg.seat}")
        if not table.settings.hints:
            raise TableError("table/no-hints", "hints are off at this table")
        state, version = table.state, table.version
        if msg.v != version or msg.seat not in state.to_act() or not state.turns[msg.seat].rolls:
            raise TableError("advice/unavailable", "no advice for this position: roll first, or resync")
        position = state.with_dice(ManualDice())  # the coach weighs what dice may come, never sees them
        try:
            if asker is None:
                advice = await asyncio.wrap_future(self.coach.submit(advice_dict, position, msg.seat))
            else:
                advice = await asker.compute(advice_dict, position, msg.seat)
        except CoachError as exc:
            raise TableError("advice/unavailable", str(exc)) from None
        mark = self._assisted(table, msg.seat)
        if mark is not None:
            await self.store.write(mark)
        return {"type": "advice", "v": version, "seat": msg.seat, "advice": advice}

    async def _nonce(self, table: LiveTable, msg: schema.NonceMsg, ref: str | None = None) -> None:
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
            also = Store.fairness_op(table.id, secret)
            await self._commit(table, table.state.with_dice(fair), event, seat=msg.seat, ref=ref, also=also)
        except BaseException:
            table.fairness = before
            raise

    async def commit_bot(self, table: LiveTable, seat: int, action: Action) -> None:
        """A bot's action (the caller, `Bots`, holds the table's lock)."""
        new_state, event = table.state.apply(action)
        mark = self._assisted(table, seat)  # a person's turn played by the stand-in
        data = event.to_dict()
        self.stand_in.mark(table, seat, data)
        await self._commit(table, new_state, data, seat=event.player, also=mark)

    async def reissue(self, table: LiveTable, seat: int) -> str:
        """A new token for a person's seat, for another device of the profile that sits there (the caller
        checked the profile); the token the seat had before stops working."""
        token = new_token()
        row = table.seats[seat]
        if row.kind != "human" or row.profile_id is None:
            raise TableError("auth/not-your-seat", f"seat {seat} is nobody's to take back")
        await self.store.write(Store.seat_token_op(table.id, seat, row.profile_id, hash_token(token)))
        table.seats[seat] = dataclasses.replace(row, token_hash=hash_token(token))
        self.replica.publish(table, {"kind": "reload"})  # other processes' copies learn it from the store
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
