"""Graded decisions in the store: every decision of a graded game, as the coach's review graded it, written
with the result's grade (`grade_op`, by the store's writer), and what they say of a ruleset's players as
anonymous aggregates (`decision_losses`). Mixed into `Store`.

The rows go with their result (a kept sheet imported again) and with their profile (deleted). A deal's
games stay out of every aggregate until the deal closes (docs/daily.md): duplicate dice do not depend on
holds, so even a count of keeps per box would tell of dice others are still to play.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, Engine

from ..viewtypes import JSONObject
from .daily import closed_sql
from .models import Deal, GameSession, GradedDecision, Result
from .profiles import ResultRow

__all__ = ["DecisionRow", "DecisionStore", "KindLoss", "Losses", "MIN_GAMES", "MistakeRow"]

T = TypeVar("T")

MIN_GAMES = 100  # graded games of a ruleset before its players' losses are shown (anonymous enough, and steady)
UNIT = "score"  # the aggregates' unit: expected points (grades are of each player's own turns as a solo game)


@dataclass(frozen=True)
class DecisionRow:
    """One graded decision of a result's seat, as the grader computes it (picklable: made in the coach's
    process). `kind` is the choice made: keep | box | strike | announce."""

    turn: int
    roll: int
    kind: str
    box: str
    dice: tuple[int, ...]
    chosen: JSONObject
    best: JSONObject
    options: int
    loss: float
    unit: str
    exact: bool
    rules_id: str


@dataclass(frozen=True)
class KindLoss:
    """What one kind of decision (or one box of it) cost a ruleset's players."""

    kind: str
    box: str | None  # None: the kind over every box
    count: int
    mistakes: int  # decisions that lost anything
    mean_loss: float
    total_loss: float
    share: float  # of every decision's loss in these games


@dataclass(frozen=True)
class Losses:
    rules_id: str
    games: int  # graded games in the aggregate
    enough: bool  # at least `MIN_GAMES`: the kinds are shown
    unit: str = UNIT
    kinds: tuple[tuple[KindLoss, tuple[KindLoss, ...]], ...] = field(default_factory=tuple)  # the costliest first


@dataclass(frozen=True)
class MistakeRow:
    """A stored decision that lost much, anonymous: its game's record (players renamed "Player N", without
    seed or fairness), the seat, its own turn and roll, the kind of choice made and what it lost."""

    record: JSONObject
    seat: int
    turn: int
    roll: int
    kind: str
    loss: float


def _flags(conn: Connection, result: ResultRow) -> tuple[bool, bool]:
    """(ranked, duplicate) of a result's game, from its table's stored row (a kept sheet is neither)."""
    if result.kind == "kept":
        return False, False
    row = conn.execute(select(GameSession.duplicate, GameSession.settings).where(GameSession.id == result.ref)).first()
    if row is None:
        return False, result.deal_id is not None
    settings = row.settings if isinstance(row.settings, dict) else {}
    return isinstance(settings.get("ranked"), str), bool(row.duplicate) or result.deal_id is not None


class DecisionStore:
    """The graded decisions' half of `Store` (it provides `engine` and `_sync`)."""

    engine: Engine

    def _sync(self, op: Callable[[Connection], T]) -> T:  # pragma: no cover - Store's
        raise NotImplementedError

    @staticmethod
    def grade_op(
        result: ResultRow, accuracy: float | None, decisions: int, rows: list[DecisionRow]
    ) -> Callable[[Connection], None]:
        """A result's grade: its accuracy and count of decisions, and its decisions' rows (replacing any
        it had: a grade written twice is written once)."""

        def op(conn: Connection) -> None:
            conn.execute(update(Result).where(Result.id == result.id).values(accuracy=accuracy, decisions=decisions))
            conn.execute(delete(GradedDecision).where(GradedDecision.result_id == result.id))
            owner = conn.execute(select(Result.profile_id).where(Result.id == result.id)).scalar()
            if not rows or result.seat is None or owner != result.profile_id:
                return  # its profile was deleted meanwhile (the result gone, or kept by a nameless stand-in)
            ranked, duplicate = _flags(conn, result)
            common = {
                "result_id": result.id, "profile_id": result.profile_id, "table_id": result.ref,
                "seat": result.seat, "preset": result.preset, "source": result.kind, "ranked": ranked,
                "duplicate": duplicate, "counted": result.counted, "deal_id": result.deal_id,
                "finished_at": result.finished_at,
            }  # fmt: skip
            conn.execute(
                insert(GradedDecision),
                [
                    {
                        **common,
                        "rules_id": r.rules_id,
                        "turn": r.turn,
                        "roll": r.roll,
                        "kind": r.kind,
                        "box": r.box,
                        "dice": list(r.dice),
                        "chosen": r.chosen,
                        "best": r.best,
                        "options": r.options,
                        "loss": r.loss,
                        "unit": r.unit,
                        "exact": r.exact,
                    }
                    for r in rows
                ],
            )

        return op

    def set_grade(self, result: ResultRow, accuracy: float | None, decisions: int, rows: list[DecisionRow]) -> None:
        self._sync(self.grade_op(result, accuracy, decisions, rows))

    def run_now(self, op: Callable[[Connection], T]) -> T:
        """An operation in a transaction of its own, now, in the calling thread (the writer's are on the
        event loop: a grade stored while the server goes down comes here)."""
        return self._sync(op)

    def graded_decisions(self, result_id: int) -> list[dict[str, object]]:
        """A result's decisions as stored, in the order they were taken."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(GradedDecision).where(GradedDecision.result_id == result_id).order_by(GradedDecision.id)
            ).mappings()
            return [dict(r) for r in rows]

    def open_deals(self, now: datetime) -> tuple[str, ...]:
        """The ids of the deals still open at `now` (an aggregate without them holds while they stay so)."""
        with self.engine.connect() as conn:
            return tuple(sorted(conn.execute(select(Deal.id).where(~closed_sql(now))).scalars()))

    def decision_losses(self, rules_id: str, now: datetime, min_games: int = MIN_GAMES, unit: str = UNIT) -> Losses:
        """Where a ruleset's players lose points (`rules_id`: a preset's id, or a table's own rules' variant
        key without the duplicate modifier): the games the server rolled without help (no kept sheets,
        which anyone can type, no hinted games), and of deals only those closed at `now`. Per kind of
        decision and per box of each kind: how many, how many lost anything, the mean and total loss and
        its share of all the loss; the costliest first. The kinds only once there are `min_games` games.
        `unit`: the coach's measure of the ruleset's grades (`coach.measure_of`: Balut's are category points)."""
        closed = select(Deal.id).where(closed_sql(now))
        where = [
            GradedDecision.rules_id == rules_id,
            GradedDecision.unit == unit,
            GradedDecision.source != "kept",
            GradedDecision.counted.is_(True),
            or_(GradedDecision.deal_id.is_(None), GradedDecision.deal_id.in_(closed)),
        ]
        d = GradedDecision
        with self.engine.connect() as conn:
            games = int(conn.execute(select(func.count(func.distinct(d.result_id))).where(*where)).scalar_one())
            if games < min_games:
                return Losses(rules_id, games, False, unit)
            erred = func.count().filter(d.loss > 1e-9)
            by_box = conn.execute(
                select(d.kind, d.box, func.count(), erred, func.sum(d.loss)).where(*where).group_by(d.kind, d.box)
            ).all()
        sums: dict[str, list[float]] = {}  # each kind's count, mistakes and loss: its boxes' added up
        for kind, _, n, mistakes, loss in by_box:
            into = sums.setdefault(kind, [0, 0, 0.0])
            into[0], into[1], into[2] = into[0] + n, into[1] + mistakes, into[2] + float(loss or 0.0)
        total = sum(v[2] for v in sums.values())

        def row(kind: str, box: str | None, n: float, mistakes: float, summed: Any) -> KindLoss:
            loss = float(summed or 0.0)
            return KindLoss(kind, box, int(n), int(mistakes), loss / n, loss, loss / total if total else 0.0)

        kinds = []
        for kind, (count, erred_count, lost) in sums.items():
            boxes = [row(k, b, bn, bm, bl) for k, b, bn, bm, bl in by_box if k == kind]
            boxes.sort(key=lambda x: (-x.total_loss, x.box or ""))
            kinds.append((row(kind, None, count, erred_count, lost), tuple(boxes)))
        kinds.sort(key=lambda x: (-x[0].total_loss, x[0].kind))
        return Losses(rules_id, games, True, unit, tuple(kinds))

    def biggest_mistakes(
        self, rules_id: str, now: datetime, threshold: float, limit: int, unit: str = UNIT
    ) -> list[MistakeRow]:
        """The costliest stored decisions of a ruleset (a loss of at least `threshold` expected points), the
        costliest first, at most `limit`, for the trainer's pool: games the server rolled (no kept sheets),
        of deals only those closed at `now` (docs/daily.md), and only where the table's finished record is
        still stored. Nothing names a player: no profile, no name, no table id leaves here."""
        closed = select(Deal.id).where(closed_sql(now))
        d = GradedDecision
        where = [
            d.rules_id == rules_id,
            d.unit == unit,
            d.source != "kept",
            d.loss >= threshold,
            or_(d.deal_id.is_(None), d.deal_id.in_(closed)),
        ]
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(d.table_id, d.seat, d.turn, d.roll, d.kind, d.loss)
                .where(*where)
                .order_by(d.loss.desc(), d.id)
                .limit(limit)
            ).all()
            tables = sorted({r.table_id for r in rows})
            found = conn.execute(
                select(GameSession.id, GameSession.record).where(
                    GameSession.id.in_(tables), GameSession.kind == "table", GameSession.finished.is_(True)
                )
            ).all()
        records = {table_id: record for table_id, record in found if isinstance(record, dict)}
        out = []
        for r in rows:
            record = records.get(r.table_id)
            if record is None:
                continue
            players = record.get("players") or []
            anonymous = {k: v for k, v in record.items() if k not in ("players", "seed", "fairness")}
            anonymous["players"] = [f"Player {i + 1}" for i in range(len(players))]
            out.append(MistakeRow(anonymous, int(r.seat), int(r.turn), int(r.roll), str(r.kind), float(r.loss)))
        return out
