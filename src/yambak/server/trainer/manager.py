"""The trainer on the server: each preset's pool of positions, the next position for a player, the day's
position, and answers graded, rated and stored.

A preset's pool is generated from `POOL_SEED` on first use (`trainer.generate_pool`, in the trainer's
coach process at a lower priority, as the table's advice is: seconds of work that would otherwise hold
the interpreter lock the players' moves wait for; one preset at a time) and kept in memory: every
process holds the same seeded pool, so its ids name the same positions everywhere and the daily position
is the same for everybody. The positions of the preset's costliest stored graded decisions (closed deals
only, anonymous: `Store.biggest_mistakes`, read in this process; `trainer.mistakes`, rebuilt and re-graded
by the coach) join the pool then. Each process reads them at its own time, so they can differ between
processes: their puzzles are stored (`trainer_positions.puzzle`), and `position` reads an id its pool lacks
from the store, so every process (and a restarted one) answers them. The day's position is drawn from the
seeded part.

With a profile, an answer rates the profile and the position (OpenSkill, `trainer.rate`) in one
transaction with the answer's row, and moves the profile's streak; only its first answer to a position
does (a second try knows the answer: it is graded and kept in the history, unrated). Without one, the
device keeps its rating and streak and sends them with each answer; the server answers with the update
and stores nothing (the position's rating moves only with profiles' answers: a device could send any
rating).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection

from ...coach import measure_of
from ...rules import load_ruleset, preset_ids
from ...store import ProfileRow, Store, TrainerAnswerRow
from ...trainer import (
    POOL_SEED,
    POOL_SIZE,
    THRESHOLD,
    Choice,
    PoolSpec,
    Puzzle,
    Rating,
    TrainerError,
    daily_puzzle,
    generate_pool,
    grade,
    initial,
    keep_odds,
    rate,
)
from ...trainer.mistakes import Mistake, merge_pools, puzzles_of_mistakes
from ..common.clock import naive_utc
from ..common.coach import CoachPool
from ..live import RequestError
from ..settings import utc_now

__all__ = ["POOL_SEED", "POOL_SIZE", "Anonymous", "TrainerManager", "TrainingError"]

log = logging.getLogger("yambak.server")

NEAREST = 5  # the next position: one of this many unanswered ones nearest the player's rating
MISTAKES = 40  # stored decisions that lost most, rebuilt as positions and added to a preset's pool


@lru_cache(maxsize=32)
def _generated(spec: PoolSpec) -> tuple[Puzzle, ...]:
    """A pool, once per process: the same spec gives the same pool (every app of the process shares it)."""
    return generate_pool(spec)


class TrainingError(RequestError):
    """A refused trainer request (coded, never a traceback)."""


@dataclass(frozen=True)
class Anonymous:
    """What a device without a profile sends with an answer: its rating and streak."""

    rating: Rating
    streak: int = 0
    best_streak: int = 0


class TrainerManager:
    def __init__(
        self,
        store: Store,
        clock: Callable[[], datetime] = utc_now,
        size: int = POOL_SIZE,
        seed: int = POOL_SEED,
        threshold: float = THRESHOLD,
        coach: CoachPool | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.coach = coach  # where pools are generated (None: a thread of this process, cached per process)
        self.size, self.seed, self.threshold = size, seed, threshold
        self._pools: dict[str, tuple[Puzzle, ...]] = {}
        self._seeded: dict[str, tuple[Puzzle, ...]] = {}  # the seeded part of each pool (the daily's)
        self._by_id: dict[str, dict[str, Puzzle]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def close(self) -> None:
        """The coach's process stopped (at the server's stop)."""
        if self.coach is not None:
            self.coach.close()

    def now(self) -> datetime:
        """The server's clock, as the store's naive UTC (the daily position's day)."""
        return naive_utc(self.clock())

    # --- pools -------------------------------------------------------------------------------------------

    def spec(self, preset: str) -> PoolSpec:
        return PoolSpec(preset, size=self.size, seed=self.seed, threshold=self.threshold)

    async def pool(self, preset: str) -> tuple[Puzzle, ...]:
        if preset not in preset_ids():
            raise TrainingError("train/preset", f"the trainer has positions for the presets, not {preset[:40]!r}", 404)
        if preset not in self._pools:
            lock = self._locks.setdefault(preset, asyncio.Lock())
            async with lock:
                if preset not in self._pools:
                    try:
                        if self.coach is None:
                            pool = await asyncio.to_thread(_generated, self.spec(preset))
                        else:  # seconds of the coach's work: in a process of its own, off the players' path
                            pool = await asyncio.wrap_future(self.coach.submit(generate_pool, self.spec(preset)))
                    except Exception:  # the coach's process died (killed, out of memory): the next asking retries
                        log.exception("trainer pool of %s", preset)
                        raise TrainingError(
                            "train/unavailable", "the trainer's positions are not ready: try again in a moment", 503
                        ) from None
                    self._seeded[preset] = pool
                    pool = merge_pools(pool, await self._mistakes(preset))
                    await self._keep(preset, pool[len(self._seeded[preset]) :])
                    self._by_id[preset] = {p.id: p for p in pool}
                    self._pools[preset] = pool
        if not self._pools[preset]:  # a ruleset where the obvious choice is never 2 points off: nothing to train
            raise TrainingError("train/empty-pool", "this ruleset has no trainer positions", 404)
        return self._pools[preset]

    async def _mistakes(self, preset: str) -> tuple[Puzzle, ...]:
        """The positions of the preset's costliest stored decisions (closed deals only, anonymous), each
        graded afresh by the coach; none when that fails (the seeded pool stands alone)."""
        try:
            rules = load_ruleset(preset)
            key, unit = rules.variant_key(duplicate=False), measure_of(rules)  # the threshold is in that unit
            rows = await self.store.read(self.store.biggest_mistakes, key, self.now(), self.threshold, MISTAKES, unit)
            mistakes = [Mistake(r.record, r.seat, r.turn, r.roll, r.kind) for r in rows]
            if not mistakes:
                return ()
            if self.coach is None:
                return await asyncio.to_thread(puzzles_of_mistakes, mistakes, preset, self.threshold)
            return await asyncio.wrap_future(self.coach.submit(puzzles_of_mistakes, mistakes, preset, self.threshold))
        except Exception:
            log.exception("trainer positions from stored decisions of %s", preset)
            return ()

    async def _keep(self, preset: str, extra: tuple[Puzzle, ...]) -> None:
        """The positions rebuilt from mistakes, stored: another process (or this one after a restart) reads
        them for the ids it hands out (its own pool's mistakes may differ: read at another time)."""
        if not extra:
            return
        start, now = initial(), self.now()
        rows = [(p.id, json.dumps(p.to_dict())) for p in extra]

        def op(conn: Connection) -> None:
            Store.store_trainer_puzzles(conn, preset, rows, start.mu, start.sigma, now)

        try:
            await self.store.write(op)
        except Exception:  # the positions stay this process's: answered here, a 404 elsewhere
            log.exception("storing trainer positions of %s", preset)

    async def position(self, preset: str, position_id: str) -> Puzzle:
        await self.pool(preset)
        puzzle = self._by_id[preset].get(position_id)
        if puzzle is None and len(position_id) <= 32:  # a position another process rebuilt from a mistake
            text = await self.store.read(self.store.trainer_puzzle, preset, position_id)
            if text is not None:
                puzzle = self._by_id[preset][position_id] = Puzzle.from_dict(json.loads(text))
        if puzzle is None:
            raise TrainingError("train/position", "no such trainer position for this ruleset", 404)
        return puzzle

    async def daily(self, preset: str, day: date | None = None) -> Puzzle:
        """The day's position (UTC), the same for everybody."""
        pool = await self.pool(preset)  # the seeded positions where there are any: `yambak train --daily`'s
        return daily_puzzle(self._seeded[preset] or pool, day or self.now().date())

    # --- the next position -------------------------------------------------------------------------------

    async def next_for(
        self, preset: str, profile: ProfileRow | None, rating: Rating | None, skip: frozenset[str] = frozenset()
    ) -> tuple[Puzzle, Rating, int | None]:
        """A position for the player to try next: one not solved yet (never answered first), among those
        whose puzzle rating is nearest the player's; the player's rating and (a profile's) streak."""
        pool = await self.pool(preset)
        answered: dict[str, bool] = {}
        streak = None
        if profile is not None:
            row = await self.store.read(self.store.trainer_rating, profile.id, preset)
            rating = Rating(row.mu, row.sigma) if row is not None else initial()
            streak = row.streak if row is not None else 0
            answered = await self.store.read(self.store.answered_positions, profile.id, preset)
        rating = rating or initial()
        fresh = [p for p in pool if p.id not in answered and p.id not in skip]
        unsolved = [p for p in pool if not answered.get(p.id, False) and p.id not in skip]
        candidates = fresh or unsolved or list(pool)
        stored = await self.store.read(self.store.position_ratings, [p.id for p in candidates])
        start = initial()

        def distance(p: Puzzle) -> float:
            mu = stored[p.id][0] if p.id in stored else start.mu
            return abs(mu - rating.mu)

        nearest = sorted(candidates, key=distance)[:NEAREST]
        return random.choice(nearest), rating, streak

    # --- answers ------------------------------------------------------------------------------------------

    async def answer(
        self, preset: str, position_id: str, choice: Any, profile: ProfileRow | None, anonymous: Anonymous | None
    ) -> dict[str, Any]:
        """Grade an answer and rate it: the grade, the player's rating before and after, the streak."""
        puzzle = await self.position(preset, position_id)
        try:  # off the event loop: a keep's odds cost up to 0.2 s a ruleset (0.75 s to import the first time)
            result = await asyncio.to_thread(grade, puzzle, Choice.from_dict(choice), keep_odds)
        except TrainerError as exc:
            raise TrainingError(exc.code, exc.message) from None
        is_daily = puzzle.id == (await self.daily(preset)).id
        now = self.now()
        if profile is None:
            if anonymous is None:
                raise TrainingError("train/rating", "without a profile, send your rating (mu, sigma) and streak")
            stored = await self.store.read(self.store.position_ratings, [puzzle.id])
            position = Rating(*stored[puzzle.id][:2]) if puzzle.id in stored else initial()
            after, _ = rate(anonymous.rating, position, result.solved)
            streak = anonymous.streak + 1 if result.solved else 0
            best = max(anonymous.best_streak, streak)
            return self._answered(result, anonymous.rating, after, streak, best, is_daily, None)
        start = initial()
        pid = profile.id

        def op(conn: Connection) -> tuple[Rating, Rating, int, int, Rating, bool]:
            mu, sigma = Store.lock_position(conn, puzzle.id, preset, start.mu, start.sigma, now)
            row = Store.lock_trainer_rating(conn, pid, preset, start.mu, start.sigma, now)
            before = Rating(row.mu, row.sigma)
            rated = not Store.answered_before(conn, pid, puzzle.id)  # a second try knows the answer: not rated
            if rated:
                after, position = rate(before, Rating(mu, sigma), result.solved)
                streak = row.streak + 1 if result.solved else 0
                new = replace(
                    row, mu=after.mu, sigma=after.sigma, answers=row.answers + 1,
                    solved=row.solved + int(result.solved), streak=streak, best_streak=max(row.best_streak, streak),
                )  # fmt: skip
                Store.store_position(conn, puzzle.id, position.mu, position.sigma, result.solved, now)
            else:
                after, position, new = before, Rating(mu, sigma), row
            answer = TrainerAnswerRow(
                puzzle.id, json.dumps(result.chosen.choice.to_dict()), result.loss, result.solved, is_daily,
                after.mu, after.sigma, now,
            )  # fmt: skip
            Store.store_answer(conn, new, answer)
            return before, after, new.streak, new.best_streak, position, rated

        before, after, streak, best, position, rated = await self.store.write(op)
        return self._answered(result, before, after, streak, best, is_daily, position, rated)

    @staticmethod
    def _answered(
        result: Any,
        before: Rating,
        after: Rating,
        streak: int,
        best: int,
        is_daily: bool,
        position: Rating | None,
        rated: bool = True,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {
            **result.to_dict(),
            "rated": rated,
            "rating": {"before": before.to_dict(), "after": after.to_dict()},
            "streak": streak,
            "best_streak": best,
            "daily": is_daily,
        }
        if position is not None:
            out["position_rating"] = position.to_dict()
        return out

    # --- history ------------------------------------------------------------------------------------------

    async def history(self, profile: ProfileRow, preset: str | None, limit: int) -> dict[str, Any]:
        if preset is not None and preset not in preset_ids():
            raise TrainingError("train/preset", f"the trainer has positions for the presets, not {preset[:40]!r}", 404)
        ratings = await self.store.read(self.store.trainer_ratings, profile.id)
        answers = await self.store.read(self.store.trainer_history, profile.id, preset, limit)
        return {
            "ratings": [
                {
                    "preset": r.preset, **Rating(r.mu, r.sigma).to_dict(), "answers": r.answers, "solved": r.solved,
                    "streak": r.streak, "best_streak": r.best_streak,
                }
                for r in ratings
                if preset is None or r.preset == preset
            ],
            "answers": [
                {
                    "preset": a.preset, "position": a.position_id, "choice": json.loads(a.choice),
                    "loss": round(a.loss, 4), "solved": a.solved, "daily": a.daily,
                    "rating": Rating(a.mu_after, a.sigma_after).to_dict(), "at": a.at.isoformat() + "Z",
                }
                for a in answers
            ],
        }  # fmt: skip
