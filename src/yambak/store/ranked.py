"""Ratings of ranked tables in the store: each profile's per preset, and what each finished ranked game did
to them. Mixed into `Store` (it provides `engine`).

A finished ranked game rates its players in the transaction that stores its last event (`server/ranked`):
the players' rating rows are made where missing and locked in one order (two games of one profile ending at
once on two processes: the second waits for the first, and both count), read, and written back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import aliased

from .models import Event, GameSession, Profile, ProfileMark, RankedWait, Rating, RatingChange, Seat

__all__ = ["ChangeRow", "RankedStore", "RatingRow", "WaitingRow"]


@dataclass
class RatingRow:
    profile_id: str
    name: str
    preset: str
    mu: float
    sigma: float
    games: int


@dataclass
class ChangeRow:
    seat: int
    profile_id: str | None
    place: int
    rated: bool
    reason: str | None
    left_early: bool
    mu_before: float | None
    sigma_before: float | None
    mu_after: float | None
    sigma_after: float | None


@dataclass
class WaitingRow:
    """A ranked table waiting for players: since when (the server's clock; None: not known yet) and the
    profiles seated."""

    table_id: str
    since: datetime | None
    profiles: list[str]


_CHANGE_COLUMNS = [c.name for c in RatingChange.__table__.columns if c.name not in ("table_id", "preset", "at")]


class RankedStore:
    """The ratings half of `Store`."""

    engine: Engine

    # --- in a finished game's own transaction --------------------------------------------------------

    @staticmethod
    def absences(conn: Connection, table_id: str) -> dict[int, int]:
        """Turns a stand-in played for each seat while its player was not connected (events marked so)."""
        out: dict[int, int] = {}
        for seat, data in conn.execute(
            select(Event.seat, Event.data).where(Event.table_id == table_id, Event.type == "scored")
        ):
            if json.loads(data).get("absent") is True:
                out[seat] = out.get(seat, 0) + 1
        return out

    @staticmethod
    def profiles_made(conn: Connection, ids: Iterable[str]) -> dict[str, datetime]:
        return dict(conn.execute(select(Profile.id, Profile.created_at).where(Profile.id.in_(list(ids)))).all())

    @staticmethod
    def rated_together(conn: Connection, a: str, b: str, since: datetime) -> int:
        """Ranked games two profiles were both rated in since a time (a day's limit for a pair)."""
        x, y = aliased(RatingChange), aliased(RatingChange)
        return int(
            conn.execute(
                select(func.count())
                .select_from(x)
                .join(y, and_(y.table_id == x.table_id, y.profile_id == b, y.rated.is_(True)))
                .where(x.profile_id == a, x.rated.is_(True), x.at >= since)
            ).scalar_one()
        )

    @staticmethod
    def lock_profiles(conn: Connection, ids: Iterable[str]) -> None:
        """Lock the profiles' rows until the transaction ends, in id order: two games of the same players
        ending at once on two servers are rated one after the other, each seeing what the other stored
        (the pair's daily limit is counted after this)."""
        ids = sorted(set(ids))
        if ids:  # FOR NO KEY UPDATE: the results stored before in this transaction hold key-share locks on them
            rows = select(Profile.id).where(Profile.id.in_(ids)).order_by(Profile.id)
            conn.execute(rows.with_for_update(key_share=True)).all()

    @staticmethod
    def lock_ratings(
        conn: Connection, preset: str, ids: list[str], mu: float, sigma: float, now: datetime
    ) -> dict[str, tuple[float, float, int]]:
        """The profiles' ratings of a preset, made (at mu, sigma) where missing, and locked until the
        transaction ends, in the order of their ids (no two games wait for each other the other way round)."""
        ids = sorted(set(ids))
        if not ids:
            return {}
        rows = [
            {"profile_id": p, "preset": preset, "mu": mu, "sigma": sigma, "games": 0, "updated_at": now} for p in ids
        ]
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        conn.execute(dialect.insert(Rating).values(rows).on_conflict_do_nothing())
        locked = conn.execute(
            select(Rating.profile_id, Rating.mu, Rating.sigma, Rating.games)
            .where(Rating.preset == preset, Rating.profile_id.in_(ids))
            .order_by(Rating.profile_id)
            .with_for_update()
        )
        return {r[0]: (float(r[1]), float(r[2]), int(r[3])) for r in locked}

    @staticmethod
    def store_ratings(conn: Connection, table_id: str, preset: str, changes: list[ChangeRow], now: datetime) -> None:
        for c in changes:
            if c.rated and c.profile_id is not None:
                conn.execute(
                    update(Rating)
                    .where(Rating.profile_id == c.profile_id, Rating.preset == preset)
                    .values(mu=c.mu_after, sigma=c.sigma_after, games=Rating.games + 1, updated_at=now)
                )
        values = [{"table_id": table_id, "preset": preset, "at": now, **{k: getattr(c, k) for k in _CHANGE_COLUMNS}}
                  for c in changes]  # fmt: skip
        if values:
            conn.execute(insert(RatingChange), values)

    # --- reading -------------------------------------------------------------------------------------

    def waiting_tables(self, preset: str, players: int, profile_id: str, since: datetime) -> list[str]:
        """Ranked tables of a preset and size that wait for players (an open seat, none of this profile's),
        made since a time, the oldest first."""
        sized = select(Seat.table_id).group_by(Seat.table_id).having(func.count() == players)
        open_seat = select(Seat.table_id).where(Seat.kind == "open")
        seated = select(Seat.table_id).where(Seat.profile_id == profile_id)
        with self.engine.connect() as conn:
            return list(
                conn.execute(
                    select(GameSession.id)
                    .where(
                        GameSession.settings["ranked"].as_string() == preset,
                        GameSession.finished.is_(False),
                        GameSession.created_at >= since,
                        GameSession.id.in_(sized),
                        GameSession.id.in_(open_seat),
                        GameSession.id.not_in(seated),
                    )
                    .order_by(GameSession.created_at, GameSession.id)
                    .limit(20)
                ).scalars()
            )

    def waiting_seats(self, preset: str, since: datetime) -> dict[str, list[tuple[str, str | None, str]]]:
        """Every ranked table of a preset waiting for players: (name, profile, kind) of its seats."""
        open_seat = select(Seat.table_id).where(Seat.kind == "open")
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Seat.table_id, Seat.name, Seat.profile_id, Seat.kind)
                .join(GameSession, GameSession.id == Seat.table_id)
                .where(
                    GameSession.settings["ranked"].as_string() == preset,
                    GameSession.finished.is_(False),
                    GameSession.created_at >= since,
                    GameSession.id.in_(open_seat),
                )
                .order_by(GameSession.created_at, Seat.table_id, Seat.seat)
            )
            out: dict[str, list[tuple[str, str | None, str]]] = {}
            for table_id, name, pid, kind in rows:
                out.setdefault(table_id, []).append((name, pid, kind))
            return out

    def changes(self, table_id: str) -> list[ChangeRow]:
        """What a finished ranked game did to its players' ratings, by seat."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*[RatingChange.__table__.c[k] for k in _CHANGE_COLUMNS])
                .where(RatingChange.table_id == table_id)
                .order_by(RatingChange.seat)
            ).mappings()
            return [ChangeRow(**r) for r in rows]

    def ladder(self, preset: str, limit: int = 100, least_games: int = 1, established: int = 0) -> list[RatingRow]:
        """A preset's rated players, by conservative rating (mu - 3 sigma), best first; those with at least
        `established` rated games before all others (a provisional rating is never above them)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Rating.profile_id, Profile.name, Rating.mu, Rating.sigma, Rating.games)
                .join(Profile, Profile.id == Rating.profile_id)
                .where(Rating.preset == preset, Rating.games >= least_games)
                .order_by(
                    case((Rating.games >= established, 0), else_=1),
                    (Rating.mu - 3 * Rating.sigma).desc(),
                    Rating.games.desc(),
                    Profile.name,
                )
                .limit(limit)
            )
            return [RatingRow(r[0], r[1], preset, float(r[2]), float(r[3]), int(r[4])) for r in rows]

    def ratings_of(self, profile_ids: Iterable[str], preset: str | None = None) -> list[RatingRow]:
        """The profiles' ratings (of one preset, or all)."""
        ids = list(set(profile_ids))
        if not ids:
            return []
        where: list[Any] = [Rating.profile_id.in_(ids)]
        if preset is not None:
            where.append(Rating.preset == preset)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Rating.profile_id, Profile.name, Rating.preset, Rating.mu, Rating.sigma, Rating.games)
                .join(Profile, Profile.id == Rating.profile_id)
                .where(*where)
                .order_by(Rating.games.desc(), Rating.preset)
            )
            return [RatingRow(r[0], r[1], r[2], float(r[3]), float(r[4]), int(r[5])) for r in rows]

    # --- a ladder that must be earned: who may rate whom, matching by rating, the history --------------

    def mark_device(self, profile_id: str, key_hash: str, marks: Iterable[str], now: datetime, keep: datetime) -> None:
        """Note that a profile's device key was seen with these marks now (keyed hashes: an address, a
        device); marks not seen since `keep` are deleted, every profile's."""
        rows = [{"profile_id": profile_id, "key_hash": key_hash, "mark": m, "seen_at": now} for m in sorted(set(marks))]
        with self.engine.begin() as conn:
            conn.execute(delete(ProfileMark).where(ProfileMark.seen_at < keep))
            if not rows:
                return
            dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
            ins = dialect.insert(ProfileMark).values(rows)
            conn.execute(
                ins.on_conflict_do_update(
                    index_elements=["profile_id", "key_hash", "mark"], set_={"seen_at": ins.excluded.seen_at}
                )
            )

    def marks_of(self, profile_id: str) -> list[tuple[str, str, datetime]]:
        """A profile's marks: (device key hash, mark, last seen)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ProfileMark.key_hash, ProfileMark.mark, ProfileMark.seen_at)
                .where(ProfileMark.profile_id == profile_id)
                .order_by(ProfileMark.key_hash, ProfileMark.mark)
            )
            return [(r[0], r[1], r[2]) for r in rows]

    @staticmethod
    def related_pairs(conn: Connection, ids: Iterable[str], since: datetime) -> set[frozenset[str]]:
        """The pairs of these profiles that share a mark seen since a time (a device or an address)."""
        ids = sorted(set(ids))
        if len(ids) < 2:
            return set()
        x, y = aliased(ProfileMark), aliased(ProfileMark)
        rows = conn.execute(
            select(x.profile_id, y.profile_id)
            .join(y, and_(y.mark == x.mark, y.profile_id != x.profile_id, y.seen_at >= since))
            .where(x.profile_id.in_(ids), y.profile_id.in_(ids), x.seen_at >= since)
            .distinct()
        )
        return {frozenset(r) for r in rows}

    def wait_from(self, table_id: str, since: datetime) -> None:
        """A ranked table begins to wait for players (the server's clock)."""
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        with self.engine.begin() as conn:
            conn.execute(dialect.insert(RankedWait).values(table_id=table_id, since=since).on_conflict_do_nothing())

    def wait_since(self, table_id: str) -> datetime | None:
        """When a ranked table began to wait for players (None: not known, a table from before 0015)."""
        with self.engine.connect() as conn:
            found = conn.execute(select(RankedWait.since).where(RankedWait.table_id == table_id)).scalar()
            return found if isinstance(found, datetime) else None

    def waiting_for(self, preset: str, players: int, profile_id: str, since: datetime) -> list[WaitingRow]:
        """Ranked tables of a preset and size waiting for players (none of this profile's), made since a
        time, the oldest first: since when each waits and the profiles seated."""
        ids = self.waiting_tables(preset, players, profile_id, since)
        if not ids:
            return []
        with self.engine.connect() as conn:
            waits = dict(
                conn.execute(select(RankedWait.table_id, RankedWait.since).where(RankedWait.table_id.in_(ids))).all()
            )
            seated: dict[str, list[str]] = {}
            for tid, pid in conn.execute(
                select(Seat.table_id, Seat.profile_id)
                .where(Seat.table_id.in_(ids), Seat.profile_id.is_not(None))
                .order_by(Seat.table_id, Seat.seat)
            ):
                if pid is not None:
                    seated.setdefault(tid, []).append(pid)
        return [WaitingRow(t, waits.get(t), seated.get(t, [])) for t in ids]

    def rating_history(self, profile_id: str, preset: str) -> list[tuple[datetime, float, float, str]]:
        """A profile's rating in a preset after each of its rated games, oldest first: (when, mu, sigma,
        the table)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(RatingChange.at, RatingChange.mu_after, RatingChange.sigma_after, RatingChange.table_id)
                .where(
                    RatingChange.profile_id == profile_id,
                    RatingChange.preset == preset,
                    RatingChange.rated.is_(True),
                    RatingChange.mu_after.is_not(None),
                    RatingChange.sigma_after.is_not(None),
                )
                .order_by(RatingChange.at, RatingChange.table_id)
            )
            return [(r[0], float(r[1] or 0.0), float(r[2] or 0.0), r[3]) for r in rows]
