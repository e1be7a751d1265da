"""Ranked tables: games of a preset (its usual options) between 2 to 8 profiles, on server dice with the
players' nonces, without hints or undo, with the turn clock; "Play ranked" seats a player at a table of
that preset and size waiting for players, or opens one. The game starts once every seat is taken.

A finished ranked game rates its players with OpenSkill's Plackett-Luce model (a maintained library for
free-for-all games of any size) by their places, the engine's standings; a player who left (not connected
when the stand-in took over at their turn's clock, twice in the game) shares the last place. It rates a
profile from the day after it was made; a pair of profiles at most three times a day, and never two
profiles that share a device or a client address (keyed hashes, kept 30 days). Each player is rated by a
Plackett-Luce game of their own: themselves and the opponents they may be rated with, keeping only their own
row (two players who may not rate each other never void a third's game); a player with no such opponent is
not rated. The ratings are stored in the transaction of the game's last event, with what the game did to
each player (the results page shows it). The ladder ranks by OpenSkill's ordinal, mu - 3 sigma; fewer than
ten rated games is provisional, listed apart and below. "Play ranked" seats a player only with players whose
ordinal is within a window of theirs, wider the longer the table has waited.
Once graded, a thrown game gives nobody a rise after all (the fair-play review, `fairplay.py`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, time, timedelta
from itertools import combinations
from typing import Any, Protocol

from openskill.models import PlackettLuce
from sqlalchemy import Connection

from ...rules import preset_ids
from ...store import ChangeRow, ProfileRow, Store, StoreConflict
from ..common.asked import Asked
from ..common.clock import naive_utc
from ..common.events import Events, GameEnding, Graded, Write
from ..live import RequestError
from ..settings import Settings
from . import fairplay

__all__ = [
    "MARKS_KEPT",
    "PAIR_LIMIT",
    "PROVISIONAL",
    "RankedError",
    "RankedManager",
    "ordinal",
    "places",
    "rate_each",
    "window",
]

log = logging.getLogger("yambak.server")

MODEL = PlackettLuce()
PROVISIONAL = 10  # rated games before a rating is more than provisional
PAIR_LIMIT = 3  # rated games a day between the same two profiles
SEATS = (2, 8)
WAITING = timedelta(minutes=30)  # a ranked table nobody joined for this long is not offered any more
ABSENT_TWICE = 2  # stand-in turns while away: the player left
WINDOW = 5.0  # "Play ranked" seats players whose ordinals differ by at most this ...
WIDEN = 5.0  # ... and this more for every WIDEN_EVERY the table has waited
WIDEN_EVERY = timedelta(seconds=30)
MARKS_KEPT = timedelta(days=30)  # a device's or an address's mark ties profiles this long after it was seen


class RankedError(RequestError):
    """A refused request about ranked games (coded, never a traceback)."""


class Tables(Protocol):
    """What ranked games need of the live tables (the table manager; the app hands it over)."""

    async def aget(self, table_id: str) -> Any: ...

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
        deal: None = None,  # a ranked game plays no deal
        device: str | None = None,
    ) -> tuple[Any, dict[int, str]]: ...

    async def join(
        self, table: Any, name: object, seat: object = None, profile: str | None = None, device: str | None = None
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


def window(waited: timedelta) -> float:
    """How far apart in ordinal the players of a ranked table may be once it has waited this long.

    >>> window(timedelta(seconds=29)), window(timedelta(seconds=30)), window(timedelta(minutes=2))
    (5.0, 10.0, 25.0)
    """
    return WINDOW + WIDEN * max(0, math.floor(waited / WIDEN_EVERY))


def rate_each(
    before: dict[int, tuple[float, float]], place: dict[int, int], opponents: dict[int, set[int]]
) -> dict[int, tuple[float, float]]:
    """Each player's (mu, sigma) after a Plackett-Luce game of their own: themselves and the opponents they
    may be rated with, by their places; only their own row is kept. Where everyone may rate everyone this is
    the whole game's rating."""
    after: dict[int, tuple[float, float]] = {}
    for seat, others in opponents.items():
        if not others:
            continue
        group = [seat, *sorted(others)]
        teams = MODEL.rate(
            [[MODEL.rating(mu=before[s][0], sigma=before[s][1])] for s in group], ranks=[place[s] for s in group]
        )
        after[seat] = (teams[0][0].mu, teams[0][0].sigma)
    return after


class RankedManager:
    def __init__(self, store: Store, settings: Settings, tables: Tables, events: Events) -> None:
        self.store = store
        self.settings = settings
        self.tables = tables
        self._mark_key: bytes | None = None
        events.on(GameEnding, self._rate)
        events.on(Graded, lambda graded: fairplay.review(graded, self.now()))  # thrown games

    def now(self) -> datetime:
        return naive_utc(self.settings.clock())

    # --- seating ---------------------------------------------------------------------------------------

    @staticmethod
    def admit(table: Any) -> None:
        """A ranked game starts once every seat is taken (TableManager asks before it accepts an action)."""
        if table.settings.ranked is not None and any(s.kind == "open" for s in table.seats):
            raise RankedError("ranked/waiting", "a ranked game starts when every seat is taken", 409)

    async def play(
        self, preset: Any, players: Any, profile: ProfileRow, key_hash: str = "", address: str = "", browser: str = ""
    ) -> tuple[Any, dict[int, str]]:
        """Seat the profile at a ranked table of the preset and size that waits for players near its rating
        (the oldest that fits: `fits`), or open one. `key_hash`, `address`, `browser`: the asking device's
        key, client address and browser id (their marks are noted). Returns the table and this device's seat token."""
        if not isinstance(preset, str) or preset not in preset_ids():
            raise RankedError("ranked/preset", "ranked games are played with the presets", 404)
        if not isinstance(players, int) or isinstance(players, bool) or not SEATS[0] <= players <= SEATS[1]:
            raise RankedError("input/invalid", f"a ranked table has {SEATS[0]} to {SEATS[1]} players", 422)
        await self.store.read(self.note, profile.id, key_hash, address, "", browser)
        since = datetime.now(UTC).replace(tzinfo=None) - WAITING  # tables are stamped by the store's clock
        waiting = await self.store.read(self.store.waiting_for, preset, players, profile.id, since)
        rated = await self.store.read(self._ordinals, [p for w in waiting for p in w.profiles] + [profile.id], preset)
        now = self.now()
        for w in waiting:
            if not self.fits(rated[profile.id], [rated[p] for p in w.profiles], now - (w.since or now)):
                continue
            try:
                table = await self.tables.aget(w.table_id)
                seat, token = await self.tables.join(table, profile.name, None, profile.id, profile.key)
            except (RequestError, StoreConflict):  # taken meanwhile: the next one
                continue
            return table, {seat: token}
        seats = [{"kind": "human", "name": profile.name}] + [{"kind": "open"}] * (players - 1)
        asked: Asked = {"ranked": preset, "hints": False, "undo": False}
        table, tokens = await self.tables.acreate(
            None, preset, {}, seats, False, False, asked, None, profile.id, device=profile.key
        )
        await self.store.read(self.store.wait_from, table.id, now)
        return table, tokens

    async def join(
        self, table_id: str, profile: ProfileRow, key_hash: str = "", address: str = "", browser: str = ""
    ) -> tuple[Any, dict[int, str]]:
        """Take an open seat at one ranked table, where its players' ratings are within the window of this
        profile's (as "Play ranked" would seat it); `ranked/window` otherwise."""
        table = await self.tables.aget(table_id)
        if table.settings.ranked is None:
            raise RankedError("ranked/none", "this table is not ranked", 404)
        await self.store.read(self.note, profile.id, key_hash, address, "", browser)
        seated = [s.profile_id for s in table.seats if s.kind == "human" and s.profile_id]
        rated = await self.store.read(self._ordinals, [*seated, profile.id], table.settings.ranked)
        since = await self.store.read(self.store.wait_since, table.id)
        now = self.now()
        near = self.fits(rated[profile.id], [rated[p] for p in seated], now - (since or now))
        if profile.id not in seated and not near:
            raise RankedError("ranked/window", "this table's players are not near your rating: play ranked", 409)
        seat, token = await self.tables.join(table, profile.name, None, profile.id, profile.key)
        return table, {seat: token}

    # --- who may play and rate whom (functions of their own) --------------------------------------------

    @staticmethod
    def fits(mine: float, theirs: list[float], waited: timedelta) -> bool:
        """A player of ordinal `mine` may take a seat beside players of these ordinals at a table that has
        waited this long: every one within the window."""
        return all(abs(mine - o) <= window(waited) for o in theirs)

    def _ordinals(self, profile_ids: Iterable[str], preset: str) -> dict[str, float]:
        """Each profile's ordinal in a preset; one without a rating there: OpenSkill's start (0)."""
        ids = set(profile_ids)
        got = {r.profile_id: ordinal(r.mu, r.sigma) for r in self.store.ratings_of(ids, preset)}
        start = ordinal(MODEL.mu, MODEL.sigma)
        return {p: got.get(p, start) for p in ids}

    def mark(self, kind: str, value: str) -> str:
        """A keyed hash (HMAC-SHA256 with a key the server makes once) of an address or a device key: the
        store never holds the address itself, and the hash cannot be reversed by trying every address."""
        if self._mark_key is None:
            self._mark_key = bytes.fromhex(self.store.server_key("marks", lambda: secrets.token_hex(32)))
        return hmac.new(self._mark_key, f"{kind}:{value}".encode(), hashlib.sha256).hexdigest()

    def note(self, profile_id: str, key_hash: str, address: str = "", before: str = "", browser: str = "") -> None:
        """A profile's device key was seen from a client address (blocking). `before`: the key hash of
        another profile this device carried (made or moved here after it); `browser`: the browser's own
        id (its cookie, kept across profiles): profiles sharing either share the device."""
        if not key_hash:
            return
        marks = [self.mark("device", key_hash)]
        if address and address != "unknown":
            marks.append(self.mark("address", address))
        if before and before != key_hash:
            marks.append(self.mark("device", before))
        if browser:
            marks.append(self.mark("browser", browser))
        now = self.now()
        self.store.mark_device(profile_id, key_hash, marks, now, now - MARKS_KEPT)

    # --- rating a finished game ------------------------------------------------------------------------

    def _rate(self, ending: GameEnding) -> Write | None:
        """The ratings a ranked game's end changes, stored with its last event."""
        if ending.ranked is None:
            return None
        preset, at = ending.ranked, ending.at
        seats = [(s.seat, s.profile_id) for s in ending.seats if s.kind == "human"]
        standings = ending.state.standings()

        def op(conn: Connection) -> list[ChangeRow]:
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
            opponents = self._opponents(conn, ids, day, at)
            for seat, reason in opponents.items():
                if isinstance(reason, str):
                    why[seat] = reason
            rated = [seat for seat in ids if seat not in why]
            now = Store.lock_ratings(conn, preset, [ids[s] for s in rated], MODEL.mu, MODEL.sigma, at)
            before = {s: now[ids[s]][:2] for s in rated}
            may = {s: o for s, o in opponents.items() if isinstance(o, set)}
            after = rate_each(before, dict(enumerate(place)), may)
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

    @staticmethod
    def _opponents(conn: Connection, ids: dict[int, str], day: datetime, at: datetime) -> dict[int, set[int] | str]:
        """Whom each player (seat: profile) may be rated with in this game: every other player but those
        sharing a device or an address with them, and those they were rated with `PAIR_LIMIT` times today.
        A player with nobody left: why (`related`, else `pair`, else `alone`)."""
        related = Store.related_pairs(conn, ids.values(), at - MARKS_KEPT)
        may: dict[int, set[int]] = {s: set() for s in ids}
        barred: dict[int, set[str]] = {s: set() for s in ids}
        for (a, pa), (b, pb) in combinations(sorted(ids.items()), 2):
            if frozenset((pa, pb)) in related:
                reason = "related"
            elif Store.rated_together(conn, pa, pb, day) >= PAIR_LIMIT:
                reason = "pair"
            else:
                may[a].add(b)
                may[b].add(a)
                continue
            barred[a].add(reason)
            barred[b].add(reason)
        return {
            s: may[s] or next((r for r in ("related", "pair") if r in barred[s]), "alone") for s in ids
        }  # fmt: skip

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
