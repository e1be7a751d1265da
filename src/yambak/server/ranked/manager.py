"""Ranked tables: games of a preset (its usual options) between 2 to 8 profiles, on server dice with the
players' nonces, without hints or undo, with the turn clock; "Play ranked" seats a player at a table of
that preset and size waiting for players, or opens one. The game starts once every seat is taken.

A finished ranked game rates its players with OpenSkill's Plackett-Luce model (a maintained library for
free-for-all games of any size) by their places, the engine's standings; a player who left (not connected
when the stand-in took over at their turn's clock, twice in the game) shares the last place. It rates a
profile from the day after it was made, and a pair of profiles at most three times a day (a fourth game
together rates neither of them); fewer than two players left to rate: none. The ratings are stored in the
transaction of the game's last event, with what the game did to each player (the results page shows it).
The ladder ranks by OpenSkill's ordinal, mu - 3 sigma; fewer than ten rated games is provisional.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, time, timedelta
from itertools import combinations
from typing import Any, Protocol

from openskill.models import PlackettLuce

from ...rules import preset_ids
from ...store import ChangeRow, ProfileRow, Store, StoreConflict
from ..common.clock import naive_utc
from ..common.events import Events, GameEnding, Write
from ..live import RequestError
from ..settings import Settings

__all__ = ["PAIR_LIMIT", "PROVISIONAL", "RankedError", "RankedManager", "ordinal", "places"]

log = logging.getLogger("yambak.server")

MODEL = PlackettLuce()
PROVISIONAL = 10  # rated games before a rating is more than provisional
PAIR_LIMIT = 3  # rated games a day between the same two profiles
SEATS = (2, 8)
WAITING = timedelta(minutes=30)  # a ranked table nobody joined for this long is not offered any more
ABSENT_TWICE = 2  # stand-in turns while away: the player left


class RankedError(RequestError):
    """A refused request about ranked games (coded, never a traceback)."""


class Tables(Protocol):
    """What ranked games need of the live tables (the table manager; the app hands it over)."""

    async def aget(self, table_id: str) -> Any: ...

    async def acreate(self, *args: Any, **kwargs: Any) -> tuple[Any, dict[int, str]]: ...

    async def join(
        self, table: Any, name: Any, seat: Any = None, profile: str | None = None, device: str | None = None
    ) -> tuple[int, str]: ...


def ordinal(mu: float, sigma: float) -> float:
    """OpenSkill's conservative rating: mu - 3 sigma."""
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal())


def places(standings: list[int], left: set[int]) -> list[int]:
    """Places to rate by: the engine's standings among those who stayed; everyone who left shares the last.

    >>> places([1, 2, 2, 4], {1})
    [1, 4, 2, 3]
    """
    stayed = [s for s in range(len(standings)) if s not in left]
    return [
        len(stayed) + 1 if s in left else 1 + sum(1 for o in stayed if standings[o] < standings[s])
        for s in range(len(standings))
    ]


class RankedManager:
    def __init__(self, store: Store, settings: Settings, tables: Tables, events: Events) -> None:
        self.store = store
        self.settings = settings
        self.tables = tables
        events.on(GameEnding, self._rate)

    def now(self) -> datetime:
        return naive_utc(self.settings.clock())

    # --- seating ---------------------------------------------------------------------------------------

    @staticmethod
    def admit(table: Any) -> None:
        """A ranked game starts once every seat is taken (TableManager asks before it accepts an action)."""
        if table.settings.ranked is not None and any(s.kind == "open" for s in table.seats):
            raise RankedError("ranked/waiting", "a ranked game starts when every seat is taken", 409)

    async def play(self, preset: Any, players: Any, profile: ProfileRow) -> tuple[Any, dict[int, str]]:
        """Seat the profile at a ranked table of the preset and size that waits for players (the oldest),
        or open one. Returns the table and this device's seat token."""
        if not isinstance(preset, str) or preset not in preset_ids():
            raise RankedError("ranked/preset", "ranked games are played with the presets", 404)
        if not isinstance(players, int) or isinstance(players, bool) or not SEATS[0] <= players <= SEATS[1]:
            raise RankedError("input/invalid", f"a ranked table has {SEATS[0]} to {SEATS[1]} players", 422)
        since = datetime.now(UTC).replace(tzinfo=None) - WAITING  # tables are stamped by the store's clock
        for table_id in await self.store.read(self.store.waiting_tables, preset, players, profile.id, since):
            try:
                table = await self.tables.aget(table_id)
                seat, token = await self.tables.join(table, profile.name, None, profile.id, profile.key)
            except (RequestError, StoreConflict):  # taken meanwhile: the next one
                continue
            return table, {seat: token}
        seats = [{"kind": "human", "name": profile.name}] + [{"kind": "open"}] * (players - 1)
        asked = {"ranked": preset, "hints": False, "undo": False}
        return await self.tables.acreate(
            None, preset, {}, seats, False, False, asked, None, profile.id, device=profile.key
        )

    async def join(self, table_id: str, profile: ProfileRow) -> tuple[Any, dict[int, str]]:
        """Take an open seat at one ranked table (the ranked page lists those waiting)."""
        table = await self.tables.aget(table_id)
        if table.settings.ranked is None:
            raise RankedError("ranked/none", "this table is not ranked", 404)
        seat, token = await self.tables.join(table, profile.name, None, profile.id, profile.key)
        return table, {seat: token}

    # --- rating a finished game ------------------------------------------------------------------------

    def _rate(self, ending: GameEnding) -> Write | None:
        """The ratings a ranked game's end changes, stored with its last event."""
        if ending.ranked is None:
            return None
        preset, at = ending.ranked, ending.at
        seats = [(s.seat, s.profile_id) for s in ending.seats if s.kind == "human"]
        standings = ending.state.standings()

        def op(conn: Any) -> list[ChangeRow]:
            left = {seat for seat, n in Store.absences(conn, ending.table_id).items() if n >= ABSENT_TWICE}
            place = places(standings, left)
            day = datetime.combine(at.date(), time())
            made = Store.profiles_made(conn, [p for _, p in seats if p is not None])
            why: dict[int, str] = {}
            for seat, pid in seats:
                if pid is None or pid not in made or made[pid] >= day:
                    why[seat] = "new"  # a profile rates from the day after it was made (a deleted one: never)
            ids = {seat: pid for seat, pid in seats if seat not in why and pid is not None}
            Store.lock_profiles(conn, ids.values())
            for (a, pa), (b, pb) in combinations(sorted(ids.items()), 2):
                if Store.rated_together(conn, pa, pb, day) >= PAIR_LIMIT:
                    why[a] = why[b] = "pair"
            rated = [seat for seat in ids if seat not in why]
            if len(rated) < 2:
                why.update({seat: "alone" for seat in rated})
                rated = []
            now = Store.lock_ratings(conn, preset, [ids[s] for s in rated], MODEL.mu, MODEL.sigma, at)
            before = {s: now[ids[s]] for s in rated}
            teams = MODEL.rate(
                [[MODEL.rating(mu=before[s][0], sigma=before[s][1])] for s in rated], ranks=[place[s] for s in rated]
            ) if rated else []  # fmt: skip
            after = {s: (team[0].mu, team[0].sigma) for s, team in zip(rated, teams, strict=True)}
            changes = []
            for seat, pid in seats:
                old = before.get(seat)
                new = after.get(seat)
                changes.append(
                    ChangeRow(
                        seat, pid, place[seat], seat in after, why.get(seat), seat in left,
                        old[0] if old else None, old[1] if old else None, new[0] if new else None,
                        new[1] if new else None,
                    )
                )  # fmt: skip
            Store.store_ratings(conn, ending.table_id, preset, changes, at)
            return changes

        return Write(op)

    # --- what the pages show ---------------------------------------------------------------------------

    def changes(self, table_id: str, preset: str, names: list[str]) -> list[dict[str, Any]]:
        """A finished ranked game's rating changes, by seat, as the results page shows them (blocking)."""
        rows = self.store.changes(table_id)
        games = {
            r.profile_id: r.games for r in self.store.ratings_of((c.profile_id for c in rows if c.profile_id), preset)
        }

        def shown(mu: float | None, sigma: float | None) -> float | None:
            return round(ordinal(mu, sigma), 1) if mu is not None and sigma is not None else None

        return [
            {
                "seat": c.seat,
                "name": names[c.seat] if c.seat < len(names) else "",
                "place": c.place,
                "rated": c.rated,
                "why": c.reason,
                "left": c.left_early,
                "before": shown(c.mu_before, c.sigma_before),
                "after": shown(c.mu_after, c.sigma_after),
                "games": games.get(c.profile_id) if c.profile_id else None,
            }
            for c in rows
        ]
