"""A finished game becomes results in its players' histories: the engine's numbers, read once.

`table_results` reads a finished table's state for every seat that has a profile; `kept_result`
reads an imported kept sheet's record for the seat its owner says was theirs. Scores, wins, upper
bonuses and yams come from the engine's column scores; nothing is added up here.

`Grader` then grades each result's decisions with the coach, in a background thread: the player's
own turns taken as a solo game (`solo_record`), so that accuracy is always in points lost per
decision, whatever the table's match rules (decisions.md); each decision is kept as a row of its own
(`store/decisions.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeVar, TypeVarTuple

from sqlalchemy import Connection

from ...engine import GameRecord, GameState, replay, state_to_record
from ...rules import Ruleset
from ...store import DecisionRow, ResultRow, SeatRow, Store
from ...viewtypes import JSONObject
from ..common.coach import CoachPool
from ..common.events import Events, Graded

__all__ = ["Grade", "Grader", "kept_result", "solo_record", "table_results", "variant"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")

log = logging.getLogger("yambak.server")


def variant(rules: Ruleset) -> tuple[str, str]:
    """(preset, variant key): the preset's id, or "custom" for house rules, and `Ruleset.variant_key`
    (statistics are kept per variant)."""
    return rules.preset or "custom", rules.variant_key()


def _numbers(state: GameState, seat: int) -> dict[str, Any]:
    """What a result keeps of a seat's sheet, from the engine's column scores."""
    columns = state.column_scores(seat)
    yam_rows = [r.id for r in state.rules.rows if r.kind == "yam"]
    yams = [c.boxes[r] for c in columns for r in yam_rows]
    return {
        "score": state.total(seat),
        "bonus_columns": sum(1 for c in columns if c.bonus),
        "columns": len(columns),
        "yams": sum(1 for v in yams if v),
        "yam_boxes": len(yams),
        # a win at once (docs/rules.md §7): a board of one-seat games ranks it first (docs/rulesets.md)
        "outright_turn": state.outright.turn if state.outright is not None and seat in state.outright.seats else None,
    }


def table_results(
    table_id: str,
    seats: Iterable[SeatRow],
    state: GameState,
    now: datetime,
    kind: str = "table",
    deal: str | None = None,
) -> list[ResultRow]:
    """The results of a finished table for its seats with a profile. A score counts (personal bests,
    leaderboards) when its player neither asked the coach nor had a bot play a turn for them; a deal's
    game (`deal`) stays private to its player until the deal closes."""
    preset, key = variant(state.rules)
    winners = set(state.winners())
    people = len(state.players)
    out = []
    for s in seats:
        if s.profile_id is None or s.kind != "human":
            continue
        out.append(
            ResultRow(
                profile_id=s.profile_id,
                kind=kind,
                ref=table_id,
                seat=s.seat,
                preset=preset,
                rules_id=key,
                finished_at=now,
                won=people > 1 and s.seat in winners,
                players=people,
                counted=not s.assisted,
                deal_id=deal if kind != "table" else None,
                **_numbers(state, s.seat),
            )
        )
    return out


def kept_result(profile_id: str, ref: str, record: JSONObject, seat: int | None, now: datetime) -> ResultRow:
    """An imported kept sheet (RecordError for one that cannot be replayed, ValueError for one that is
    not finished or a seat it does not have). Kept sheets never count: the server did not roll them."""
    state = replay(record)
    if not state.finished:
        raise ValueError("only finished sheets join the history")
    if seat is not None and not 0 <= seat < len(state.players):
        raise ValueError(f"the sheet has no player {seat + 1}")
    preset, key = variant(state.rules)
    numbers: dict[str, Any] = _numbers(state, seat) if seat is not None else {"score": None}
    return ResultRow(
        profile_id=profile_id,
        kind="kept",
        ref=ref,
        seat=seat,
        preset=preset,
        rules_id=key,
        finished_at=now,
        won=seat is not None and len(state.players) > 1 and seat in state.winners(),
        players=len(state.players),
        counted=False,
        record=state_to_record(state).to_dict(),
        **numbers,
    )


def solo_record(record: JSONObject, seat: int) -> GameRecord:
    """One player's turns of a game as a game of their own: what the coach grades for statistics (the
    points their choices lost, whoever they played against)."""
    rec = state_to_record(replay(record))  # duplicate tables record their turns in round order: seat order
    turns = tuple(replace(t, player=0) for t in rec.turns if t.player == seat)
    return GameRecord(rules=rec.rules, players=(rec.players[seat],), turns=turns)


@dataclass(frozen=True)
class Grade:
    """One seat's game graded: points lost per decision (None: no decision had a choice), how many
    decisions, and each of them (the rows the store keeps)."""

    accuracy: float | None
    decisions: int
    rows: tuple[DecisionRow, ...] = ()


def grade(record: JSONObject, seat: int) -> Grade:
    """The coach's review of one seat's game (its own turns as a solo game), decision by decision."""
    from ...coach import review
    from ...rules import load_ruleset

    solo = solo_record(record, seat)
    result = review(solo)
    mine = result.for_player(0)
    key = load_ruleset(solo.rules).variant_key(duplicate=False)  # who got which dice is no other game
    rows = tuple(
        DecisionRow(
            turn=d.turn,
            roll=d.roll,
            kind="strike" if d.chosen.kind == "box" and d.chosen.strike else d.chosen.kind,
            box=d.box,
            dice=tuple(d.dice),
            chosen=d.chosen.to_dict(),
            best=d.best.to_dict(),
            options=d.options,
            loss=d.loss,
            unit=result.measure,
            exact=result.exact,
            rules_id=key,
        )
        for d in mine
    )
    return Grade(result.accuracy(0), len(mine), rows)


def review_dict(record: JSONObject) -> JSONObject:
    """The coach's review of a whole game, as the replay page reads it (runs in the coach's process)."""
    from ...coach import review

    players = record["players"]
    if not isinstance(players, list):
        raise TypeError("a game record lists its players")
    return review(record).to_dict(len(players))


class Grader:
    """Grades results with the coach, one at a time (a game's review takes from a few milliseconds to a
    second or two). With `processes`, the coach runs in a process of its own at a lower priority: in a
    thread of the server it would hold the interpreter lock the players' moves wait for (measured:
    p99 action-to-broadcast from 6 to 40 ms with 500 players finishing games, bench/load.py). Its thread
    touches the database as little: a table's record comes with its results, and the grade is written by
    the store's writer on the event loop, among the actions' writes (a thread's own transactions handed
    the interpreter lock back and forth with the busy loop at every round trip).

    Ranked games are graded first (the fair-play review waits for their grades); a grade is stored with
    the writes the features answer `Graded` with (`events`), in one transaction."""

    def __init__(
        self,
        store: Store,
        records: Callable[[ResultRow], JSONObject | None],
        processes: bool = True,
        share: float = 1.0,
        events: Events | None = None,
    ) -> None:
        self.store = store
        self.events = events or Events()
        self._queue: list[tuple[int, int, ResultRow, JSONObject | None]] = []  # (priority, order, ...)
        self._order = itertools.count()
        # the coach's process takes at most this share of a core: after each grade it waits (a grade is ~20 ms
        # of CPU; 500 games ending together are graded over 40 s at a quarter of a core, not 10 s at a whole)
        self.share = min(1.0, max(0.01, share))
        self._closing = threading.Event()
        self.records = records  # a result's game record (a table's final snapshot, or the kept record)
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yambak-grader")
        # started with the server, at idle priority (grades wait while the cores are busy, and a restart picks up
        # the ungraded); without processes (tests), grades are computed in `pool`'s thread
        self.coach: CoachPool | None = CoachPool(name="yambak-grades", idle=True) if processes else None
        self.idle = threading.Event()
        self.idle.set()
        self._pending = 0
        self._lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, where the store's writer runs

    def warm(self) -> None:
        """Start the coach's process now, with the server (not at the first game to grade); called on the
        server's event loop, whose writer then stores the grades."""
        with contextlib.suppress(RuntimeError):
            self.loop = asyncio.get_running_loop()
        if self.coach is not None:
            self.coach.warm()

    def submit(self, results: list[ResultRow], record: JSONObject | None = None, first: bool = False) -> None:
        """Grade these results (of one game, whose `record` the caller may have at hand) in the background;
        `first` (a ranked game's): before every waiting result that is not."""
        for r in results:
            if r.id is None or r.seat is None:
                continue
            with self._lock:
                self._pending += 1
                self.idle.clear()
                heapq.heappush(self._queue, (0 if first else 1, next(self._order), r, record))
            self.pool.submit(self._next)  # one job per result: each grades the most urgent one waiting

    def _next(self) -> None:
        with self._lock:
            _, _, r, record = heapq.heappop(self._queue)
        self._grade(r, record)

    def _store(self, r: ResultRow, graded: Grade) -> None:
        """The grade and its decisions' rows, in one transaction of the store's writer."""
        assert r.id is not None
        loop = self.loop
        grade_op = self.store.grade_op(r, graded.accuracy, graded.decisions, list(graded.rows))
        writes = self.events.collect(Graded(r, graded.accuracy))

        def op(conn: Connection) -> list[object]:
            grade_op(conn)
            return [w.op(conn) for w in writes]

        answers: list[object] | None = None
        if loop is not None and not loop.is_closed():
            try:  # a write takes milliseconds; a loop stopped meanwhile is a server going down (ungraded)
                answers = asyncio.run_coroutine_threadsafe(self.store.write(op), loop).result(10)
            except RuntimeError:  # closed: the server is going down
                pass
        if answers is None:
            answers = self.store.run_now(op)
        for w, answer in zip(writes, answers, strict=True):
            w.committed(answer)

    def _grade(self, r: ResultRow, record: JSONObject | None = None) -> None:
        try:
            record = record or r.record or self.records(r)
            graded, pause = Grade(None, 0), 0.0
            if record is not None and r.seat is not None:
                started = time.monotonic()
                try:
                    graded = self.run(grade, record, r.seat).result()
                except Exception:  # a ruleset the coach cannot advise on: no accuracy, never a failure
                    log.info("result %s: no grade", r.id, exc_info=True)
                pause = (time.monotonic() - started) * (1 / self.share - 1)
            self._store(r, graded)
            self._closing.wait(pause)  # the next grade waits: the coach's share of a core
        except Exception:
            log.exception("grading result %s", r.id)
        finally:
            with self._lock:
                self._pending -= 1
                if self._pending == 0:
                    self.idle.set()

    def run(self, fn: Callable[[*Ts], T], *args: *Ts) -> Future[T]:
        """`fn(*args)` in the coach's process (a module-level function, picklable arguments)."""
        if self.coach is not None:
            try:
                return self.coach.submit(fn, *args)
            except RuntimeError:  # shut down: the rest runs here
                pass
        done: Future[T] = Future()
        try:
            done.set_result(fn(*args))
        except Exception as exc:
            done.set_exception(exc)
        return done

    async def review(self, record: JSONObject) -> JSONObject:
        """The coach's review of a whole game (`review_dict`), off the event loop."""
        if self.coach is not None:
            return await asyncio.wrap_future(self.run(review_dict, record))
        return await asyncio.to_thread(review_dict, record)

    def wait(self, timeout: float = 30.0) -> bool:
        """Until every submitted grade is stored (tests, shutdown)."""
        return self.idle.wait(timeout)

    def close(self) -> None:
        self._closing.set()  # no more waits between grades
        self.loop = None  # a grade finishing now writes for itself: the loop is about to stop
        self.pool.shutdown(wait=False, cancel_futures=True)
        if self.coach is not None:
            self.coach.close()
