"""The coach's process (server/common/coach.py): advice, par games and grades run there, off the players'
interpreter lock. When that process dies (killed, out of memory), the work it held fails and the next
request gets a new process; a closed pool refuses work, as a shut-down executor does."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import BrokenExecutor

import pytest

from yambak.server.common.coach import CoachPool


def test_a_dead_coach_process_is_replaced_by_the_next_request() -> None:
    pool = CoachPool(processes=True, name="test-coach")
    try:
        first = pool.submit(os.getpid).result(timeout=60)
        assert first == pool.pid() and first != os.getpid()
        held = pool.submit(time.sleep, 30)  # work it holds when it dies
        os.kill(first, signal.SIGKILL)
        with pytest.raises(BrokenExecutor):
            held.result(timeout=60)
        second = pool.submit(os.getpid).result(timeout=60)
        assert second not in (first, os.getpid()) and pool.submit(sum, [1, 2]).result(timeout=60) == 3
    finally:
        pool.close()
    with pytest.raises(RuntimeError):
        pool.submit(os.getpid)


def test_grades_run_only_on_idle_cores_and_advice_below_the_server() -> None:
    """Grades (nobody waits for them) take a core only when nothing else wants it: 500 games ending together
    once took the cores PostgreSQL and the server needed. Advice (a player waits) runs at nice 10."""
    grades, advice = CoachPool(name="test-grades", idle=True), CoachPool(name="test-advice")
    try:
        grades.warm()
        grader = grades.submit(os.getpid).result(timeout=60)
        assert os.sched_getscheduler(grader) == os.SCHED_IDLE
        adviser = advice.submit(os.getpid).result(timeout=60)
        assert os.sched_getscheduler(adviser) == os.SCHED_OTHER
        assert os.getpriority(os.PRIO_PROCESS, adviser) == os.getpriority(os.PRIO_PROCESS, 0) + 10
    finally:
        grades.close()
        advice.close()
