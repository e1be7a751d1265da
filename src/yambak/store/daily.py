"""Deals of duplicate dice in the store: the daily challenge's, club tournaments', their entrants and the
scores the boards rank. Mixed into `Store` (it provides `engine` and `_sync`).

A deal's seed is stored here from the moment it is made; only its commitment is shown until the deal
closes (`server/daily`). A profile's counted attempt at a deal is its `deal_entries` row; the score is
the engine's, read from the profile's `results` row of that table (a counted one: no hint, no bot turn).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from .models import Deal, DealEntry, GameSession, Profile, Result, Seat, Tournament, TournamentLog, TournamentPlayer

__all__ = ["DealRow", "DealScore", "DealStore", "Member", "SoloBest", "TournamentRow", "closed_sql", "solo_conditions"]

T = TypeVar("T")


@dataclass
class DealRow:
    id: str
    kind: str  # daily | club
    preset: str
    seed: str
    commitment: str
    opens_at: datetime
    closes_at: datetime
    tournament_id: str | None = None
    round: int | None = None
    par_score: int | None = None
    par_bot: str | None = None
    par_table: str | None = None
    par_outright: int | None = None  # the turn its bot won at once on (docs/rules.md §7): said as a win
    paused_at: datetime | None = None  # a tournament round whose clock stands still (its organiser paused it)
    cancelled: bool = False  # counts for nobody; its seed is published

    def closed(self, now: datetime) -> bool:
        """Over for good: its results frozen, its games and seed public (`closed_sql` is the same in SQL)."""
        return self.cancelled or (self.paused_at is None and now >= self.closes_at)


@dataclass
class DealScore:
    """One entrant of a deal: their name, when their profile was made, their table, their score (None
    while the game is not over, or when it does not count), when they started, and whether their
    profile was deleted since (its stand-in keeps the place, nameless)."""

    deal_id: str
    profile_id: str
    name: str
    profile_created: datetime
    table_id: str
    score: int | None
    started_at: datetime | None = None
    withdrawn: bool = False
    outright_turn: int | None = None  # the game was won outright on this turn (docs/rulesets.md: it ranks first)


@dataclass
class TournamentRow:
    id: str
    name: str
    preset: str
    organiser_id: str | None
    invite: str
    rounds: int
    window_minutes: int
    starts_at: datetime
    created_at: datetime
    approval: bool = False  # joiners wait for the organiser's approval
    cancelled: bool = False  # the organiser cancelled what was left of it


@dataclass
class LogEntry:
    """One of a tournament organiser's actions (`TournamentLog`), with the names as they are now ("" for a
    profile gone: deleted, or a stand-in)."""

    at: datetime
    action: str  # created | pause | resume | extend | cancel-round | cancel | invite | approval-on | ...
    round: int | None = None
    minutes: int | None = None
    started: bool = False
    by: str = ""
    player: str = ""


@dataclass
class SoloBest:
    profile_id: str
    name: str
    score: int
    when: datetime
    withdrawn: bool = False


@dataclass
class Member:
    """A profile in a tournament: a player, one waiting for the organiser's approval, or one removed."""

    profile_id: str
    name: str
    status: str  # player | pending | removed
    joined_at: datetime
    withdrawn: bool = False


def solo_conditions(preset: Any = None) -> list[Any]:
    """A result that may be a best solo score: of the preset with its usual options (`preset` None: of
    whichever preset it was), counted (the server rolled it, no hint, no bot turn), where its profile
    was the only person (alone, or against bots)."""
    people = (
        select(func.count())
        .select_from(Seat)
        .where(Seat.table_id == Result.ref, Seat.kind == "human")
        .scalar_subquery()
    )
    return [
        Result.rules_id == (Result.preset if preset is None else preset),
        Result.counted.is_(True),
        Result.score.is_not(None),
        or_(Result.players == 1, and_(Result.kind == "table", people == 1)),
    ]


_DEAL_COLUMNS = [c.name for c in Deal.__table__.columns]
_TOURNAMENT_COLUMNS = [c.name for c in Tournament.__table__.columns]


def closed_sql(now: datetime) -> Any:
    """`DealRow.closed` as an SQL condition on `deals`."""
    return or_(Deal.cancelled.is_(True), and_(Deal.paused_at.is_(None), Deal.closes_at <= now))


def _deal(row: Any) -> DealRow:
    return DealRow(**{k: row[k] for k in _DEAL_COLUMNS})


def _tournament(row: Any) -> TournamentRow:
    return TournamentRow(**{k: row[k] for k in _TOURNAMENT_COLUMNS})


class DealStore:
    """The deals half of `Store`."""

    engine: Engine

    def _sync(self, op: Callable[[Connection], T]) -> T:  # pragma: no cover - Store's
        raise NotImplementedError

    # --- deals ---------------------------------------------------------------------------------------

    def get_deal(self, deal_id: str) -> DealRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(Deal).where(Deal.id == deal_id)).mappings().first()
        return _deal(row) if row else None

    def ensure_deal(self, deal: DealRow) -> tuple[DealRow, bool]:
        """The deal with this id: the one stored, or `deal`, stored now. (deal, whether it is new); two
        processes making the same day's deal at once store one of them, and both answer with it."""
        found = self.get_deal(deal.id)
        if found is not None:
            return found, False
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(Deal).values(**{k: getattr(deal, k) for k in _DEAL_COLUMNS}))
        except IntegrityError:
            stored = self.get_deal(deal.id)
            if stored is None:
                raise
            return stored, False
        return deal, True

    def deals(
        self, kind: str, preset: str | None = None, since: datetime | None = None, until: Any = None
    ) -> list[DealRow]:
        """Deals of a kind (and preset) that open in [since, until), oldest first."""
        where = [Deal.kind == kind]
        if preset is not None:
            where.append(Deal.preset == preset)
        if since is not None:
            where.append(Deal.opens_at >= since)
        if until is not None:
            where.append(Deal.opens_at < until)
        with self.engine.connect() as conn:
            rows = conn.execute(select(Deal).where(*where).order_by(Deal.opens_at, Deal.id)).mappings()
            return [_deal(r) for r in rows]

    def set_par(self, deal_id: str, score: int, bot: str, table_id: str, outright: int | None = None) -> None:
        def op(conn: Connection) -> None:
            conn.execute(
                update(Deal)
                .where(Deal.id == deal_id, Deal.par_table.is_(None))
                .values(par_score=score, par_bot=bot, par_table=table_id, par_outright=outright)
            )

        self._sync(op)

    # --- entrants -------------------------------------------------------------------------------------

    @staticmethod
    def add_entry_op(deal_id: str, profile_id: str, table_id: str, now: datetime) -> Callable[[Connection], None]:
        def op(conn: Connection) -> None:
            conn.execute(
                insert(DealEntry).values(deal_id=deal_id, profile_id=profile_id, table_id=table_id, started_at=now)
            )

        return op

    def entry(self, deal_id: str, profile_id: str) -> str | None:
        """The table of the profile's counted attempt at the deal, if it started one."""
        with self.engine.connect() as conn:
            return conn.execute(
                select(DealEntry.table_id).where(DealEntry.deal_id == deal_id, DealEntry.profile_id == profile_id)
            ).scalar()

    def deal_scores(self, deal_ids: Iterable[str]) -> list[DealScore]:
        """Every entrant of the deals with their counted score (None: not over yet, or not counted): a
        game finished before its deal closed (tables take no action after it; this is the fence for
        anything else), never in a cancelled deal."""
        ids = list(deal_ids)
        if not ids:
            return []
        counted = (
            Result.ref == DealEntry.table_id,
            Result.profile_id == DealEntry.profile_id,
            Result.counted.is_(True),
            Result.finished_at < Deal.closes_at,
            Deal.cancelled.is_(False),
        )
        score = select(Result.score).where(*counted).scalar_subquery()
        outright = select(Result.outright_turn).where(*counted).scalar_subquery()
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    DealEntry.deal_id,
                    DealEntry.profile_id,
                    Profile.name,
                    Profile.created_at,
                    DealEntry.table_id,
                    score,
                    DealEntry.started_at,
                    Profile.withdrawn,
                    outright,
                )  # fmt: skip
                .join(Profile, Profile.id == DealEntry.profile_id)
                .join(Deal, Deal.id == DealEntry.deal_id)
                .where(DealEntry.deal_id.in_(ids))
                .order_by(DealEntry.deal_id, DealEntry.started_at)
            )
            return [DealScore(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8]) for r in rows]

    @staticmethod
    def deal_in(conn: Connection, deal_id: str) -> DealRow | None:
        """A deal as the transaction reading it sees it (the fence of a deal table's actions)."""
        row = conn.execute(select(Deal).where(Deal.id == deal_id)).mappings().first()
        return _deal(row) if row else None

    @staticmethod
    def player_status(conn: Connection, tournament_id: str, profile_id: str) -> str | None:
        """A profile's place in a tournament (player, pending, removed), in the transaction's view."""
        return conn.execute(
            select(TournamentPlayer.status).where(
                TournamentPlayer.tournament_id == tournament_id, TournamentPlayer.profile_id == profile_id
            )
        ).scalar()

    # --- best solo scores -----------------------------------------------------------------------------

    def best_solo(self, preset: str, limit: int = 20) -> list[SoloBest]:
        """Each profile's best counted solo score of a preset with its usual options (a game the server
        rolled, played without hints or a bot's turn, where the profile was the only person: alone, or
        against bots), best first."""
        solo = solo_conditions(preset)
        best = (
            select(Result.profile_id, func.max(Result.score).label("score"))
            .where(*solo)
            .group_by(Result.profile_id)
            .subquery()
        )
        first = (
            select(func.min(Result.finished_at))
            .where(Result.profile_id == best.c.profile_id, Result.score == best.c.score, *solo)
            .scalar_subquery()
        )
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(best.c.profile_id, Profile.name, best.c.score, first, Profile.withdrawn)
                .join(Profile, Profile.id == best.c.profile_id)
                .order_by(best.c.score.desc(), first, Profile.id)
                .limit(limit)
            )
            return [SoloBest(r[0], r[1], int(r[2]), r[3], bool(r[4])) for r in rows]

    # --- tournaments ----------------------------------------------------------------------------------

    def create_tournament(self, t: TournamentRow, deals: list[DealRow]) -> None:
        """The tournament and its rounds' deals (their seeds committed now), its organiser its first player."""

        def op(conn: Connection) -> None:
            conn.execute(insert(Tournament).values(**{k: getattr(t, k) for k in _TOURNAMENT_COLUMNS}))
            conn.execute(insert(Deal), [{k: getattr(d, k) for k in _DEAL_COLUMNS} for d in deals])
            if t.organiser_id is not None:
                conn.execute(
                    insert(TournamentPlayer).values(
                        tournament_id=t.id, profile_id=t.organiser_id, joined_at=t.created_at
                    )
                )

        self._sync(op)

    def get_tournament(self, tournament_id: str) -> TournamentRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(Tournament).where(Tournament.id == tournament_id)).mappings().first()
        return _tournament(row) if row else None

    def tournament_deals(self, tournament_id: str) -> list[DealRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(Deal).where(Deal.tournament_id == tournament_id).order_by(Deal.round)).mappings()
            return [_deal(r) for r in rows]

    def join_tournament(self, tournament_id: str, profile_id: str, now: datetime, status: str = "player") -> str:
        """Add a player (or one waiting for approval); the profile's place as it is then (one who joined
        before keeps theirs: a removed player stays removed)."""

        def op(conn: Connection) -> str:
            there = self.player_status(conn, tournament_id, profile_id)
            if there is not None:
                return there
            conn.execute(
                insert(TournamentPlayer).values(
                    tournament_id=tournament_id, profile_id=profile_id, joined_at=now, status=status
                )
            )
            return status

        try:
            return self._sync(op)
        except Exception as exc:  # two joins at once: the other one made it
            if "already stored" not in str(exc):
                raise
            with self.engine.connect() as conn:
                return self.player_status(conn, tournament_id, profile_id) or status

    def set_member(self, tournament_id: str, profile_id: str, status: str, now: datetime) -> bool:
        """A player approved or removed by the organiser; a removed one's entries in rounds not closed yet
        go with them (closed rounds never change). False when there was no such member."""

        def op(conn: Connection) -> bool:
            done = conn.execute(
                update(TournamentPlayer)
                .where(TournamentPlayer.tournament_id == tournament_id, TournamentPlayer.profile_id == profile_id)
                .values(status=status)
            )
            if status == "removed":
                still = select(Deal.id).where(Deal.tournament_id == tournament_id, ~closed_sql(now))
                conn.execute(delete(DealEntry).where(DealEntry.profile_id == profile_id, DealEntry.deal_id.in_(still)))
            return bool(done.rowcount)

        return self._sync(op)

    def log_organiser(
        self,
        tournament_id: str,
        at: datetime,
        action: str,
        by_id: str | None,
        round: int | None = None,
        minutes: int | None = None,
        started: bool = False,
        player_id: str | None = None,
    ) -> None:
        """One of the organiser's actions, for the tournament's page."""

        def op(conn: Connection) -> None:
            conn.execute(
                insert(TournamentLog).values(
                    tournament_id=tournament_id,
                    at=at,
                    action=action,
                    round=round,
                    minutes=minutes,
                    started=started,
                    by_id=by_id,
                    player_id=player_id,
                )
            )

        self._sync(op)

    def organiser_log(self, tournament_id: str) -> list[LogEntry]:
        """A tournament's organiser's actions, newest first."""
        by, player = Profile.__table__.alias("by"), Profile.__table__.alias("player")
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    TournamentLog.at,
                    TournamentLog.action,
                    TournamentLog.round,
                    TournamentLog.minutes,
                    TournamentLog.started,
                    by.c.name,
                    by.c.withdrawn,
                    player.c.name,
                    player.c.withdrawn,
                )
                .outerjoin(by, by.c.id == TournamentLog.by_id)
                .outerjoin(player, player.c.id == TournamentLog.player_id)
                .where(TournamentLog.tournament_id == tournament_id)
                .order_by(TournamentLog.at.desc(), TournamentLog.id.desc())
            ).all()
        return [
            LogEntry(r[0], r[1], r[2], r[3], bool(r[4]), "" if r[6] else r[5] or "", "" if r[8] else r[7] or "")
            for r in rows
        ]

    def update_tournament(self, tournament_id: str, **values: Any) -> None:
        """The organiser's own settings: a new invite code, approval of joiners, cancelled."""

        def op(conn: Connection) -> None:
            conn.execute(update(Tournament).where(Tournament.id == tournament_id).values(**values))

        self._sync(op)

    @staticmethod
    def deal_tables(conn: Connection, deal_id: str) -> list[tuple[str, Any]]:
        """(id, fairness) of every table of a deal: its entrants', practice ones, the par's."""
        rows = conn.execute(
            select(GameSession.id, GameSession.fairness).where(GameSession.fairness["deal"].as_string() == deal_id)
        )
        return [(r[0], r[1]) for r in rows]

    def reschedule(self, rounds: list[tuple[DealRow, datetime | None]]) -> list[str]:
        """Store rounds as their organiser changed them (times, a pause, a cancellation), each with the
        close its tables go by (None: not while paused), which the tables keep beside their sealed seed.
        One transaction; the ids of the tables to reload."""

        def op(conn: Connection) -> list[str]:
            changed = []
            for deal, seal in rounds:
                values = {k: getattr(deal, k) for k in ("opens_at", "closes_at", "paused_at", "cancelled")}
                conn.execute(update(Deal).where(Deal.id == deal.id).values(**values))
                for table_id, fairness in self.deal_tables(conn, deal.id):
                    kept = {**(fairness or {}), "closes_at": seal.isoformat() if seal else None}
                    if deal.cancelled:  # its players are told at their tables
                        kept["cancelled"] = True
                    conn.execute(update(GameSession).where(GameSession.id == table_id).values(fairness=kept))
                    changed.append(table_id)
            return changed

        return self._sync(op)

    def tournament_players(self, tournament_id: str) -> list[Member]:
        """Everyone who joined (players, those waiting for approval, those removed), in the order they joined."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    TournamentPlayer.profile_id,
                    Profile.name,
                    TournamentPlayer.status,
                    TournamentPlayer.joined_at,
                    Profile.withdrawn,
                )  # fmt: skip
                .join(Profile, Profile.id == TournamentPlayer.profile_id)
                .where(TournamentPlayer.tournament_id == tournament_id)
                .order_by(TournamentPlayer.joined_at, Profile.name)
            )
            return [Member(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]

    def tournaments_of(self, profile_id: str, limit: int = 20) -> list[TournamentRow]:
        """The tournaments a profile plays in, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Tournament)
                .join(TournamentPlayer, and_(TournamentPlayer.tournament_id == Tournament.id))
                .where(TournamentPlayer.profile_id == profile_id)
                .order_by(Tournament.created_at.desc())
                .limit(limit)
            ).mappings()
            return [_tournament(r) for r in rows]
