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
import hashlib
import logging
import random
import secrets
from collections.abc import Iterable
from datetime import date, datetime, time, timedelta
from typing import Any, Protocol

from ...bots import choose_action
from ...bots.optimal import solvable
from ...engine import FairDice, GameState, new_game
from ...engine.fairness import commitment
from ...rules import load_ruleset
from ...store import DealRow, ProfileRow, SeatRow, Store, StoreConflict, TournamentRow
from ..common.dice import DealDice, naive
from ..common.names import clean_name
from ..common.tokens import hash_token
from ..live import RequestError
from ..settings import Settings

__all__ = ["DAILY_PRESETS", "DealError", "DealManager", "daily_id", "keep_dealing"]

log = logging.getLogger("yambak.server")

DAILY_PRESETS = ("yams", "yatzy", "yammen", "yamb")
DAY = timedelta(days=1)
ROUNDS = (1, 20)
WINDOW_MINUTES = (5, 7 * 24 * 60)
TOURNAMENT_NAME_MAX = 60


class DealError(RequestError):
    """A refused request about a deal or a tournament (coded, never a traceback)."""


class Tables(Protocol):
    """What deals need of the live tables (the table manager; the app hands it over)."""

    async def aget(self, table_id: str) -> Any: ...

    async def acreate(self, *args: Any, **kwargs: Any) -> tuple[Any, dict[int, str]]: ...

    async def reissue(self, table: Any, seat: int) -> str: ...

    async def uncounted(self, table: Any, seat: int) -> None: ...

    def store_finished(
        self, name: str, state: GameState, seats: list[SeatRow], fair: FairDice, deal: str | None = None
    ) -> str: ...


def daily_id(day: date, preset: str) -> str:
    return f"daily:{day.isoformat()}:{preset}"


def par_bot(preset: str) -> str:
    """The bot whose score is the par: the optimal one where the solver has an exact table."""
    return "optimal" if solvable(load_ruleset(preset)) else "strong"


class DealManager:
    def __init__(self, store: Store, settings: Settings, tables: Tables) -> None:
        self.store = store
        self.settings = settings
        self.tables = tables

    def now(self) -> datetime:
        return naive(self.settings.clock())

    def today(self) -> date:
        return self.now().date()

    def closed(self, deal: DealRow) -> bool:
        return self.now() >= deal.closes_at

    # --- the daily challenge -----------------------------------------------------------------------

    def daily(self, day: date, preset: str) -> DealRow | None:
        """A day's deal of a preset (blocking). Today's is made the first time it is asked for: its seed
        drawn and committed, its par played; an earlier day without one had no challenge."""
        if preset not in DAILY_PRESETS:
            raise DealError("deal/unknown", f"the daily challenge is played with {', '.join(DAILY_PRESETS)}", 404)
        deal = self.store.get_deal(daily_id(day, preset))
        if deal is None and day == self.today():
            opens = datetime.combine(day, time())
            seed = secrets.token_hex(32)
            made = DealRow(daily_id(day, preset), "daily", preset, seed, commitment(seed), opens, opens + DAY)
            deal, _ = self.store.ensure_deal(made)
        if deal is not None and deal.par_table is None:
            deal = self.play_par(deal)
        return deal

    def prepare(self) -> list[DealRow]:
        """Today's deals, made now where they are not yet (blocking)."""
        return [d for p in DAILY_PRESETS if (d := self.daily(self.today(), p)) is not None]

    def play_par(self, deal: DealRow) -> DealRow:
        """The bot's game on the deal, stored as a finished table; the deal with its par (blocking)."""
        try:
            bot = par_bot(deal.preset)
            rules = load_ruleset(deal.preset)
            fair = DealDice(deal.seed, (), True, deal.id, deal.closes_at, self.settings.clock)
            label = "Optimal bot" if bot == "optimal" else "Strong bot"
            state = new_game(rules, [label], dice=fair, simultaneous=True)
            rng = random.Random(deal.id)
            while not state.finished:
                state, _ = state.apply(choose_action(state, state.to_act()[0], bot, rng))
            seats = [SeatRow(0, "bot", label, None, bot)]
            table_id = self.tables.store_finished(f"Par {deal.id}"[:60], state, seats, fair, deal.id)
            self.store.set_par(deal.id, state.total(0), bot, table_id)
        except Exception:  # the challenge goes on without a par
            log.exception("deal %s: no par", deal.id)
            return deal
        return self.store.get_deal(deal.id) or deal

    # --- playing a deal ----------------------------------------------------------------------------

    async def start(
        self, deal: DealRow, profile: ProfileRow, tokens: Iterable[str] = ()
    ) -> tuple[Any, dict[int, str], bool]:
        """The profile's table at the deal: (table, new seat tokens, whether it counts). Its unfinished
        counted attempt is given back (with a new seat token for a device without one: the profile
        plays on from another device); once that is over, another table is practice."""
        now = self.now()
        if now < deal.opens_at:
            raise DealError("deal/not-open", "this round is not open yet", 409)
        if now >= deal.closes_at:
            raise DealError("deal/closed", "this deal is closed: its dice are public now", 409)
        if deal.tournament_id is not None:
            players = await self.store.read(self.store.tournament_players, deal.tournament_id)
            if profile.id not in {p for p, _ in players}:
                raise DealError("deal/not-invited", "only the tournament's players play its rounds", 403)
        existing = await self.store.read(self.store.entry, deal.id, profile.id)
        if existing is not None:
            table = await self.tables.aget(existing)
            if not table.state.finished:
                if 0 in table.seats_for({hash_token(t) for t in tokens}):
                    return table, {}, True
                return table, {0: await self.tables.reissue(table, 0)}, True
        name = f"{deal.preset} {deal.opens_at:%Y-%m-%d}" if deal.kind == "daily" else f"Round {deal.round}"
        seats = [{"kind": "human", "name": clean_name(profile.name)}]
        table, new = await self.tables.acreate(name, deal.preset, {}, seats, False, True, None, None, profile.id, deal)
        counted = existing is None
        if counted:
            try:
                await self.store.write(Store.add_entry_op(deal.id, profile.id, table.id, now))
            except StoreConflict:  # the same profile started twice at once: the other table counts
                counted = False
        if not counted:  # practice on dice already seen: no board, no best score
            await self.tables.uncounted(table, 0)
        return table, new, counted

    # --- club tournaments ----------------------------------------------------------------------------

    def create_tournament(
        self, name: Any, preset: Any, rounds: Any, window: Any, organiser: ProfileRow
    ) -> tuple[TournamentRow, str]:
        """A tournament and all its rounds' deals (their seeds committed now): round k is open from
        now + (k - 1) windows for one window. Returns it and its invite code (blocking)."""
        name = clean_name(name, "tournament name", TOURNAMENT_NAME_MAX)
        if not isinstance(preset, str) or preset not in DAILY_PRESETS + ("yams-fr", "yams-de", "yamb-6"):
            raise DealError("input/rules", "choose a ruleset")
        if not isinstance(rounds, int) or not ROUNDS[0] <= rounds <= ROUNDS[1]:
            raise DealError("input/invalid", f"a tournament has {ROUNDS[0]} to {ROUNDS[1]} rounds")
        if not isinstance(window, int) or not WINDOW_MINUTES[0] <= window <= WINDOW_MINUTES[1]:
            raise DealError("input/invalid", "a round is open from 5 minutes to 7 days")
        now = self.now().replace(microsecond=0)
        tid, code = secrets.token_urlsafe(9), secrets.token_urlsafe(12)
        t = TournamentRow(tid, name, preset, organiser.id, code, rounds, window, now, now)
        deals = []
        for k in range(1, rounds + 1):
            seed = secrets.token_hex(32)
            opens = now + timedelta(minutes=window * (k - 1))
            deals.append(
                DealRow(
                    f"club:{tid}:{k}",
                    "club",
                    preset,
                    seed,
                    commitment(seed),
                    opens,
                    opens + timedelta(minutes=window),
                    tid,
                    k,
                )
            )
        self.store.create_tournament(t, deals)
        return t, code

    def join(self, tournament: TournamentRow, code: Any, profile: ProfileRow) -> bool:
        """A profile joins by the invite code (blocking); False when it was a player already."""
        if not isinstance(code, str) or not secrets.compare_digest(
            hashlib.sha256(code.encode()).digest(), hashlib.sha256(tournament.invite.encode()).digest()
        ):
            raise DealError("deal/invite", "this invite link is not valid", 403)
        if self.now() >= tournament.starts_at + timedelta(minutes=tournament.window_minutes * tournament.rounds):
            raise DealError("deal/closed", "this tournament is over", 409)
        return self.store.join_tournament(tournament.id, profile.id, self.now())

    def current_round(self, deals: list[DealRow]) -> DealRow | None:
        now = self.now()
        return next((d for d in deals if d.opens_at <= now < d.closes_at), None)


async def keep_dealing(deals: DealManager, every: float = 60.0) -> None:
    """Each day's deals are made within a minute of its start (seeds drawn, commitments published, pars
    played), if no one asked for them before; a running server checks once a minute."""
    while True:
        await asyncio.sleep(every)
        try:
            await asyncio.to_thread(deals.prepare)
        except Exception:  # the challenge must never stop the server; the first request makes them then
            log.exception("the day's deals")
