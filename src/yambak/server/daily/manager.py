"""Deals of duplicate dice: the daily challenge (one deal a UTC day for each of a few presets) and the
rounds of club tournaments; starting an entrant's table on a deal; the par.

A deal's seed is drawn from the CSPRNG when the deal is made (the first time anyone asks for the day's
deal, or when a tournament is created, for all its rounds) and only its commitment is shown until the
deal closes; the entrants' tables play it with `DealDice`, which keep it sealed in their records and
views until then. Every entrant plays alone, so the dice cannot depend on anyone's holds: a player's
first table at a deal is their counted attempt (`deal_entries`), later ones are practice.

The par is a bot's game on the same dice, stored as a finished table (its review and record are a
table's): the optimal bot where the exact solver has a table for the ruleset, the strong bot (and
labelled so) where it has none.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import threading
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from datetime import date, datetime, time, timedelta
from typing import Any, Protocol

from sqlalchemy import Connection

from ...bots import choose_action
from ...bots.optimal import solvable
from ...engine import Action, FairDice, GameState, new_game
from ...engine.fairness import commitment
from ...rules import load_ruleset
from ...rules.registry import daily_presets
from ...store import DealRow, ProfileRow, SeatRow, Store, StoreConflict
from ..common.asked import Asked
from ..common.coach import CoachPool
from ..common.dice import DealDice, naive
from ..common.names import clean_name
from ..common.tokens import hash_token
from ..live import RequestError
from ..settings import Settings

__all__ = ["DealError", "DealManager", "daily_id", "daily_presets", "keep_dealing"]

log = logging.getLogger("yambak.server")

DAY = timedelta(days=1)


class DealError(RequestError):
    """A refused request about a deal or a tournament (coded, never a traceback)."""


class DealTable(Protocol):
    """What a deal reads of a live table (`tables.LiveTable`)."""

    @property
    def id(self) -> str: ...

    @property
    def state(self) -> GameState: ...

    def seats_for(self, hashes: set[str]) -> set[int]: ...


class Tables(Protocol):
    """What deals need of the live tables (the table manager; the app hands it over)."""

    coach: CoachPool  # where the par bot plays

    async def aget(self, table_id: str) -> DealTable: ...

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
    ) -> tuple[DealTable, dict[int, str]]: ...

    # `table`: one `aget` or `acreate` gave. Typed `Any`: the manager's method takes only its own
    # `LiveTable`, which this package may not name, and a protocol's parameter may not be wider than that
    async def reissue(self, table: Any, seat: int, device: str | None = None) -> str: ...

    async def uncounted(self, table: Any, seat: int) -> None: ...

    async def reload_names(self, table_ids: list[str]) -> None: ...

    def store_finished(
        self, name: str, state: GameState, seats: list[SeatRow], fair: FairDice, deal: str | None = None
    ) -> str: ...


def daily_id(day: date, preset: str) -> str:
    return f"daily:{day.isoformat()}:{preset}"


def par_bot(preset: str) -> str:
    """The bot whose score is the par: the optimal one where the solver has an exact table."""
    return "optimal" if solvable(load_ruleset(preset)) else "strong"


class DealManager:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        tables: Tables,
        background: Callable[..., Future[Any]] | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.tables = tables
        # where the day's pars are played when nobody waits for them (`keep_dealing`): the grades' coach
        # process, which runs only on a core nothing else wants; a request that needs a par now asks the
        # advice's (`tables.coach`, a lower priority than the server's, not the lowest)
        self.background = background
        self._playing: set[str] = set()  # deals whose par is being played: never twice at once
        self._lock = threading.Lock()

    def now(self) -> datetime:
        return naive(self.settings.clock())

    def today(self) -> date:
        return self.now().date()

    def closed(self, deal: DealRow) -> bool:
        return deal.closed(self.now())

    def refusal(self, deal: DealRow | None, status: str | None) -> DealError | None:
        """Why a deal's table takes no action now, if it does not: not open, paused, closed or cancelled,
        or its player was removed from the tournament."""
        now = self.now()
        if deal is None:
            return DealError("deal/unknown", "there is no such deal", 404)
        if deal.cancelled:
            return DealError("deal/cancelled", "this round was cancelled: it counts for nobody", 409)
        if deal.closed(now):
            return DealError("deal/closed", "this deal closed: the game stays unfinished and does not count", 409)
        if deal.paused_at is not None:
            return DealError("deal/paused", "the organiser paused the tournament: wait for it to go on", 409)
        if now < deal.opens_at:
            return DealError("deal/not-open", "this round is not open yet", 409)
        if deal.tournament_id is not None and status != "player":
            return DealError("deal/not-invited", "only the tournament's players play its rounds", 403)
        return None

    def admit(self, table: Any) -> Any:
        """The fence of a deal table's actions (TableManager calls it where it accepts one): refused at
        once when the deal is known here to be closed; otherwise a check made again in the transaction
        that stores the action, against the deal as stored and the server's clock then, so that a game
        counts only when its last event was committed before the close. None for other tables."""
        deal_id = table.settings.deal
        if not deal_id:
            return None
        if isinstance(table.fairness, DealDice) and table.fairness.closed():
            raise DealError("deal/closed", "this deal closed: the game stays unfinished and does not count", 409)
        player = next((s.profile_id for s in table.seats if s.kind == "human"), None)

        def fence(conn: Connection) -> None:
            deal = Store.deal_in(conn, deal_id)
            status: str | None = "player"  # a deleted profile's seat plays on: its game has no result to count
            if deal is not None and deal.tournament_id is not None and player is not None:
                status = Store.player_status(conn, deal.tournament_id, player)
            refused = self.refusal(deal, status)
            if refused is not None:
                raise refused

        return fence

    # --- the daily challenge -----------------------------------------------------------------------

    def daily(self, day: date, preset: str, background: bool = False) -> DealRow | None:
        """A day's deal of a preset (blocking). Today's is made the first time it is asked for: its seed
        drawn and committed, its par played (`background`: where nobody waits, see `play_par`); an
        earlier day without one had no challenge."""
        if preset not in daily_presets():
            raise DealError("deal/unknown", f"the daily challenge is played with {', '.join(daily_presets())}", 404)
        deal = self.store.get_deal(daily_id(day, preset))
        if deal is None and day == self.today():
            opens = datetime.combine(day, time())
            seed = secrets.token_hex(32)
            made = DealRow(daily_id(day, preset), "daily", preset, seed, commitment(seed), opens, opens + DAY)
            deal, _ = self.store.ensure_deal(made)
        if deal is not None and deal.par_table is None:
            deal = self.play_par(deal, background)
        return deal

    def prepare(self, background: bool = False) -> list[DealRow]:
        """Today's deals, made now where they are not yet (blocking)."""
        return [d for p in daily_presets() if (d := self.daily(self.today(), p, background)) is not None]

    def play_par(self, deal: DealRow, background: bool = False) -> DealRow:
        """The bot's game on the deal, stored as a finished table; the deal with its par (blocking). A par
        being played already is not played again: the deal is answered as it is (without its par yet).
        `background`: nobody waits for it (each day's deals made by a running server), so the bot thinks
        in the process of the lowest priority (measured with bench/load.py: the pars played at nice 10
        a minute after a fresh server's start took that minute's p99 from 75 to 150 ms in one run)."""
        with self._lock:
            if deal.id in self._playing:
                return deal
            self._playing.add(deal.id)
        try:
            played = self.store.get_deal(deal.id)
            if played is not None and played.par_table is not None:  # by another thread since `deal` was read
                return played
            bot = par_bot(deal.preset)
            label = "Optimal bot" if bot == "optimal" else "Strong bot"
            # the bot thinks in a coach's process (a whole game of it here would hold the interpreter lock
            # the players' moves wait for, at every server's start and each midnight); its moves replay here
            run = self.background if background and self.background is not None else self.tables.coach.submit
            actions, total = run(par_actions, deal.preset, deal.seed, deal.id, bot, label).result()
            fair = DealDice(deal.seed, (), True, deal.id, deal.closes_at, self.settings.clock)
            state = new_game(load_ruleset(deal.preset), [label], dice=fair, simultaneous=True)
            for action in actions:
                state, _ = state.apply(action)
            if not state.finished or state.total(0) != total:  # the same dice here as there, or no par
                raise RuntimeError(f"the par game of {deal.id} replayed to {state.total(0)}, not {total}")
            seats = [SeatRow(0, "bot", label, None, bot)]
            table_id = self.tables.store_finished(f"Par {deal.id}"[:60], state, seats, fair, deal.id)
            won = state.outright.turn if state.outright is not None else None  # a win at once, said as such
            self.store.set_par(deal.id, state.total(0), bot, table_id, won)
        except Exception:  # the challenge goes on without a par
            log.exception("deal %s: no par", deal.id)
            return deal
        finally:
            with self._lock:
                self._playing.discard(deal.id)
        return self.store.get_deal(deal.id) or deal

    # --- playing a deal ----------------------------------------------------------------------------

    async def start(
        self, deal: DealRow, profile: ProfileRow, tokens: Iterable[str] = ()
    ) -> tuple[DealTable, dict[int, str], bool]:
        """The profile's table at the deal: (table, new seat tokens, whether it counts). Its unfinished
        counted attempt is given back (with a new seat token for a device without one: the profile
        plays on from another device); once that is over, another table is practice."""
        now = self.now()
        status = None
        if deal.tournament_id is not None:
            members = await self.store.read(self.store.tournament_players, deal.tournament_id)
            status = next((m.status for m in members if m.profile_id == profile.id), None)
        refused = self.refusal(deal, status)
        if refused is not None:
            raise refused
        existing = await self.store.read(self.store.entry, deal.id, profile.id)
        if existing is not None:
            table = await self.tables.aget(existing)
            if not table.state.finished:
                if 0 in table.seats_for({hash_token(t) for t in tokens}):
                    return table, {}, True
                return table, {0: await self.tables.reissue(table, 0, profile.key)}, True
        name = f"{deal.preset} {deal.opens_at:%Y-%m-%d}" if deal.kind == "daily" else f"Round {deal.round}"
        seats = [{"kind": "human", "name": clean_name(profile.name)}]
        table, new = await self.tables.acreate(
            name, deal.preset, {}, seats, False, True, None, None, profile.id, deal, profile.key
        )
        counted = existing is None
        if counted:
            try:
                await self.store.write(Store.add_entry_op(deal.id, profile.id, table.id, now))
            except StoreConflict:  # the same profile started twice at once: the other table counts
                counted = False
        if not counted:  # practice on dice already seen: no board, no best score
            await self.tables.uncounted(table, 0)
        return table, new, counted


def par_actions(preset: str, seed: str, deal_id: str, bot: str, label: str) -> tuple[list[Action], int]:
    """The par bot's whole game on a deal's dice: its actions and its total (run in the coach's process)."""
    state = new_game(load_ruleset(preset), [label], dice=DealDice(seed, (), True, deal_id), simultaneous=True)
    rng = random.Random(deal_id)
    actions: list[Action] = []
    while not state.finished:
        action = choose_action(state, state.to_act()[0], bot, rng)
        state, _ = state.apply(action)
        actions.append(action)
    return actions, state.total(0)


async def keep_dealing(deals: DealManager, every: float = 60.0) -> None:
    """Each day's deals are made within a minute of its start (seeds drawn, commitments published, pars
    played), if no one asked for them before; a running server checks once a minute."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(deals.prepare, True)
        except Exception:  # the challenge must never stop the server; the first request makes them then
            log.exception("the day's deals")
