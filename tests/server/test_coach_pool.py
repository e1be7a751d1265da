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
