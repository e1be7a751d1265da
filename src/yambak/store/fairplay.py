"""The fair-play review in the store: a thrown ranked game's gains taken back and their players' ratings
computed again from it on (`void_game`, in the transaction that stores the grade that found it), and the
profiles whose ranked games stay at the solver's own accuracy, for the server's operator (`assisted`,
`clear_fairplay`).
Mixed into `Store` (it provides `engine`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine

from .models import FairplayClear, GradedDecision, Profile, Rating, RatingChange
from .ranked import RankedStore

__all__ = ["AssistedRow", "FairplayStore", "Rate", "REVIEWED"]

REVIEWED = "review"  # a voided game's reason, on every one of its rating changes

# OpenSkill's update of one game: every rated player's (mu, sigma) before and their places -> each one's after
Rate = Callable[[list[tuple[float, float]], list[int]], list[tuple[float, float]]]


@dataclass(frozen=True)
class AssistedRow:
    """A profile whose graded ranked games of a preset lost (almost) nothing: the operator's list."""

    profile_id: str
    name: str
    preset: str
    games: int  # graded ranked games since the profile was last cleared
    accuracy: float  # their mean loss per decision
    last: datetime  # the newest of them


class FairplayStore:
    """The fair-play half of `Store`."""

    engine: Engine

    @staticmethod
    def void_game(conn: Connection, table_id: str, rate: Rate, now: datetime) -> list[str]:
        """A thrown ranked game: nobody's rating gains from it. Each of its changes that raised a player's
        rating (OpenSkill's ordinal, mu - 3 sigma, as the ladder ranks) is taken back (not rated, reason
        `review`); a change that lowered one stands (a player who throws a game they are losing still
        loses). The ratings of the players whose gain went are computed again from the game on: each later
        rated game of theirs, in the order they were rated, by `rate` from their ratings as they now stand
        and the other players' stored ratings before it (only these players' own rows change); their
        ratings and counts of rated games follow. The profiles whose ratings changed (none: nobody gained,
        or the game was voided already)."""

        def gainers() -> list[Any]:
            rows = conn.execute(
                select(
                    RatingChange.profile_id, RatingChange.preset, RatingChange.at, RatingChange.mu_before,
                    RatingChange.sigma_before, RatingChange.mu_after, RatingChange.sigma_after,
                ).where(
                    RatingChange.table_id == table_id, RatingChange.rated.is_(True),
                    RatingChange.profile_id.is_not(None),
                )
            ).all()  # fmt: skip
            return [r for r in rows if r.mu_after - 3 * r.sigma_after > r.mu_before - 3 * r.sigma_before]

        if not gainers():
            return []
        players = sorted(str(r.profile_id) for r in gainers())
        RankedStore.lock_profiles(conn, players)  # as a game's end does: the players' next game waits for this
        game = gainers()  # read again under the locks: another grade of this game may have voided it meanwhile
        if not game:
            return []
        preset, at = game[0].preset, game[0].at
        rows = conn.execute(
            select(Rating.profile_id, Rating.games)
            .where(Rating.preset == preset, Rating.profile_id.in_([r.profile_id for r in game]))
            .order_by(Rating.profile_id)
            .with_for_update()
        ).all()
        games = {pid: int(n) for pid, n in rows}
        now_of = {str(r.profile_id): (float(r.mu_before), float(r.sigma_before)) for r in game}
        conn.execute(
            update(RatingChange)
            .where(RatingChange.table_id == table_id, RatingChange.profile_id.in_(list(now_of)))
            .values(rated=False, reason=REVIEWED, mu_after=None, sigma_after=None)
        )
        later = (  # every later game that rated one of them when it ended, their rise taken back since or not
            select(RatingChange.table_id)
            .where(
                RatingChange.profile_id.in_(list(now_of)),
                RatingChange.mu_before.is_not(None),
                RatingChange.preset == preset,
                or_(RatingChange.at > at, and_(RatingChange.at == at, RatingChange.table_id > table_id)),
            )
            .distinct()
        )
        # each such game is rated again with every seat it rated (their stored ratings before it); of these
        # players, a row still rated changes and moves them on, a row taken back only shows where they stood
        after_rows = conn.execute(
            select(
                RatingChange.table_id, RatingChange.seat, RatingChange.profile_id, RatingChange.place,
                RatingChange.rated, RatingChange.mu_before, RatingChange.sigma_before, RatingChange.at,
            )
            .where(RatingChange.table_id.in_(later), RatingChange.mu_before.is_not(None))
            .order_by(RatingChange.at, RatingChange.table_id, RatingChange.seat)
        ).all()  # fmt: skip
        by_game: dict[tuple[datetime, str], list[Any]] = {}
        for r in after_rows:
            by_game.setdefault((r.at, r.table_id), []).append(r)
        for (_, later_id), seats in by_game.items():
            befores = [
                now_of[r.profile_id] if r.profile_id in now_of else (float(r.mu_before), float(r.sigma_before))
                for r in seats
            ]
            afters = rate(befores, [r.place for r in seats])
            for r, before, after in zip(seats, befores, afters, strict=True):
                if r.profile_id not in now_of:
                    continue
                row = and_(RatingChange.table_id == later_id, RatingChange.seat == r.seat)
                if r.rated:
                    values = {"mu_before": before[0], "sigma_before": before[1], "mu_after": after[0]}
                    conn.execute(update(RatingChange).where(row).values(**values, sigma_after=after[1]))
                    now_of[r.profile_id] = after
                else:
                    conn.execute(update(RatingChange).where(row).values(mu_before=before[0], sigma_before=before[1]))
        for pid, (mu, sigma) in now_of.items():
            conn.execute(
                update(Rating)
                .where(Rating.profile_id == pid, Rating.preset == preset)
                .values(mu=mu, sigma=sigma, games=max(0, games.get(pid, 0) - 1), updated_at=now)
            )
        return sorted(now_of)

    def assisted(self, least_games: int, most_loss: float) -> list[AssistedRow]:
        """Profiles with at least `least_games` graded ranked games of a preset since they were last cleared
        whose decisions lost at most `most_loss` points each on average: the solver's own accuracy is 0."""
        d = GradedDecision
        cleared = select(FairplayClear.cleared_at).where(FairplayClear.profile_id == d.profile_id).scalar_subquery()
        games = func.count(func.distinct(d.result_id))
        mean = func.avg(d.loss)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(d.profile_id, Profile.name, d.preset, games, mean, func.max(d.finished_at))
                .join(Profile, Profile.id == d.profile_id)
                .where(d.ranked.is_(True), or_(cleared.is_(None), d.finished_at > cleared))
                .group_by(d.profile_id, Profile.name, d.preset)
                .having(and_(games >= least_games, mean <= most_loss))
                .order_by(d.profile_id, d.preset)
            ).all()
        return [AssistedRow(r[0], r[1], r[2], int(r[3]), float(r[4]), r[5]) for r in rows]

    def clear_fairplay(self, profile_id: str, now: datetime) -> bool:
        """Take a profile off the operator's list (its ranked games from now on may list it again);
        False: there is no such profile."""
        with self.engine.begin() as conn:
            if conn.execute(select(Profile.id).where(Profile.id == profile_id)).first() is None:
                return False
            conn.execute(delete(FairplayClear).where(FairplayClear.profile_id == profile_id))
            conn.execute(insert(FairplayClear).values(profile_id=profile_id, cleared_at=now))
            return True
