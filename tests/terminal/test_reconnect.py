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
    assert gaps[-1] > gaps[0]  # it does back off: a dead server is not hammered
