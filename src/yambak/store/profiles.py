"""Profiles and their results in the store: the rows, the writes (operations for the store's writer or
`_sync`) and the reads the history, statistics and deletion need. Mixed into `Store`.

A profile is a display name; what proves it is a device key (a cookie token) or a one-time link, both
stored as SHA-256 hashes. A result is one finished game of the profile's, with the engine's numbers
read once at the end (score, win, bonus columns, yams) so that statistics are one indexed query.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Integer, and_, cast, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine

from ..viewtypes import JSONObject
from .daily import closed_sql, solo_conditions
from .models import (
    Deal,
    DealEntry,
    GameSession,
    GradedDecision,
    Profile,
    ProfileKey,
    Result,
    Seat,
    SheetGroup,
    SheetGroupSheet,
    Tournament,
    TournamentPlayer,
)

__all__ = ["DeviceRow", "ProfileRow", "ProfileStore", "ResultRow", "ScrubbedNames", "StatsRow"]

T = TypeVar("T")
Op = Callable[[Connection], object]


@dataclass
class ProfileRow:
    id: str
    name: str
    shared: bool = False
    created_at: datetime | None = None
    withdrawn: bool = False  # a deleted profile's nameless stand-in on boards that never change
    seen_at: datetime | None = None  # the asking device's last visit (to the day), where its key was read
    key: str | None = None  # the asking device's profile key (its hash), where it was read: seats given to it


@dataclass
class DeviceRow:
    """A device a profile is signed in on: its key's hash, what it is, when it signed in and was last seen."""

    key_hash: str
    label: str
    created_at: datetime
    used_at: datetime | None


@dataclass
class ResultRow:
    profile_id: str
    kind: str  # table | kept | daily | club
    ref: str
    seat: int | None
    preset: str
    rules_id: str
    finished_at: datetime
    score: int | None
    won: bool
    players: int
    counted: bool
    bonus_columns: int = 0
    columns: int = 0
    yams: int = 0
    yam_boxes: int = 0
    accuracy: float | None = None
    decisions: int | None = None
    best: bool = False
    record: JSONObject | None = None
    id: int | None = None
    public_id: str = ""  # what addresses show (made when it is stored)
    deal_id: str | None = None  # a deal's game: private to its player until the deal closes
    outright_turn: int | None = None  # won outright on this turn of their own (docs/rules.md §7)


@dataclass
class StatsRow:
    """A profile's figures for one ruleset variant (`rules_id`)."""

    rules_id: str
    preset: str
    games: int
    wins: int
    mean: float | None
    best: int | None
    bonus_columns: int
    columns: int
    yams: int
    yam_boxes: int
    accuracy: float | None
    graded: int  # games with an accuracy
    counted_best: int | None = None  # the best score of games without help (server-rolled, no hints)
    duels: int = 0  # games with other players (the ones a win means something in)
    worst: int | None = None  # the lowest score (where the histogram starts)
    helped: int = 0  # games left out of these figures: a hint, a bot's turn, or a deal's practice


# A game that says what its player can do: one the server rolled without help (no hint, no bot's turn, not
# a deal's practice on dice seen before), or real dice kept on a sheet. The statistics' figures are theirs.
OWN_PLAY = or_(Result.counted.is_(True), Result.kind == "kept")


@dataclass
class ScrubbedNames:
    """What a profile's deletion renamed: tables (their seats), and kept sheets."""

    tables: list[str] = field(default_factory=list)
    sheets: list[str] = field(default_factory=list)


def placeholder(seat: int) -> str:
    """The name a deleted profile's seat takes (a game record of docs/rules.md §11 needs one)."""
    return f"Player {seat + 1}"


_RESULT_COLUMNS = [c.name for c in Result.__table__.columns]


def _result(row: Any) -> ResultRow:
    return ResultRow(**{k: row[k] for k in _RESULT_COLUMNS})


def shown(profile_id: str, public_at: datetime | None = None) -> list[Any]:
    """Conditions for a profile's results as its owner sees them (`public_at` None), or as anyone else
    does at that time: without the games of deals still open (private to their player until the close)."""
    where = [Result.profile_id == profile_id]
    if public_at is not None:
        closed = select(Deal.id).where(closed_sql(public_at))
        where.append(or_(Result.deal_id.is_(None), Result.deal_id.in_(closed)))
    return where


def _withdraw(conn: Connection, profile_id: str, created_at: datetime, now: datetime) -> None:
    """A deleted profile's places on boards that never change pass to a nameless stand-in: its deal
    entries and their results, its tournament places, the results its best solo scores come from."""
    entries = select(DealEntry.table_id).where(DealEntry.profile_id == profile_id)
    keep = set(
        conn.execute(select(Result.id).where(Result.profile_id == profile_id, Result.ref.in_(entries))).scalars()
    )
    solo = conn.execute(
        select(Result.id, Result.rules_id, Result.score).where(Result.profile_id == profile_id, *solo_conditions())
    ).all()
    best: dict[str, int] = {}
    for _, rules_id, score in solo:  # scores are not null here (solo_conditions)
        best[rules_id] = max(best.get(rules_id, score or 0), score or 0)
    keep |= {rid for rid, rules_id, score in solo if score == best[rules_id]}
    places = conn.execute(select(func.count()).select_from(DealEntry).where(DealEntry.profile_id == profile_id))
    members = conn.execute(
        select(func.count()).select_from(TournamentPlayer).where(TournamentPlayer.profile_id == profile_id)
    )
    if not keep and not places.scalar_one() and not members.scalar_one():
        return
    stand_in = secrets.token_urlsafe(12)
    conn.execute(
        insert(Profile).values(
            id=stand_in, name="", shared=False, withdrawn=True, created_at=created_at, updated_at=now
        )
    )
    conn.execute(update(DealEntry).where(DealEntry.profile_id == profile_id).values(profile_id=stand_in))
    conn.execute(update(TournamentPlayer).where(TournamentPlayer.profile_id == profile_id).values(profile_id=stand_in))
    if keep:
        conn.execute(update(Result).where(Result.id.in_(keep)).values(profile_id=stand_in, record=None))


def name_pattern(name: str) -> re.Pattern[str]:
    """The name as a whole word, any case: "Al" is in "Al's table", not in "Alice's table".

    >>> bool(name_pattern("Al").search("Alice and Al")), name_pattern("Al").sub("X", "Alice's and AL's")
    (True, "Alice's and X's")
    """
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", re.IGNORECASE)


def _unname(conn: Connection, profile_id: str, name: str) -> None:
    """Names that contain the profile's name (a table "Hugo's table", a kept sheet "Ann and Hugo", a
    tournament it organised) lose it: a table's or sheet's takes the seat's placeholder instead, as the
    seat does; a tournament's becomes empty (its page then gives the generic name)."""
    pattern = name_pattern(name)
    seats = select(Seat.table_id, Seat.seat).where(Seat.profile_id == profile_id).subquery()
    for tid, seat, tname in conn.execute(
        select(GameSession.id, seats.c.seat, GameSession.name).join(seats, seats.c.table_id == GameSession.id)
    ).all():
        if pattern.search(tname):
            conn.execute(
                update(GameSession).where(GameSession.id == tid).values(name=pattern.sub(placeholder(seat), tname))
            )
    kept = select(Result.ref, Result.seat).where(Result.profile_id == profile_id, Result.kind == "kept").subquery()
    sheets = and_(GameSession.kind == "sheet", kept.c.ref == GameSession.id)
    for sid, seat, sname in conn.execute(
        select(GameSession.id, kept.c.seat, GameSession.name).join(kept, sheets)
    ).all():
        if pattern.search(sname):
            shown = placeholder(seat) if seat is not None else ""
            conn.execute(update(GameSession).where(GameSession.id == sid).values(name=pattern.sub(shown, sname)))
    for tid, tname in conn.execute(select(Tournament.id, Tournament.name).where(Tournament.organiser_id == profile_id)):
        if pattern.search(tname):
            conn.execute(update(Tournament).where(Tournament.id == tid).values(name=""))
    # a group of kept sheets it played in ("Hugo's family") loses the name too: its page gives the generic one
    filed = select(SheetGroupSheet.group_id).where(SheetGroupSheet.sheet_id.in_(select(kept.c.ref)))
    for gid, gname in conn.execute(select(SheetGroup.id, SheetGroup.name).where(SheetGroup.id.in_(filed))).all():
        if pattern.search(gname):
            conn.execute(update(SheetGroup).where(SheetGroup.id == gid).values(name=""))


def _rename(record: object, seat: int, name: str) -> JSONObject | None:
    """The record with seat's name replaced (None when it has no such seat)."""
    if not isinstance(record, dict):
        return None
    players = record.get("players")
    if not isinstance(players, list):
        return None
    players = list(players)
    if not 0 <= seat < len(players):
        return None
    players[seat] = name
    return {**record, "players": players}


class ProfileStore:
    """The profile half of `Store` (it provides `engine` and `_sync`)."""

    engine: Engine

    def _sync(self, op: Callable[[Connection], T]) -> T:  # pragma: no cover - Store's
        raise NotImplementedError

    # --- profiles and keys -------------------------------------------------------------------------

    @staticmethod
    def create_profile_op(profile_id: str, name: str, token_hash: str, now: datetime, device: str = "") -> Op:
        def op(conn: Connection) -> None:
            conn.execute(insert(Profile).values(id=profile_id, name=name, shared=False, created_at=now, updated_at=now))
            conn.execute(
                insert(ProfileKey).values(
                    hash=token_hash,
                    profile_id=profile_id,
                    kind="device",
                    created_at=now,
                    label=device[:80],
                    used_at=now,
                )  # fmt: skip
            )

        return op

    def create_profile(self, profile_id: str, name: str, token_hash: str, now: datetime, device: str = "") -> None:
        self._sync(self.create_profile_op(profile_id, name, token_hash, now, device))

    def profile_by_key(self, key_hash: str) -> ProfileRow | None:
        """The profile a device key proves (links are not device keys), with the device's last visit."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(Profile.id, Profile.name, Profile.shared, Profile.created_at, Profile.withdrawn)
                .add_columns(ProfileKey.used_at)
                .join(ProfileKey, ProfileKey.profile_id == Profile.id)
                .where(ProfileKey.hash == key_hash, ProfileKey.kind == "device")
            ).first()
        if row is None:
            return None
        return ProfileRow(row.id, row.name, row.shared, row.created_at, row.withdrawn, row.used_at, key_hash)

    def touch_key(self, key_hash: str, now: datetime) -> None:
        """A device was seen now (kept to the day: the devices list's "last seen")."""

        def op(conn: Connection) -> None:
            conn.execute(update(ProfileKey).where(ProfileKey.hash == key_hash).values(used_at=now))

        self._sync(op)

    def devices(self, profile_id: str) -> list[DeviceRow]:
        """The devices the profile is signed in on, the one seen last first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ProfileKey.hash, ProfileKey.label, ProfileKey.created_at, ProfileKey.used_at)
                .where(ProfileKey.profile_id == profile_id, ProfileKey.kind == "device")
                .order_by(func.coalesce(ProfileKey.used_at, ProfileKey.created_at).desc(), ProfileKey.created_at.desc())
            )
            return [DeviceRow(r[0], r[1] or "", r[2], r[3]) for r in rows]

    def sign_out(self, profile_id: str, key_hash: str, seats: bool = True) -> list[str] | None:
        """A device of the profile forgets it: its key goes, and (`seats`) the seat tokens it was given
        under the profile with it (kept sheets' write tokens are no profile's: they stay). The tables whose
        seats lost their token; None when the profile had no such device."""

        def op(conn: Connection) -> list[str] | None:
            gone = conn.execute(
                delete(ProfileKey).where(
                    ProfileKey.profile_id == profile_id, ProfileKey.hash == key_hash, ProfileKey.kind == "device"
                )
            )
            if not gone.rowcount:
                return None
            if not seats:
                return []
            given = and_(Seat.profile_id == profile_id, Seat.device == key_hash)
            tables = list(dict.fromkeys(conn.execute(select(Seat.table_id).where(given)).scalars()))
            conn.execute(update(Seat).where(given).values(token_hash=None, device=None))
            return tables

        return self._sync(op)

    def get_profile(self, profile_id: str) -> ProfileRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(Profile.id, Profile.name, Profile.shared, Profile.created_at, Profile.withdrawn).where(
                    Profile.id == profile_id
                )
            ).first()
        return ProfileRow(row.id, row.name, row.shared, row.created_at, row.withdrawn) if row else None

    def update_profile(self, profile_id: str, now: datetime, **values: Any) -> bool:
        """Rename or share; False when the profile is gone."""

        def op(conn: Connection) -> bool:
            res = conn.execute(update(Profile).where(Profile.id == profile_id).values(updated_at=now, **values))
            return res.rowcount == 1

        return self._sync(op)

    def add_link(self, profile_id: str, link_hash: str, expires_at: datetime, now: datetime) -> None:
        """A one-time link to move the profile; the profile's older links go (one open link at a time)."""

        def op(conn: Connection) -> None:
            conn.execute(delete(ProfileKey).where(ProfileKey.profile_id == profile_id, ProfileKey.kind == "link"))
            conn.execute(
                insert(ProfileKey).values(
                    hash=link_hash, profile_id=profile_id, kind="link", expires_at=expires_at, created_at=now
                )
            )

        self._sync(op)

    def link_profile(self, link_hash: str, now: datetime) -> ProfileRow | None:
        """The profile an unexpired link moves (the link is not used up by looking)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(Profile.id, Profile.name, Profile.shared, Profile.created_at, Profile.withdrawn)
                .join(ProfileKey, ProfileKey.profile_id == Profile.id)
                .where(ProfileKey.hash == link_hash, ProfileKey.kind == "link", ProfileKey.expires_at > now)
            ).first()
        return ProfileRow(row.id, row.name, row.shared, row.created_at, row.withdrawn) if row else None

    def claim_link(self, link_hash: str, device_hash: str, now: datetime, device: str = "") -> str | None:
        """Use a link up: a new device key for its profile, in the same transaction as the link's removal
        (two devices racing for one link: one gets it). The profile id, or None for a used or stale link."""

        def op(conn: Connection) -> str | None:
            pid = conn.execute(
                select(ProfileKey.profile_id).where(
                    ProfileKey.hash == link_hash, ProfileKey.kind == "link", ProfileKey.expires_at > now
                )
            ).scalar()
            if pid is None:
                return None
            gone = conn.execute(delete(ProfileKey).where(ProfileKey.hash == link_hash, ProfileKey.kind == "link"))
            if gone.rowcount != 1:
                return None
            conn.execute(
                insert(ProfileKey).values(
                    hash=device_hash, profile_id=pid, kind="device", created_at=now, label=device[:80], used_at=now
                )
            )
            return str(pid)

        return self._sync(op)

    def delete_profile(self, profile_id: str, now: datetime | None = None) -> ScrubbedNames | None:
        """Delete a profile and take its name off everything that showed it: its seats (renamed, unlinked)
        and the snapshots of their tables, names of tables, tournaments and sheets that contained it, the
        kept sheets it said it played (the shared sheet and every other profile's copy). Its keys, results
        and graded decisions go with it, but for what boards that never change need: its deal entries (with
        their results, without their decisions), tournament places and best solo scores pass to a nameless
        stand-in (`withdrawn`), so that others' matchpoints and ranks stay. None when there was no such
        profile."""

        def op(conn: Connection) -> ScrubbedNames | None:
            profile = conn.execute(select(Profile.name, Profile.created_at).where(Profile.id == profile_id)).first()
            if profile is None:
                return None
            out = ScrubbedNames()
            # its graded decisions go, those of the results a stand-in keeps too (the rows say how it played)
            conn.execute(delete(GradedDecision).where(GradedDecision.profile_id == profile_id))
            _withdraw(conn, profile_id, profile.created_at, now or profile.created_at)
            _unname(conn, profile_id, profile.name)
            seats = conn.execute(select(Seat.table_id, Seat.seat).where(Seat.profile_id == profile_id)).all()
            for table_id, seat in seats:
                name = placeholder(seat)
                conn.execute(
                    update(Seat)
                    .where(Seat.table_id == table_id, Seat.seat == seat)
                    .values(name=name, profile_id=None, device=None)
                )
                record = conn.execute(select(GameSession.record).where(GameSession.id == table_id)).scalar()
                renamed = _rename(record, seat, name)
                if renamed is not None:
                    conn.execute(update(GameSession).where(GameSession.id == table_id).values(record=renamed))
                out.tables.append(table_id)
            kept = conn.execute(
                select(Result.ref, Result.seat).where(
                    Result.profile_id == profile_id, Result.kind == "kept", Result.seat.is_not(None)
                )
            ).all()
            for ref, kept_seat in kept:
                seat = int(kept_seat or 0)  # not null: selected so
                name = placeholder(seat)
                sheet = and_(GameSession.id == ref, GameSession.kind == "sheet")
                record = conn.execute(select(GameSession.record).where(sheet)).scalar()
                renamed = _rename(record, seat, name)
                if renamed is not None:
                    conn.execute(update(GameSession).where(GameSession.id == ref).values(record=renamed))
                    out.sheets.append(ref)
                for rid, copy in conn.execute(
                    select(Result.id, Result.record).where(
                        Result.kind == "kept", Result.ref == ref, Result.profile_id != profile_id
                    )
                ).all():
                    renamed = _rename(copy, seat, name)
                    if renamed is not None:
                        conn.execute(update(Result).where(Result.id == rid).values(record=renamed))
            conn.execute(delete(Profile).where(Profile.id == profile_id))  # keys and results cascade
            return out

        return self._sync(op)

    # --- seats -----------------------------------------------------------------------------------------

    @staticmethod
    def assisted_op(table_id: str, seat: int) -> Op:
        def op(conn: Connection) -> None:
            conn.execute(update(Seat).where(Seat.table_id == table_id, Seat.seat == seat).values(assisted=True))

        return op

    # --- results ---------------------------------------------------------------------------------------

    @staticmethod
    def insert_results_op(rows: list[ResultRow]) -> Callable[[Connection], list[int]]:
        """Store finished games; each counted score that beats every earlier counted one of its variant is
        marked a personal best (the first game of a variant is not: nothing was beaten)."""

        def op(conn: Connection) -> list[int]:
            ids = []
            for r in rows:
                best = False
                if r.counted and r.score is not None:
                    prev = conn.execute(
                        select(func.max(Result.score)).where(
                            Result.profile_id == r.profile_id, Result.rules_id == r.rules_id, Result.counted.is_(True)
                        )
                    ).scalar()
                    best = prev is not None and r.score > prev
                r.public_id = r.public_id or secrets.token_urlsafe(12)
                values = {k: getattr(r, k) for k in _RESULT_COLUMNS if k != "id"}
                values["best"] = best
                ids.append(int(conn.execute(insert(Result).values(**values).returning(Result.id)).scalar_one()))
            return ids

        return op

    def insert_results(self, rows: list[ResultRow]) -> list[int]:
        return self._sync(self.insert_results_op(rows))

    def replace_kept(self, row: ResultRow) -> int:
        """A kept sheet imported (again: a corrected sheet replaces its older copy)."""

        def op(conn: Connection) -> int:
            conn.execute(
                delete(Result).where(Result.profile_id == row.profile_id, Result.kind == "kept", Result.ref == row.ref)
            )
            return int(self.insert_results_op([row])(conn)[0])

        return self._sync(op)

    def ungraded(self, limit: int = 100) -> list[ResultRow]:
        """Results still waiting for the coach's grade (a restart interrupted it), ranked games' first (the
        fair-play review waits for them)."""
        ranked = select(GameSession.id).where(GameSession.settings["ranked"].as_string().is_not(None))
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Result)
                .where(Result.decisions.is_(None), Result.seat.is_not(None))
                .order_by(Result.ref.in_(ranked).desc(), Result.id)
                .limit(limit)
            ).mappings()
            return [_result(r) for r in rows]

    def result_by_public_id(self, public_id: str) -> ResultRow | None:
        """A result by the id its addresses show (the integer id is never one)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(Result).where(Result.public_id == public_id)).mappings().first()
        return _result(row) if row else None

    def result_for(self, profile_id: str, ref: str) -> ResultRow | None:
        """The profile's result of a table (or sheet), if it has one."""
        with self.engine.connect() as conn:
            row = (
                conn.execute(select(Result).where(Result.profile_id == profile_id, Result.ref == ref))
                .mappings()
                .first()
            )
        return _result(row) if row else None

    def results(
        self,
        profile_id: str,
        preset: str | None = None,
        limit: int = 50,
        offset: int = 0,
        with_records: bool = False,
        public_at: datetime | None = None,
    ) -> tuple[list[ResultRow], int]:
        """A page of the profile's games, newest first, and how many there are (of the preset); as others
        see them at `public_at` (see `shown`)."""
        where = shown(profile_id, public_at)
        if preset:
            where.append(Result.preset == preset)
        columns = [c for c in Result.__table__.columns if with_records or c.name != "record"]
        with self.engine.connect() as conn:
            total = conn.execute(select(func.count()).select_from(Result).where(*where)).scalar_one()
            q = select(*columns).where(*where).order_by(Result.finished_at.desc(), Result.id.desc())
            if limit:
                q = q.limit(limit).offset(offset)
            rows = [_result({k: r.get(k) for k in _RESULT_COLUMNS}) for r in conn.execute(q).mappings()]
        return rows, int(total)

    def result_presets(self, profile_id: str, public_at: datetime | None = None) -> dict[str, int]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Result.preset, func.count())
                .where(*shown(profile_id, public_at))
                .group_by(Result.preset)
                .order_by(func.count().desc())
            )
            return {str(p): int(n) for p, n in rows}

    def kept_refs(self, profile_id: str) -> set[str]:
        with self.engine.connect() as conn:
            return set(
                conn.execute(select(Result.ref).where(Result.profile_id == profile_id, Result.kind == "kept")).scalars()
            )

    def table_seats(self, table_ids: Iterable[str]) -> dict[str, list[tuple[int, str, str]]]:
        """(seat, name, kind) of each table's seats, for the history's "with ..." line."""
        ids = list(set(table_ids))
        out: dict[str, list[tuple[int, str, str]]] = {t: [] for t in ids}
        if not ids:
            return out
        with self.engine.connect() as conn:
            for r in conn.execute(
                select(Seat.table_id, Seat.seat, Seat.name, Seat.kind).where(Seat.table_id.in_(ids)).order_by(Seat.seat)
            ):
                out[r.table_id].append((r.seat, r.name, r.kind))
        return out

    # --- statistics --------------------------------------------------------------------------------------

    @staticmethod
    def stats_query(profile_id: str, public_at: datetime | None = None) -> Any:
        """One aggregate per ruleset variant over the profile's games with a seat (most played first): the
        figures over its own play (`OWN_PLAY`), the games with help or practice counted apart."""
        mine = and_(*shown(profile_id, public_at), Result.seat.is_not(None))
        own = OWN_PLAY
        return (
            select(
                Result.rules_id,
                func.min(Result.preset).label("preset"),
                func.count().filter(own).label("games"),
                func.sum(cast(Result.won, Integer)).filter(own).label("wins"),
                func.avg(Result.score).filter(own).label("mean"),
                func.max(Result.score).filter(own).label("best"),
                func.min(Result.score).filter(own).label("worst"),
                func.sum(Result.bonus_columns).filter(own).label("bonus_columns"),
                func.sum(Result.columns).filter(own).label("columns"),
                func.sum(Result.yams).filter(own).label("yams"),
                func.sum(Result.yam_boxes).filter(own).label("yam_boxes"),
                # accuracy weighted by decisions: the mean loss per decision over every graded decision
                func.sum(Result.accuracy * Result.decisions).filter(own).label("lost"),
                func.sum(Result.decisions).filter(own).label("decided"),
                func.count(Result.accuracy).filter(own).label("graded"),
                func.max(Result.score).filter(Result.counted.is_(True)).label("counted_best"),
                func.count().filter(own, Result.players > 1).label("duels"),
                func.count().filter(~own).label("helped"),
            )
            .where(mine)
            .group_by(Result.rules_id)
            .order_by(func.count().desc())
        )

    def stats(self, profile_id: str, public_at: datetime | None = None) -> list[StatsRow]:
        """A profile's figures per ruleset variant (`stats_query`), most played first."""
        with self.engine.connect() as conn:
            out = []
            for r in conn.execute(self.stats_query(profile_id, public_at)):
                decided = int(r.decided or 0)
                out.append(
                    StatsRow(
                        rules_id=r.rules_id,
                        preset=r.preset,
                        games=int(r.games),
                        wins=int(r.wins or 0),
                        mean=float(r.mean) if r.mean is not None else None,
                        best=r.best,
                        bonus_columns=int(r.bonus_columns or 0),
                        columns=int(r.columns or 0),
                        yams=int(r.yams or 0),
                        yam_boxes=int(r.yam_boxes or 0),
                        accuracy=float(r.lost) / decided if decided and r.lost is not None else None,
                        graded=int(r.graded),
                        counted_best=r.counted_best,
                        duels=int(r.duels or 0),
                        worst=r.worst,
                        helped=int(r.helped or 0),
                    )
                )
            return out

    def histogram(
        self, profile_id: str, rules_id: str, width: int, public_at: datetime | None = None
    ) -> list[tuple[int, int]]:
        """(bin start, games) of the variant's scores, bins `width` points wide (the database counts)."""
        bucket = (Result.score // width).label("bucket")  # integer division on both databases
        q = (
            select(bucket, func.count())
            .where(*shown(profile_id, public_at), OWN_PLAY, Result.rules_id == rules_id, Result.score.is_not(None))
            .group_by(bucket)
            .order_by(bucket)
        )
        with self.engine.connect() as conn:
            return [(int(b) * width, int(n)) for b, n in conn.execute(q) if b is not None]

    def recent_scores(
        self, profile_id: str, rules_id: str, limit: int = 200, public_at: datetime | None = None
    ) -> list[ResultRow]:
        """The variant's newest games (score, time, accuracy, best), oldest first: the trend's points."""
        cols = [Result.id, Result.score, Result.finished_at, Result.accuracy, Result.best, Result.won]
        q = (
            select(*cols)
            .where(*shown(profile_id, public_at), OWN_PLAY, Result.rules_id == rules_id, Result.score.is_not(None))
            .order_by(Result.finished_at.desc(), Result.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            rows = list(conn.execute(q).mappings())
        return [
            ResultRow(
                profile_id, "", "", None, "", rules_id, r["finished_at"], r["score"], r["won"], 0, False,
                accuracy=r["accuracy"], best=r["best"], id=r["id"],
            )
            for r in reversed(rows)
        ]  # fmt: skip

    def best_before(self, result: ResultRow) -> int | None:
        """The best counted score of the result's variant before it (what a personal best beat)."""
        with self.engine.connect() as conn:
            return conn.execute(
                select(func.max(Result.score)).where(
                    Result.profile_id == result.profile_id,
                    Result.rules_id == result.rules_id,
                    Result.counted.is_(True),
                    Result.id < (result.id or 0),
                )
            ).scalar()

    def bests(
        self, profile_id: str, rules_id: str, limit: int = 10, public_at: datetime | None = None
    ) -> list[ResultRow]:
        """The variant's personal bests, newest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Result)
                .where(*shown(profile_id, public_at), Result.rules_id == rules_id, Result.best.is_(True))
                .order_by(Result.finished_at.desc())
                .limit(limit)
            ).mappings()
            return [_result(r) for r in rows]
