"""The coach's work for a server (advice at a table, reviews and grades of finished games), off the players'
path: in a process of its own at a lower priority. In a thread of the server it would hold the interpreter
lock the players' moves wait for (measured with bench/load.py: grading in a thread took p99 from 6 to
40-54 ms; 20 sockets asking for advice took a victim's median from 13 to 294 ms, bench/flood.py).

`CoachPool` runs module-level functions there (picklable arguments); `Asker` bounds one client's requests:
one computation at a time, and a newer request replaces the one still waiting or running (its answer
would be for a position the client has left)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, TypeVar, TypeVarTuple

__all__ = ["Asker", "CoachPool", "coach_process_start"]

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def coach_process_start(parent: int, idle: bool = False) -> None:
    """A coach process: lower priority than the server's, and gone when the server is. `idle` (background
    work nobody waits for: grades, about 20 ms of CPU per yams game, so ten seconds of a core when 500 games
    end together): it runs only on a core nothing else wants (Linux's SCHED_IDLE; else the lowest nice),
    where nice 10 still takes a share of the cores the players' moves and PostgreSQL need."""
    if idle:
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except (AttributeError, OSError):
            os.nice(19)
    else:
        os.nice(10)  # the coach waits; the players' moves do not

    def follow_parent() -> None:  # a server killed outright leaves no coach behind
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=follow_parent, name="yambak-coach-parent", daemon=True).start()


def _ready() -> bool:
    import yambak.coach  # noqa: F401  # what the coach's work needs, imported before it is asked for

    return True


class CoachPool:
    """One coach process (spawned on first use: a fork of a threaded server is unsafe), or, with
    `processes` false (tests), one thread of this process."""

    def __init__(self, processes: bool = True, name: str = "yambak-coach", idle: bool = False) -> None:
        self.processes, self.name, self.idle = processes, name, idle
        self._executor: Executor | None = None
        self._closed = False
        self._lock = threading.Lock()

    def _pool(self) -> Executor:
        with self._lock:
            if self._closed:  # as an executor shut down says it
                raise RuntimeError("the coach's pool is closed")
            if self._executor is None:
                if self.processes:
                    self._executor = ProcessPoolExecutor(
                        1,
                        mp_context=multiprocessing.get_context("spawn"),
                        initializer=coach_process_start,
                        initargs=(os.getpid(), self.idle),
                    )
                else:
                    self._executor = ThreadPoolExecutor(1, thread_name_prefix=self.name)
            return self._executor

    def submit(self, fn: Callable[[*Ts], T], *args: *Ts) -> Future[T]:
        """`fn(*args)` there (a module-level function, picklable arguments). The coach's process died (killed,
        out of memory): the work it held fails, and this and what follows go to a new one."""
        pool = self._pool()
        try:
            return pool.submit(fn, *args)
        except BrokenExecutor:
            with self._lock:
                if self._executor is pool:
                    self._executor = None
            pool.shutdown(wait=False, cancel_futures=True)
            return self._pool().submit(fn, *args)

    def warm(self) -> None:
        """Start the process now (its interpreter and imports take a second of CPU: at start-up, not in the
        middle of a busy moment such as the first game to grade)."""
        self.submit(_ready)

    def pid(self) -> int | None:
        """The coach's process, once started (tests)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return next(iter(processes), None)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = None


class Asker:
    """One client's requests to the coach (a socket's `advise`): one computation at a time; a newer
    request cancels the one waiting or running (its coroutine sees the cancellation and answers it as replaced)."""

    def __init__(self, pool: CoachPool) -> None:
        self.pool = pool
        self.task: asyncio.Task[Any] | None = None
        self.running: Future[Any] | None = None

    def start(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run the client's newest request (`coro`, which calls `compute`), cancelling the one before."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
        self.task = asyncio.get_running_loop().create_task(coro)
        return self.task

    async def compute(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in the coach's pool, once the client's computation before it is over (one at a time:
        one cancelled while running in the process still finishes there)."""
        while self.running is not None and not self.running.done():
            await asyncio.wait([asyncio.wrap_future(self.running)])
        self.running = self.pool.submit(fn, *args)
        return await asyncio.wrap_future(self.running)  # cancelled: a request not started never runs

    def close(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
