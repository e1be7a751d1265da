"""The trainer in the store: positions' puzzle ratings, profiles' puzzle ratings per preset, their answers.
Mixed into `Store` (it provides `engine`).

An answer is stored in one transaction (`server/trainer`): the position's and the profile's rating rows
are made where missing and locked (the position first, then the profile: one order for everybody), read,
rated and written back with the answer's row.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .models import TrainerAnswer, TrainerPosition, TrainerRating

__all__ = ["TrainerAnswerRow", "TrainerRatingRow", "TrainerStore"]


@dataclass(frozen=True)
class TrainerRatingRow:
    profile_id: str
    preset: str
    mu: float
    sigma: float
    answers: int
    solved: int
    streak: int
    best_streak: int


@dataclass(frozen=True)
class TrainerAnswerRow:
    position_id: str
    choice: str  # JSON
    loss: float
    solved: bool
    daily: bool
    mu_after: float
    sigma_after: float
    at: datetime
    preset: str = ""  # as read back (an answer being stored takes its rating's)


def _insert(conn: Connection) -> type[postgresql.Insert] | type[sqlite.Insert]:
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert  # type: ignore[return-value]


class TrainerStore:
    """The trainer's half of `Store`."""

    engine: Engine

    # --- in an answer's own transaction ---------------------------------------------------------------

    @staticmethod
    def lock_position(
        conn: Connection, position_id: str, preset: str, mu: float, sigma: float, now: datetime
    ) -> tuple[float, float]:
        """A position's rating, made (at mu, sigma) where missing, locked until the transaction ends."""
        row = {"position_id": position_id, "preset": preset, "mu": mu, "sigma": sigma, "updated_at": now}
        conn.execute(_insert(conn)(TrainerPosition).values(**row, answers=0, solved=0).on_conflict_do_nothing())
        found = conn.execute(
            select(TrainerPosition.mu, TrainerPosition.sigma)
            .where(TrainerPosition.position_id == position_id)
            .with_for_update()
        ).one()
        return float(found[0]), float(found[1])

    @staticmethod
    def lock_trainer_rating(
        conn: Connection, profile_id: str, preset: str, mu: float, sigma: float, now: datetime
    ) -> TrainerRatingRow:
        """A profile's puzzle rating of a preset, made (at mu, sigma) where missing, locked until the end."""
        row = {"profile_id": profile_id, "preset": preset, "mu": mu, "sigma": sigma, "updated_at": now}
        zero = {"answers": 0, "solved": 0, "streak": 0, "best_streak": 0}
        conn.execute(_insert(conn)(TrainerRating).values(**row, **zero).on_conflict_do_nothing())
        found = conn.execute(
            select(*_RATING).where(TrainerRating.profile_id == profile_id, TrainerRating.preset == preset)
            .with_for_update()
        ).one()  # fmt: skip
        return _rating(found)

    @staticmethod
    def answered_before(conn: Connection, profile_id: str, position_id: str) -> bool:
        """Whether the profile answered the position before (only a first answer rates)."""
        found = conn.execute(
            select(TrainerAnswer.id)
            .where(TrainerAnswer.profile_id == profile_id, TrainerAnswer.position_id == position_id)
            .limit(1)
        ).first()
        return found is not None

    @staticmethod
    def store_position(
        conn: Connection, position_id: str, mu: float, sigma: float, solved: bool, now: datetime
    ) -> None:
        conn.execute(
            update(TrainerPosition)
            .where(TrainerPosition.position_id == position_id)
            .values(
                mu=mu, sigma=sigma, answers=TrainerPosition.answers + 1,
                solved=TrainerPosition.solved + int(solved), updated_at=now,
            )
        )  # fmt: skip

    @staticmethod
    def store_answer(conn: Connection, rating: TrainerRatingRow, answer: TrainerAnswerRow) -> None:
        """The profile's rating after the answer (`rating`), and the answer itself."""
        conn.execute(
            update(TrainerRating)
            .where(TrainerRating.profile_id == rating.profile_id, TrainerRating.preset == rating.preset)
            .values(
                mu=rating.mu, sigma=rating.sigma, answers=rating.answers, solved=rating.solved,
                streak=rating.streak, best_streak=rating.best_streak, updated_at=answer.at,
            )
        )  # fmt: skip
        conn.execute(
            insert(TrainerAnswer).values(
                profile_id=rating.profile_id, preset=rating.preset, position_id=answer.position_id,
                choice=answer.choice, loss=answer.loss, solved=answer.solved, daily=answer.daily,
                mu_after=answer.mu_after, sigma_after=answer.sigma_after, at=answer.at,
            )
        )  # fmt: skip

    # --- positions rebuilt from mistakes ------------------------------------------------------------

    @staticmethod
    def store_trainer_puzzles(
        conn: Connection, preset: str, puzzles: Iterable[tuple[str, str]], mu: float, sigma: float, now: datetime
    ) -> None:
        """Positions' puzzles (id, JSON) of a preset, kept beside their ratings (made at mu, sigma where
        missing): a position made by one server process is known to every other."""
        rows = [
            {"position_id": pid, "preset": preset, "mu": mu, "sigma": sigma, "answers": 0, "solved": 0,
             "updated_at": now, "puzzle": text}
            for pid, text in puzzles
        ]  # fmt: skip
        for row in rows:
            stmt = _insert(conn)(TrainerPosition).values(**row)
            conn.execute(
                stmt.on_conflict_do_update(index_elements=["position_id"], set_={"puzzle": stmt.excluded.puzzle})
            )

    def trainer_puzzle(self, preset: str, position_id: str) -> str | None:
        """A stored position's puzzle JSON, where the preset has one of that id."""
        with self.engine.connect() as conn:
            found = conn.execute(
                select(TrainerPosition.puzzle).where(
                    TrainerPosition.position_id == position_id, TrainerPosition.preset == preset
                )
            ).first()
            return None if found is None or found[0] is None else str(found[0])

    # --- reading ----------------------------------------------------------------------------------------

    def trainer_rating(self, profile_id: str, preset: str) -> TrainerRatingRow | None:
        with self.engine.connect() as conn:
            found = conn.execute(
                select(*_RATING).where(TrainerRating.profile_id == profile_id, TrainerRating.preset == preset)
            ).first()
            return _rating(found) if found is not None else None

    def trainer_ratings(self, profile_id: str) -> list[TrainerRatingRow]:
        """A profile's puzzle ratings, every preset it answered in."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(*_RATING).where(TrainerRating.profile_id == profile_id).order_by(TrainerRating.preset)
            )
            return [_rating(r) for r in rows]

    def position_ratings(self, position_ids: Iterable[str]) -> dict[str, tuple[float, float, int, int]]:
        """Positions' (mu, sigma, answers, solved), where stored."""
        ids = list(set(position_ids))
        if not ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    TrainerPosition.position_id, TrainerPosition.mu, TrainerPosition.sigma, TrainerPosition.answers,
                    TrainerPosition.solved,
                ).where(TrainerPosition.position_id.in_(ids))
            )  # fmt: skip
            return {r[0]: (float(r[1]), float(r[2]), int(r[3]), int(r[4])) for r in rows}

    def trainer_history(self, profile_id: str, preset: str | None = None, limit: int = 100) -> list[TrainerAnswerRow]:
        """A profile's answers (of one preset, or all), the latest first."""
        where = [TrainerAnswer.profile_id == profile_id]
        if preset is not None:
            where.append(TrainerAnswer.preset == preset)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    TrainerAnswer.position_id, TrainerAnswer.choice, TrainerAnswer.loss, TrainerAnswer.solved,
                    TrainerAnswer.daily, TrainerAnswer.mu_after, TrainerAnswer.sigma_after, TrainerAnswer.at,
                    TrainerAnswer.preset,
                )
                .where(*where)
                .order_by(TrainerAnswer.at.desc(), TrainerAnswer.id.desc())
                .limit(limit)
            )  # fmt: skip
            return [TrainerAnswerRow(*r) for r in rows]

    def answered_positions(self, profile_id: str, preset: str) -> dict[str, bool]:
        """The positions of a preset a profile answered: id -> whether any answer solved it."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(TrainerAnswer.position_id, TrainerAnswer.solved).where(
                    TrainerAnswer.profile_id == profile_id, TrainerAnswer.preset == preset
                )
            )
            out: dict[str, bool] = {}
            for pid, solved in rows:
                out[pid] = out.get(pid, False) or bool(solved)
            return out


_RATING = (
    TrainerRating.profile_id, TrainerRating.preset, TrainerRating.mu, TrainerRating.sigma, TrainerRating.answers,
    TrainerRating.solved, TrainerRating.streak, TrainerRating.best_streak,
)  # fmt: skip


def _rating(r: Any) -> TrainerRatingRow:
    return TrainerRatingRow(str(r[0]), str(r[1]), float(r[2]), float(r[3]), *(int(v) for v in r[4:8]))
