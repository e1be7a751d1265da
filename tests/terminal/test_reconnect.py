"""The online client's reconnection: a server that drops every socket is tried again at most every
`RECONNECT_AT_MOST` seconds, so a restarted server finds its players within a couple of seconds."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from yambak.terminal.online import RECONNECT_AT_MOST, OnlineTable, SavedState


def test_reconnection_attempts_are_at_most_two_seconds_apart(tmp_path: Path) -> None:
    import websockets

    attempts: list[float] = []

    async def drop(ws: websockets.ServerConnection) -> None:  # a server restarting: every socket closes at once
        attempts.append(time.monotonic())
        await ws.close(code=1012)

    async def main() -> None:
        async with websockets.serve(drop, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            table = OnlineTable(f"http://127.0.0.1:{port}/t/T1", saved=SavedState(tmp_path))
            table._spawn(table._run(asyncio.Event()))
            while len(attempts) < 5:  # 0.5, 1, 2, then the cap
                await asyncio.sleep(0.05)
            await table.stop()

    asyncio.run(asyncio.wait_for(main(), 30))
    gaps = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert RECONNECT_AT_MOST == 2.0
    assert gaps[-1] < RECONNECT_AT_MOST + 0.5 and max(gaps) < RECONNECT_AT_MOST + 0.5, gaps
    assert gaps[-1] > gaps[0]  # it does back off (jittered: 0.25-0.5 s first, 1-2 s at the cap)


def test_the_waits_are_jittered_within_half_the_delay() -> None:
    """Clients dropped together do not retry in lock-step: each wait is drawn between half the delay and it."""
    from yambak.terminal.online import jittered

    waits = [jittered(2.0) for _ in range(200)]
    assert all(1.0 <= w <= 2.0 for w in waits)
    assert len(set(waits)) > 100 and min(waits) < 1.3 and max(waits) > 1.7
