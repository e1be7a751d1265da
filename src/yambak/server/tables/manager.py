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
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from ...bots import LEVELS, POLICIES
from ...engine import (
    Action,
    DuplicateDice,
    FairDice,
    GameState,
    IllegalAction,
    ManualDice,
    Nonce,
    SecureDice,
    new_game,
)
from ...rules import RulesetError, check_house_rules, load_ruleset
from ...store import DealRow, Op, RefTaken, SeatRow, SessionRow, Store, StoreConflict
from ...viewtypes import JSONObject
from .. import metrics
from ..common.asked import Asked
from ..common.clock import naive_utc
from ..common.coach import Asker, CoachPool
from ..common.dice import DealDice
from ..common.dice import secret as deal_secret
from ..common.events import Events, SeatsRevoked
from ..common.names import TABLE_NAME_MAX, clean_name
from ..common.tokens import hash_token, new_token
from ..live import RequestError
from ..session import Moved, SessionFront
from ..settings import Settings
from . import schema
from .bots import Bots
from .clock import TurnClock
from .context import TableContext, server_seconds
from .kind import Forwarded, TableKind, seats_of
from .presence import Presence
from .reactions import Reactions
from .seating import Seating
from .settings import TableSettings, choose
from .standin import StandIn, stood_in
from .table import LiveTable, LobbyEntry, TableError, lobby_entry, record_of
from .turns import Turns
from .view import public_event

__all__ = ["LiveTable", "NewTable", "TableError", "TableManager", "record_of"]

if TYPE_CHECKING:
    from ..cluster import Cluster

log = logging.getLogger("yambak.server")


@dataclass(frozen=True)
class NewTable:
    """A table checked and built, not stored yet (`TableManager.prepare`, then `aopen`)."""

    table: LiveTable
    tokens: dict[int, str]
    row: SessionRow


class TableManager(SessionFront[LiveTable]):
    """Live tables: the session core with a table's kind (`kind.py`), and a table's own requests (making,
    joining, acting, rematches, the coach)."""

    def __init__(
        self, store: Store, settings: Settings, cluster: Cluster | None = None, events: Events | None = None
    ) -> None:
        ctx = TableContext(settings, store, events or Events(), cluster, server_seconds(settings))
        self.turn_clock = TurnClock(ctx.now)
        self.presence = Presence(ctx, ctx.now)
        self.stand_in = StandIn(self.turn_clock, self.presence, settings.away_turn, settings.away_missed)
        self.bots = Bots(ctx, self.stand_in)
        self.seating = Seating(ctx)
        self.reactions = Reactions(ctx)
        self.turns = Turns(ctx, self.turn_clock)
        ctx.commit, ctx.forget, ctx.schedule = self.commit_bot, self.forget, self.bots.schedule
        ctx.working, ctx.present, ctx.recount = self.bots.working, self.presence.present, self.presence.recount
        ctx.turns_seen, ctx.sync_turns, ctx.start_clock = self.turns.seen, self.turns.sync, self.turn_clock.start
        forwarded: dict[str, Forwarded] = {"act": self._forwarded_act, "join": self._forwarded_join}
        forwarded["rematch"] = self._forwarded_rematch
        kind = TableKind(
            ctx, self.turn_clock, self.presence, self.stand_in, self.bots, self.seating, self.reactions, self.turns,
            forwarded,
        )  # fmt: skip
        super().__init__(store, settings, kind, cluster, ctx.events)
        core = self.core  # the parts talk to the session core itself, never through this manager
        ctx.tables, ctx.loop = core.sessions, partial(getattr, core, "loop")  # the loop is set at startup
        ctx.broadcast, ctx.record, ctx.aget = core.broadcast_state, core.record, core.aget
        ctx.publish, ctx.forward = core.replica.publish, core.replica.forward
        self.reviews: OrderedDict[str, JSONObject] = OrderedDict()  # finished tables' reviews
        self.coach = CoachPool(self.settings.coach_process, "yambak-advice")  # advice, off the players' path
        self._listing: tuple[float, list[LobbyEntry]] = (0.0, [])
        # the fence of an action (set by the app): (table) -> a write checking again in the action's own
        # transaction, or None; raises to refuse it now (a deal's table stops at the deal's close)
        self.admit: Callable[[LiveTable], Op | None] | None = None
        # a device signed out of a profile: the seats it was given lose their token here and elsewhere
        self.events.on_async(SeatsRevoked, lambda revoked: self.core.reload_names(list(revoked.tables)))

    async def _forwarded_act(self, table: LiveTable, args: JSONObject) -> JSONObject:
        msg = schema.client_message.validate_python(args["msg"])
        ref = args.get("ref")
        return await self._act_owned(table, set(seats_of(args["seats"])), msg, ref if isinstance(ref, str) else None)

    async def _forwarded_join(self, table: LiveTable, args: JSONObject) -> JSONObject:
        profile, device = args.get("profile"), args.get("device")
        profile = profile if isinstance(profile, str) else None
        device = device if isinstance(device, str) else None
        name = args["name"]
        if not isinstance(name, str):  # `join` cleaned it before forwarding
            raise TableError("input/name", "a name is text")
        seat, token = await self._join_local(table, name, args.get("seat"), profile, device)
        return {"seat": seat, "token": token}

    async def _forwarded_rematch(self, table: LiveTable, _args: JSONObject) -> JSONObject:
        new = await self.rematch(table)
        return {"id": new.id}

    # --- lifecycle -----------------------------------------------------------------------------

    @staticmethod
    def _dice(duplicate: bool, seed: str | None) -> DuplicateDice | SecureDice:
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
                loaded = self.core.load(row.id)
                if loaded is None:
                    continue
                self.sessions[row.id] = self.core.build(loaded, owned=True)
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
        self.core.stop(table)
        if self.cluster is not None:  # its lease goes now: the first process to see a deadline due takes it
            self.cluster.unfollow(self.KIND, table.id, owned=True)
        self.core.drop(table)

    async def orphans(self) -> list[str]:
        """Unfinished tables with bots, and those with a deadline passed or a reminder due: they need an owner
        even when nobody watches them."""
        with_bots = await self.store.read(self.store.unfinished_with_bots)
        due = await self.store.read(self.store.due_turns, naive_utc(self.settings.clock()))
        return list(dict.fromkeys([*with_bots, *due]))

    def listed(self) -> list[LobbyEntry]:
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

    def _row_listing(self, row: SessionRow) -> LobbyEntry:
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
        name: object,
        preset: object,
        options: object,
        seats: object,
        listed: bool,
        duplicate: bool,
        asked: Asked | None = None,
        custom: Mapping[str, object] | None = None,
        deal: DealRow | None = None,
    ) -> NewTable:
        """Everything a new table is, checked, with nothing stored yet (`aopen` stores it). `deal`: a deal
        of duplicate dice to play (a `DealRow`: its seed, sealed until it closes); `name` None: no name of
        its own (its pages call it after whoever sits first: no player's name is stored)."""
        name = "" if name is None else clean_name(name, "table name", TABLE_NAME_MAX)
        self.core.make_room()
        if not isinstance(options, dict) or len(options) > 20:
            raise TableError("input/invalid", "options must be an object")
        if custom is None and (not isinstance(preset, str) or len(preset) > 40):
            raise TableError("input/invalid", "preset must be a preset id")
        try:
            rules = load_ruleset(custom) if custom is not None else load_ruleset(str(preset), options or None)
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
                rows.append(SeatRow(i, s.kind, s.name, s.token_hash, s.bot, s.profile_id, device=s.device))
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
        table.recent = self.core.recent_of([])
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
        name: object,
        preset: object,
        options: object,
        seats: object,
        listed: bool = True,
        duplicate: bool = False,
        asked: Asked | None = None,
        custom: Mapping[str, object] | None = None,
    ) -> NewTable:
        """A new table checked in full, nothing made yet: a request is refused before it makes anything
        (a profile, a row); `aopen` then stores it."""
        return self._new(name, preset, options, seats, listed, duplicate, asked, custom)

    @staticmethod
    def _give_first_seat(new: NewTable, profile: str | None, device: str | None = None) -> None:
        """The creator's profile goes to the first person's seat of a new table (the others are guests);
        `device`: the creator's profile key (hash), the device that seat's token is given to."""
        first = next((i for i in sorted(new.tokens) if new.table.seats[i].kind == "human"), None)
        if profile is not None and first is not None:  # table.seats and row.seats are one list
            new.table.seats[first] = dataclasses.replace(new.table.seats[first], profile_id=profile, device=device)

    async def aopen(
        self, new: NewTable, profile: str | None = None, device: str | None = None
    ) -> tuple[LiveTable, dict[int, str]]:
        """Store a prepared table and take it into memory. `profile`: the creator's, given to the first
        person's seat (the others are guests), on the device whose profile key hashes to `device`."""
        self._give_first_seat(new, profile, device)
        await self.core.astore_new(new.row, self.turns.now_op(new.table))
        self.core.admit_new(new.table)
        return new.table, new.tokens

    def create(
        self,
        name: object,
        preset: object,
        options: object,
        seats: object,
        listed: bool = True,
        duplicate: bool = False,
        asked: Asked | None = None,
        custom: Mapping[str, object] | None = None,
        profile: str | None = None,
        device: str | None = None,
    ) -> tuple[LiveTable, dict[int, str]]:
        """A new table. Seats are {"kind": "human"|"open"|"bot", "name"}; humans get tokens (this device).
        `asked`: the creator's table settings (hints, clock, undo; see `settings.py`); `custom`: a
        ruleset of the players' own (house rules), instead of a preset; `profile`: the creator's.
        Blocks on the store: `acreate` is the same without blocking the event loop."""
        new = self._new(name, preset, options, seats, listed, duplicate, asked, custom)
        self._give_first_seat(new, profile, device)
        self.core.store_new(new.row, self.turns.now_op(new.table))
        self.core.admit_new(new.table)
        return new.table, new.tokens

    async def acreate(
        self,
        name: object,
        preset: object,
        options: object,
        seats: object,
        listed: bool = True,
        duplicate: bool = False,
        asked: Asked | None = None,
        custom: Mapping[str, object] | None = None,
        profile: str | None = None,
        deal: DealRow | None = None,
        device: str | None = None,
    ) -> tuple[LiveTable, dict[int, str]]:
        new = self._new(name, preset, options, seats, listed, duplicate, asked, custom, deal)
        return await self.aopen(new, profile, device)

    def check_join(self, table: LiveTable, name: object, seat: object = None) -> str:
        """A request to sit down checked before anything is made for it (a profile): the name as it will
        be shown; refused when no such seat is open. `join` checks again under the table's lock."""
        shown = clean_name(name)
        open_seats = [s.seat for s in table.seats if s.kind == "open"]
        if not open_seats:
            raise TableError("seat/none-open", "every seat at this table is taken", 409)
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat not in open_seats):
            raise TableError("seat/taken", "that seat is not open", 409)
        return shown

    async def join(
        self, table: LiveTable, name: object, seat: object = None, profile: str | None = None, device: str | None = None
    ) -> tuple[int, str]:
        """Sit down at an open seat: (the seat, its token). `profile`: the player's, on the device whose
        profile key hashes to `device` (signed out, the token goes)."""
        name = clean_name(name)
        if not table.owned:
            if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
                raise TableError("seat/taken", "that seat is not open", 409)  # as the owner would answer
            args: JSONObject = {"name": name, "seat": seat, "profile": profile, "device": device}
            result = await self.replica.forward(table, "join", args)
            await self.refresh(table)  # the new token works here at once
            taken, token = result["seat"], result["token"]
            if not isinstance(taken, int) or not isinstance(token, str):
                raise TableError("server/busy", "the table's server answered wrongly: try again", 503)
            return taken, token
        return await self._join_local(table, name, seat, profile, device)

    async def _join_local(
        self, table: LiveTable, name: str, seat: object, profile: str | None = None, device: str | None = None
    ) -> tuple[int, str]:
        device = device if profile is not None else None
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
                await self.store.write(Store.claim_seat_op(table.id, seat, name, hash_token(token), profile, device))
            except StoreConflict:
                raise TableError("seat/taken", "that seat is not open", 409) from None
            table.seats[seat] = SeatRow(seat, "human", name, hash_token(token), None, profile, device=device)
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
            was = table.settings
            asked: Asked = {"hints": was.hints, "clock": was.clock or 0, "undo": was.undo, "ranked": was.ranked}
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

    def downloadable_record(self, table_id: str) -> JSONObject:
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
    ) -> JSONObject | None:
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
                done = await self._act_owned(table, conn_seats, msg, key)
                return None if "event" not in done else self._ack(table, done, ref, conn_seats)  # a new event answers
            except Moved:  # the lease went elsewhere meanwhile
                pass
        # A forwarded action always carries a ref: sent again (no answer in time, a takeover), it is found.
        key = key or "~" + secrets.token_urlsafe(12)
        args: JSONObject = {"seats": [s for s in sorted(conn_seats)], "msg": msg.model_dump(), "ref": key}
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
    ) -> JSONObject:
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
    ) -> JSONObject | None:
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

    def _ack(self, table: LiveTable, done: JSONObject, ref: str | int | None, seats: set[int]) -> JSONObject | None:
        """The sender's answer for an action applied before (None: a new event, which answers it)."""
        logged = done.get("event")
        if not isinstance(logged, dict) or ref is None:
            return None
        event = public_event(logged, table.state, frozenset(seats))
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
            await self.core.commit(table, new_state, event.to_dict(), seat=event.player, ref=ref, also=fence)
            if event.type == "scored":
                table.last_entry = time.monotonic()
        metrics.LATENCY.observe(time.perf_counter() - start)
        self.bots.schedule(table)

    async def review(self, table: LiveTable) -> JSONObject:
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
    ) -> JSONObject:
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
        event: JSONObject = {
            "type": "nonce",
            "player": msg.seat,
            "nonce": msg.nonce.lower(),
            "roll": 0,
            "game_over": False,
        }
        secret = {**fair.block(revealed=False), "seed": fair.seed}
        table.fairness, before = fair, table.fairness
        try:
            also = Store.fairness_op(table.id, secret)
            await self.core.commit(table, table.state.with_dice(fair), event, seat=msg.seat, ref=ref, also=also)
        except BaseException:
            table.fairness = before
            raise

    async def commit_bot(self, table: LiveTable, seat: int, action: Action) -> None:
        """A bot's action (the caller, `Bots`, holds the table's lock)."""
        new_state, event = table.state.apply(action)
        mark = self._assisted(table, seat)  # a person's turn played by the stand-in
        data = event.to_dict()
        if table.seats[seat].kind == "human":  # the stand-in's move: the box it fills is marked on the sheet
            data["stand_in"] = True
            new_state = stood_in(new_state, data)
        self.stand_in.mark(table, seat, data)
        await self.core.commit(table, new_state, data, seat=event.player, also=mark)

    async def reissue(self, table: LiveTable, seat: int, device: str | None = None) -> str:
        """A new token for a person's seat, for another device of the profile that sits there (the caller
        checked the profile; `device`: its profile key's hash); the token the seat had before stops working."""
        token = new_token()
        row = table.seats[seat]
        if row.kind != "human" or row.profile_id is None:
            raise TableError("auth/not-your-seat", f"seat {seat} is nobody's to take back")
        await self.store.write(Store.seat_token_op(table.id, seat, row.profile_id, hash_token(token), device))
        table.seats[seat] = dataclasses.replace(row, token_hash=hash_token(token), device=device)
        if self.seating.held(table):  # sockets holding the old token lose the seat
            self.presence.changed(table)
        self.replica.publish(table, {"kind": "reload"})  # other processes' copies learn it from the store
        return token

    async def uncounted(self, table: LiveTable, seat: int) -> None:
        """The seat's score will not count: a practice game of a deal whose dice its player has seen."""
        mark = self._assisted(table, seat)
        if mark is not None:
            await self.store.write(mark)

    def _assisted(self, table: LiveTable, seat: int) -> Op | None:
        """The seat asked the coach or a bot played for it: its score will not count (leaderboards, bests).
        Returns the write to make (None when already marked)."""
        row = table.seats[seat]
        if row.kind != "human" or row.assisted:
            return None
        table.seats[seat] = dataclasses.replace(row, assisted=True)
        return Store.assisted_op(table.id, seat)
